"""What the app keeps of the person: owner-only folders and files, kept as long as chosen.

Issue 18, point 9: the history, notes and escalation folders were 0755 and their files 0644,
and nothing was ever deleted.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from sammy_desktop.config import AppPaths, Settings
from sammy_desktop.config.private_data import (
    delete_history,
    history_files,
    make_private_dir,
    open_private,
    prune_expired,
    write_private_text,
)
from sammy_desktop.config.settings import HistoryRetention
from sammy_desktop.config.store import SettingsStore

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)

posix_only = pytest.mark.skipif(os.name != "posix", reason="Windows keeps the profile private")


@pytest.fixture(autouse=True)
def loose_umask() -> Iterator[None]:
    """The usual desktop umask, under which plain files come out world-readable."""
    old = os.umask(0o022)
    yield
    os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@posix_only
def test_app_folders_are_owner_only(tmp_path: Path) -> None:
    paths = AppPaths.profile(tmp_path / "profile")
    paths.ensure()
    for folder in (
        paths.config_dir,
        paths.data_dir,
        paths.history_dir,
        paths.notes_dir,
        paths.escalations_dir,
        paths.log_dir,
    ):
        assert _mode(folder) == 0o700, folder


@posix_only
def test_folders_left_open_by_an_older_version_are_tightened(tmp_path: Path) -> None:
    root = tmp_path / "profile"
    paths = AppPaths.profile(root)
    for folder in (root, paths.data_dir, paths.history_dir, paths.log_dir):
        folder.mkdir(parents=True, exist_ok=True)
        folder.chmod(0o755)
    paths.ensure()
    assert _mode(paths.data_dir) == 0o700
    assert _mode(paths.history_dir) == 0o700
    assert _mode(paths.log_dir) == 0o700
    # A profile folder the person chose keeps what they gave it.
    assert _mode(root) == 0o755


@posix_only
def test_private_files_are_created_owner_only_and_old_ones_tightened(tmp_path: Path) -> None:
    folder = make_private_dir(tmp_path / "a" / "b")
    assert _mode(folder) == 0o700
    new = folder / "new.jsonl"
    with open_private(new, "a") as handle:
        handle.write("line\n")
    assert _mode(new) == 0o600
    old = folder / "old.jsonl"
    old.write_text("first\n", encoding="utf-8")
    old.chmod(0o644)
    with open_private(old, "a") as handle:
        handle.write("second\n")
    assert _mode(old) == 0o600
    assert old.read_text(encoding="utf-8") == "first\nsecond\n"
    record = folder / "esc-1.json"
    write_private_text(record, "{}")
    assert _mode(record) == 0o600
    assert record.read_text(encoding="utf-8") == "{}"
    assert not list(folder.glob("*.tmp"))


@posix_only
def test_the_settings_file_is_owner_only(tmp_path: Path) -> None:
    # Already so before issue 18 (mkstemp's 0600 survives the atomic rename); kept so.
    store = SettingsStore(tmp_path / "profile" / "settings.json")
    store.save(Settings(voice="Kore"))
    assert _mode(store.path) == 0o600


def _written(path: Path, days_ago: float) -> Path:
    """A file last written ``days_ago`` days before NOW."""
    path.write_text("{}\n", encoding="utf-8")
    stamp = (NOW - timedelta(days=days_ago)).timestamp()
    os.utime(path, (stamp, stamp))
    return path


def _profile(tmp_path: Path) -> AppPaths:
    paths = AppPaths.profile(tmp_path / "profile")
    paths.ensure()
    return paths


def test_retention_deletes_history_and_escalations_older_than_chosen(tmp_path: Path) -> None:
    paths = _profile(tmp_path)
    old_session = _written(paths.history_dir / "20260801-090000-s1.jsonl", 91)
    recent = _written(paths.history_dir / "20261120-090000-s2.jsonl", 10)
    old_escalation = _written(paths.escalations_dir / "esc-20260801-090000-abc.json", 200)
    # Notes are the person's own, and other files are not ours: never pruned.
    notes = _written(paths.notes_dir / "notes.sqlite3", 400)
    other = _written(paths.history_dir / "README.txt", 400)

    result = prune_expired(paths, HistoryRetention.DAYS_90.days, NOW)

    assert result.deleted == 2
    assert not old_session.exists()
    assert not old_escalation.exists()
    assert recent.exists() and notes.exists() and other.exists()


def test_forever_keeps_everything(tmp_path: Path) -> None:
    paths = _profile(tmp_path)
    ancient = _written(paths.history_dir / "19990101-000000-s.jsonl", 9000)
    assert HistoryRetention.FOREVER.days is None
    assert prune_expired(paths, None, NOW).deleted == 0
    assert ancient.exists()


def test_the_default_retention_is_90_days() -> None:
    assert Settings().history_retention is HistoryRetention.DAYS_90
    assert Settings().history_retention.days == 90
    assert [r.days for r in HistoryRetention] == [7, 30, 90, 365, None]


def test_delete_history_deletes_every_history_and_escalation_file(tmp_path: Path) -> None:
    paths = _profile(tmp_path)
    for name in ("a.jsonl", "b.jsonl"):
        (paths.history_dir / name).write_text("{}\n", encoding="utf-8")
    (paths.escalations_dir / "esc-1.json").write_text("{}", encoding="utf-8")
    (paths.escalations_dir / "esc-2.json.tmp").write_text("{", encoding="utf-8")
    (paths.notes_dir / "notes.sqlite3").write_bytes(b"")
    assert len(history_files(paths)) == 4

    result = delete_history(paths)

    assert result.deleted == 4 and result.failed == ()
    assert history_files(paths) == []
    assert (paths.notes_dir / "notes.sqlite3").exists()


def test_nothing_to_prune_or_delete_without_the_folders(tmp_path: Path) -> None:
    paths = AppPaths.profile(tmp_path / "never-created")
    assert prune_expired(paths, 7, NOW).deleted == 0
    assert delete_history(paths).deleted == 0
