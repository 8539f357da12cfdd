"""Strip symbol tables from the bundle's shared libraries, only where that keeps them loadable.

Most wheels ship their libraries with the static symbol table (``.symtab``) and some with
debug information; the loader needs neither, only the dynamic symbols, which
``strip --strip-unneeded`` keeps. But libraries that auditwheel patched with patchelf
(numpy.libs' OpenBLAS and libgfortran) carry extra load segments that binutils' strip
rewrites badly: the result fails to load with "ELF load command address/offset not
page-aligned". So each library is stripped as a copy, and the copy replaces it only if every
load segment still satisfies the loader's rule (file offset and address congruent modulo the
segment's alignment, which is what that error checks) and the copy is smaller.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

ELF_MAGIC = b"\x7fELF"


@dataclass(frozen=True)
class StripOutcome:
    """What ``strip_where_safe`` did."""

    saved: int
    stripped: tuple[Path, ...]
    kept_whole: tuple[tuple[Path, str], ...]


def _readelf(option: str, path: Path) -> str:
    return subprocess.run(
        ["readelf", "--wide", option, str(path)], check=True, capture_output=True, text=True
    ).stdout


def has_removable_symbols(path: Path) -> bool:
    """Whether an ELF file still has a static symbol table or debug sections."""
    sections = _readelf("--section-headers", path)
    return any(
        name == ".symtab" or name.startswith(".debug")
        for line in sections.splitlines()
        for name in line.replace("[ ", "[").split()[1:2]
    )


def misaligned_load_segments(path: Path) -> list[str]:
    """The load segments whose file offset and address differ modulo their alignment.

    The dynamic loader refuses such a file ("ELF load command address/offset not
    page-aligned").
    """
    bad = []
    for line in _readelf("--program-headers", path).splitlines():
        fields = line.split()
        if fields[:1] == ["LOAD"]:
            offset, address, alignment = int(fields[1], 16), int(fields[2], 16), int(fields[-1], 16)
            if alignment > 1 and offset % alignment != address % alignment:
                bad.append(line.strip())
    return bad


def is_elf(path: Path) -> bool:
    """Whether ``path`` is a regular ELF file (symlinks are not followed)."""
    if path.is_symlink() or not path.is_file():
        return False
    with path.open("rb") as stream:
        return stream.read(4) == ELF_MAGIC


def strip_where_safe(paths: Iterable[Path], scratch: Path) -> StripOutcome:
    """``strip --strip-unneeded`` each file whose stripped copy still loads.

    Args:
        paths: Shared libraries (and Python extension modules) in the bundle. Never the
            PyInstaller executable: its archive is appended after the ELF data, and strip
            would cut it off.
        scratch: A folder for the stripped copies.

    Returns:
        The bytes saved, the files stripped, and those kept whole with the reason.
    """
    strip = shutil.which("strip")
    if strip is None:
        return StripOutcome(0, (), ())
    scratch.mkdir(parents=True, exist_ok=True)
    saved = 0
    stripped: list[Path] = []
    kept_whole: list[tuple[Path, str]] = []
    for path in paths:
        if not is_elf(path) or not has_removable_symbols(path):
            continue
        copy = scratch / path.name
        shutil.copy2(path, copy)
        try:
            subprocess.run([strip, "--strip-unneeded", str(copy)], check=True, capture_output=True)
        except subprocess.CalledProcessError as error:
            kept_whole.append((path, f"strip failed: {error.stderr.decode(errors='replace')}"))
            continue
        bad = misaligned_load_segments(copy)
        before, after = path.stat().st_size, copy.stat().st_size
        if bad:
            kept_whole.append((path, f"stripping misaligns a load segment: {bad[0]}"))
        elif after >= before:
            kept_whole.append((path, "stripping does not make it smaller"))
        else:
            shutil.copy2(copy, path)
            saved += before - after
            stripped.append(path)
        copy.unlink()
    return StripOutcome(saved, tuple(stripped), tuple(kept_whole))
