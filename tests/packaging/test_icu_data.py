"""packaging/icu_data.py: Qt's ICU data library without the data Qt never reads.

The real library from PySide6's wheel is read, rewritten and linked; then Qt, loading the
smaller library, must give the same answers as with the whole one for everything it asks ICU
(collation, time zone names, converters, case mapping).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.packaging.conftest import load_packaging_module

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="only PySide6's Linux wheel ships ICU"
)

# What Qt asks ICU for, printed so that two runs can be compared line by line.
QT_ICU_PROBE = """
import sys
from functools import cmp_to_key
from PySide6.QtCore import QCollator, QLocale, QStringDecoder, QTimeZone

maps = open("/proc/self/maps", encoding="ascii").read().split()
print([path for path in maps if "libicudata" in path][0])
words = ["Äpfel", "apfel", "Zebra", "Øre", "ørn", "côte", "coté", "ch", "cz", "\\u0131", "\\u0130"]
words += ["中文", "日本"]
for name in ("de_DE", "sv_SE", "cs_CZ", "tr_TR", "zh_CN", "ja_JP"):
    locale = QLocale(name)
    print(name, sorted(words, key=cmp_to_key(QCollator(locale).compare)))
    print(name, locale.toUpper("istanbul ß"), locale.toLower("İSTANBUL ΣΑΣ"))
    for zone in (b"Europe/Berlin", b"Asia/Tokyo", b"America/New_York"):
        for kind in (QTimeZone.StandardTime, QTimeZone.DaylightTime):
            print(zone, [QTimeZone(zone).displayName(kind, length, locale)
                         for length in (QTimeZone.LongName, QTimeZone.ShortName)])
codecs = QStringDecoder.availableCodecs()
print(len(codecs), [codec for codec in codecs if not QStringDecoder(codec).isValid()])
"""


@pytest.fixture(scope="module")
def icu_data() -> ModuleType:
    """packaging/icu_data.py."""
    return load_packaging_module("icu_data")


@pytest.fixture(scope="module")
def qt_icu_library() -> Path:
    """The ICU data library in the installed PySide6."""
    import PySide6

    libraries = sorted(Path(PySide6.__file__).parent.glob("Qt/lib/libicudata.so.*"))
    assert libraries, "PySide6's Linux wheel should ship libicudata"
    return libraries[0].resolve()


def test_a_package_read_and_written_back_is_the_same_bytes(
    icu_data: ModuleType, qt_icu_library: Path
) -> None:
    symbol, package = icu_data.read_icu_library(qt_icu_library)
    assert symbol.startswith("icudt")
    assert symbol.endswith("_dat")
    _, offset, size = icu_data._data_symbol(qt_icu_library)
    with qt_icu_library.open("rb") as stream:
        stream.seek(offset)
        original = stream.read(size)
    assert package.to_bytes() == original


def test_the_manifest_drops_display_names_and_keeps_what_qt_reads(
    icu_data: ModuleType, manifest: ModuleType, qt_icu_library: Path
) -> None:
    _, package = icu_data.read_icu_library(qt_icu_library)
    prefix = package.items[0].name.split("/", 1)[0] + "/"
    smaller = package.without(icu_data.dropped_by(manifest.ICU_DATA_DROPPED))
    kept = {item.name.removeprefix(prefix) for item in smaller.items}
    for name in (
        "root.res",
        "de.res",
        "res_index.res",
        "cnvalias.icu",
        "ibm-943_P15A-2003.cnv",
        "coll/root.res",
        "coll/ucadata.icu",
        "coll/sv.res",
        "zone/de.res",
        "zoneinfo64.res",
        "metaZones.res",
        "supplementalData.res",
        "nfkc.nrm",
    ):
        assert name in kept, name
    for name in (
        "lang/de.res",
        "region/de.res",
        "curr/de.res",
        "unit/de.res",
        "translit/root.res",
        "rbnf/de.res",
        "brkitr/cjdict.dict",
        "unames.icu",
        "rfc3491.spp",
    ):
        assert name not in kept, name
    assert len(smaller.to_bytes()) < len(package.to_bytes()) * 0.6


def test_not_an_icu_package_is_refused(icu_data: ModuleType) -> None:
    with pytest.raises(icu_data.IcuDataError, match="magic"):
        icu_data.IcuCommonData.parse(b"\x7fELF" + bytes(60))


def test_qt_gives_the_same_answers_with_the_trimmed_library(
    icu_data: ModuleType, manifest: ModuleType, qt_icu_library: Path, tmp_path: Path
) -> None:
    trimmed_dir = tmp_path / "lib"
    trimmed_dir.mkdir()
    trimmed = trimmed_dir / qt_icu_library.name
    shutil.copyfile(qt_icu_library, trimmed)

    saved = icu_data.trim_icu_library(trimmed, tmp_path / "work", manifest.ICU_DATA_DROPPED)

    assert saved > 10_000_000
    assert trimmed.stat().st_size == qt_icu_library.stat().st_size - saved

    def probe(library_path: str | None) -> list[str]:
        env = {key: value for key, value in os.environ.items() if key != "LD_LIBRARY_PATH"}
        if library_path is not None:
            # Searched before the RUNPATH ($ORIGIN) of PySide6's libicuuc.
            env["LD_LIBRARY_PATH"] = library_path
        result = subprocess.run(
            [sys.executable, "-c", QT_ICU_PROBE],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        return result.stdout.splitlines()

    whole = probe(None)
    smaller = probe(str(trimmed_dir))
    assert Path(whole[0]).resolve() == qt_icu_library
    assert Path(smaller[0]) == trimmed
    assert smaller[1:] == whole[1:]
    assert whole[-1].endswith(" []"), "every codec Qt lists should open"
