"""Rebuild Qt's ICU data library (libicudata) with only the ICU data Qt can reach.

PySide6's Linux wheel ships ICU 73 for QtCore; its data library is 32 MB, the biggest file in
the bundle. It holds one symbol, ``icudt73_dat``: an ICU "common data" package (a table of
contents, then one data item per resource, e.g. ``icudt73l/lang/de.res``). QtCore calls only
ICU's case mapping, converters (``ucnv_*``), collation (``ucol_*``) and time zones
(``ucal_*``), so the items that only other ICU services read (display names of languages,
regions, currencies and units, transliterators, spell-out rules, break-iterator
dictionaries, StringPrep profiles, character names, confusables) can never be loaded; see
``bundle_manifest.ICU_DATA_DROPPED`` for the list and why each one is out.

``trim_icu_library`` reads the package out of the shipped library, writes a package without
those items, and links a library with the same name (soname) and the same one symbol around
it, with the system's C compiler. It needs nothing from ICU's own tools.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

# A common data package's items start on 16-byte boundaries (ICU's own tools align them so).
_ALIGNMENT = 16
_MAGIC = (0xDA, 0x27)
_COMMON_DATA_FORMAT = b"CmnD"
# What ICU's tools (icupkg, pkgdata) pad with; the same here, so a package read and written
# back unchanged is the same bytes.
_PADDING = b"\xaa"


class IcuDataError(ValueError):
    """The bytes are not an ICU common data package this module can rewrite."""


@dataclass(frozen=True)
class IcuDataItem:
    """One item of a common data package: its name and its bytes (padding included)."""

    name: str
    data: bytes


@dataclass(frozen=True)
class IcuCommonData:
    """An ICU common data package (the ``.dat`` format, little-endian, format 1)."""

    header: bytes
    items: tuple[IcuDataItem, ...]

    @classmethod
    def parse(cls, blob: bytes) -> IcuCommonData:
        """Read a package.

        Args:
            blob: The package's bytes, e.g. the ``icudt73_dat`` symbol's contents.

        Returns:
            The package.

        Raises:
            IcuDataError: ``blob`` is not a little-endian common data package.
        """
        if len(blob) < 32:
            raise IcuDataError("too short for an ICU data header")
        header_size, magic1, magic2 = struct.unpack_from("<HBB", blob, 0)
        if (magic1, magic2) != _MAGIC:
            raise IcuDataError("no ICU data magic number at the start")
        # UDataInfo: size, reserved, isBigEndian, charsetFamily, sizeofUChar, reserved,
        # dataFormat[4], formatVersion[4], dataVersion[4].
        is_big_endian = blob[8]
        data_format = blob[12:16]
        if data_format != _COMMON_DATA_FORMAT or is_big_endian:
            raise IcuDataError(f"not a little-endian common data package (format {data_format!r})")
        if header_size % _ALIGNMENT:
            raise IcuDataError(f"header size {header_size} is not a multiple of {_ALIGNMENT}")
        toc = blob[header_size:]
        (count,) = struct.unpack_from("<I", toc, 0)
        entries = [struct.unpack_from("<II", toc, 4 + 8 * index) for index in range(count)]
        items = []
        for index, (name_offset, data_offset) in enumerate(entries):
            name_end = toc.index(b"\0", name_offset)
            end = entries[index + 1][1] if index + 1 < count else len(toc)
            if not data_offset <= end <= len(toc):
                raise IcuDataError(f"item {index} lies outside the package")
            items.append(
                IcuDataItem(toc[name_offset:name_end].decode("ascii"), toc[data_offset:end])
            )
        return cls(blob[:header_size], tuple(items))

    def without(self, dropped: Callable[[str], bool]) -> IcuCommonData:
        """The package without the items whose names ``dropped`` accepts."""
        return IcuCommonData(
            self.header, tuple(item for item in self.items if not dropped(item.name))
        )

    def to_bytes(self) -> bytes:
        """The package's bytes; items keep their (sorted) order, ICU looks them up by bisection."""
        count = len(self.items)
        names = b"".join(item.name.encode("ascii") + b"\0" for item in self.items)
        names_start = 4 + 8 * count
        first_data = _aligned(names_start + len(names))
        toc = bytearray(struct.pack("<I", count))
        body = bytearray()
        name_offset = names_start
        for item in self.items:
            toc += struct.pack("<II", name_offset, first_data + len(body))
            name_offset += len(item.name) + 1
            body += item.data
            body += _PADDING * (_aligned(len(body)) - len(body))
        toc += names
        toc += _PADDING * (first_data - len(toc))
        return self.header + bytes(toc) + bytes(body)


