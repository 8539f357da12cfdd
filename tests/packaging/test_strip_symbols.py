"""packaging/strip_symbols.py: strip what still loads after stripping, keep the rest whole."""

from __future__ import annotations

import _json
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy
import pytest

from tests.packaging.conftest import load_packaging_module

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ELF files only"),
    pytest.mark.skipif(shutil.which("strip") is None, reason="needs binutils' strip"),
]


@pytest.fixture(scope="module")
def strip_symbols() -> ModuleType:
    """packaging/strip_symbols.py."""
    return load_packaging_module("strip_symbols")


def test_an_extension_module_is_stripped_and_still_imports(
    strip_symbols: ModuleType, tmp_path: Path
) -> None:
    module = Path(_json.__file__)
    folder = tmp_path / "modules"
    folder.mkdir()
    copy = folder / module.name
    shutil.copy2(module, copy)
    if not strip_symbols.has_removable_symbols(copy):
        pytest.fail(f"{module} has no symbol table to strip; pick another module")

    outcome = strip_symbols.strip_where_safe([copy], tmp_path / "scratch")

    assert outcome.stripped == (copy,)
    assert outcome.saved == module.stat().st_size - copy.stat().st_size > 0
    assert not strip_symbols.has_removable_symbols(copy)
    imported = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import sys; sys.path.insert(0, {str(folder)!r}); import _json; "
            "print(_json.__file__); print(_json.encode_basestring_ascii('é'))",
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    ).stdout.split()
    assert imported == [str(copy), '"\\u00e9"']


def test_a_library_patched_by_auditwheel_is_kept_whole(
    strip_symbols: ModuleType, tmp_path: Path
) -> None:
    libs = Path(numpy.__file__).parent.parent / "numpy.libs"
    openblas = next(libs.glob("libscipy_openblas*.so"))
    copy = tmp_path / openblas.name
    shutil.copy2(openblas, copy)

    outcome = strip_symbols.strip_where_safe([copy], tmp_path / "scratch")

    assert outcome.saved == 0
    assert outcome.stripped == ()
    [(path, reason)] = outcome.kept_whole
    assert path == copy
    assert "misaligns a load segment" in reason
    assert copy.read_bytes() == openblas.read_bytes()
    assert not strip_symbols.misaligned_load_segments(copy)


def test_files_that_are_not_elf_or_are_links_are_left_alone(
    strip_symbols: ModuleType, tmp_path: Path
) -> None:
    text = tmp_path / "notes.so"
    text.write_text("not a library", encoding="ascii")
    link = tmp_path / "libfoo.so.1"
    link.symlink_to(text)

    outcome = strip_symbols.strip_where_safe([text, link], tmp_path / "scratch")

    assert outcome == strip_symbols.StripOutcome(0, (), ())
    assert text.read_text(encoding="ascii") == "not a library"
