"""A temporary HOME with its XDG folders for the integration files' tests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest


@dataclass(frozen=True)
class Home:
    """The temporary home and the XDG folders set for it."""

    home: Path
    config: Path
    data: Path
    system_data: Path


@pytest.fixture
def xdg_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Home:
    """HOME, XDG_CONFIG_HOME, XDG_DATA_HOME and XDG_DATA_DIRS under ``tmp_path``."""
    home = Home(
        home=tmp_path / "home",
        config=tmp_path / "home" / "config",
        data=tmp_path / "home" / "data",
        system_data=tmp_path / "usr-share",
    )
    home.home.mkdir()
    home.system_data.mkdir()
    monkeypatch.setenv("HOME", str(home.home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home.config))
    monkeypatch.setenv("XDG_DATA_HOME", str(home.data))
    monkeypatch.setenv("XDG_DATA_DIRS", str(home.system_data))
    return home