def _aligned(offset: int) -> int:
    return -(-offset // _ALIGNMENT) * _ALIGNMENT


def dropped_by(patterns: Iterable[str]) -> Callable[[str], bool]:
    """A predicate for ``IcuCommonData.without`` from the manifest's patterns.

    Args:
        patterns: ``tree/`` drops a whole tree (``lang/`` matches ``icudt73l/lang/de.res``),
            ``*.ext`` every item with that extension, anything else one item by name without
            the ``icudt73l/`` prefix.

    Returns:
        Whether an item name (with its prefix) is dropped.
    """
    trees = tuple(p for p in patterns if p.endswith("/"))
    extensions = tuple(p[1:] for p in patterns if p.startswith("*."))
    names = frozenset(p for p in patterns if not p.endswith("/") and not p.startswith("*."))

    def dropped(item_name: str) -> bool:
        relative = item_name.split("/", 1)[1] if "/" in item_name else item_name
        return relative.startswith(trees) or relative.endswith(extensions) or relative in names

    return dropped


def _readelf(what: str, library: Path) -> str:
    """``readelf --wide <what>`` of the library, as text."""
    return subprocess.run(
        ["readelf", "--wide", what, str(library)], check=True, capture_output=True, text=True
    ).stdout


def _data_symbol(library: Path) -> tuple[str, int, int]:
    """The name, file offset and size of the library's ``icudt*_dat`` symbol."""
    for line in _readelf("--dyn-syms", library).splitlines():
        fields = line.split()
        if len(fields) >= 8 and fields[7].startswith("icudt") and fields[7].endswith("_dat"):
            symbol, address, size = fields[7], int(fields[1], 16), int(fields[2], 0)
            break
    else:
        raise IcuDataError(f"{library} has no icudt*_dat symbol")
    # The symbol's address is a virtual address; its section says where that is in the file.
    for line in _readelf("--section-headers", library).splitlines():
        fields = line.replace("[ ", "[").split()
        if len(fields) >= 6 and fields[1] == ".rodata":
            section_address, section_offset = int(fields[3], 16), int(fields[4], 16)
            return symbol, address - section_address + section_offset, size
    raise IcuDataError(f"{library} has no .rodata section")


def _soname(library: Path) -> str:
    dynamic = subprocess.run(
        ["readelf", "--dynamic", str(library)], check=True, capture_output=True, text=True
    ).stdout
    for line in dynamic.splitlines():
        if "(SONAME)" in line:
            return line.rsplit("[", 1)[1].rstrip("]")
    return library.name


def read_icu_library(library: Path) -> tuple[str, IcuCommonData]:
    """The data package in an ICU data library, and the name of the symbol that holds it.

    Args:
        library: A libicudata shared library (ELF).

    Returns:
        The symbol's name (``icudt73_dat``) and the package.

    Raises:
        IcuDataError: The library holds no ICU data package.
    """
    symbol, offset, size = _data_symbol(library)
    with library.open("rb") as stream:
        stream.seek(offset)
        return symbol, IcuCommonData.parse(stream.read(size))


def trim_icu_library(library: Path, work: Path, dropped_patterns: Iterable[str]) -> int:
    """Replace ``library`` (libicudata.so.NN) by one without the dropped ICU data.

    Args:
        library: The data library in the bundle; it is overwritten.
        work: A scratch folder for the package and the assembler file.
        dropped_patterns: What to leave out, as ``dropped_by`` reads it.

    Returns:
        The bytes saved.

    Raises:
        IcuDataError: The library is not an ICU data library, or binutils are missing.
    """
    assembler, linker = shutil.which("as"), shutil.which("ld")
    if assembler is None or linker is None:
        raise IcuDataError("binutils (as, ld) are needed to link the smaller ICU data library")
    symbol, package = read_icu_library(library)
    smaller = package.without(dropped_by(dropped_patterns))
    work.mkdir(parents=True, exist_ok=True)
    data_file = work / f"{symbol.removesuffix('_dat')}l.dat"
    data_file.write_bytes(smaller.to_bytes())
    assembly = work / "icudata.S"
    assembly.write_text(
        "\t.section .rodata\n"
        f"\t.globl {symbol}\n"
        f"\t.type {symbol}, @object\n"
        f"\t.balign {_ALIGNMENT}\n"
        f"{symbol}:\n"
        f'\t.incbin "{data_file.name}"\n'
        f"\t.size {symbol}, . - {symbol}\n"
        '\t.section .note.GNU-stack,"",@progbits\n',
        encoding="ascii",
    )
    output = work / library.name
    objects = work / "icudata.o"
    # Plain assembly (no preprocessor lines), so binutils alone builds it: no C compiler.
    subprocess.run([assembler, "-o", str(objects), str(assembly)], check=True, cwd=work)
    subprocess.run(
        [
            linker,
            "-shared",
            "-soname",
            _soname(library),
            "-z",
            "noexecstack",
            "--strip-all",
            "-o",
            str(output),
            str(objects),
        ],
        check=True,
        cwd=work,
    )
    before = library.stat().st_size
    shutil.copyfile(output, library)
    return before - library.stat().st_size
