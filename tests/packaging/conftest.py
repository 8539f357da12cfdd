"""Fixtures for the packaging tests: the bundle manifest, loaded from packaging/, and the bundle."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGING = REPO / "packaging"
BUILD_TIMEOUT_S = 600


def load_packaging_module(name: str) -> ModuleType:
    """Import ``packaging/<name>.py`` (packaging/ is a folder of build files, not a package)."""
    spec = importlib.util.spec_from_file_location(
        f"sammy_packaging_{name}", PACKAGING / f"{name}.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # Registered first, as an import would: dataclasses look their module up by name.
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def manifest() -> ModuleType:
    """packaging/bundle_manifest.py."""
    return load_packaging_module("bundle_manifest")


@pytest.fixture(scope="session")
def app_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The one-folder app, built by packaging/build.sh into a temporary dist folder.

    Built once per test session, for every module that asks for it (``-m package``).
    """
    root = tmp_path_factory.mktemp("package")
    started = time.monotonic()
    result = subprocess.run(
        [str(PACKAGING / "build.sh"), "--dist", str(root / "dist"), "--work", str(root / "work")],
        env={**os.environ, "PYTHON": sys.executable},
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_S,
        check=False,
    )
    assert result.returncode == 0, f"build failed:\n{result.stdout}\n{result.stderr}"
    print(f"bundle built in {time.monotonic() - started:.0f} s")  # shown with -s / on failure
    return root / "dist" / "sammy-desktop"
