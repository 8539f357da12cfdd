"""What is deleted from the history leaves the search index too: "Delete all history" and the
retention's pruning take the index with them (it is rebuilt from the files that are left)."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sammy_desktop.archive import HistoryArchive
from sammy_desktop.config import AppPaths
from sammy_desktop.config.private_data import delete_history, prune_expired
from tests.archive.sessions import assistant, user, write_session

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


async def test_delete_all_history_deletes_the_search_index(tmp_path: Path) -> None:
    paths = AppPaths.profile(tmp_path / "profile")
    paths.ensure()
    await write_session(
        paths.history_dir, "s1", NOW, (user("my bank pin is 4321", 1), assistant("Noted.", 1))
    )
    archive = HistoryArchive.for_paths(paths)
    assert archive.search("pin")  # the index now holds the words
    assert list(paths.history_dir.glob("index.sqlite3*"))
    delete_history(paths)
    assert list(paths.history_dir.glob("index.sqlite3*")) == []
    assert HistoryArchive.for_paths(paths).search("pin") == []


async def test_pruned_sessions_leave_the_index_and_the_rest_is_found(tmp_path: Path) -> None:
    paths = AppPaths.profile(tmp_path / "profile")
    paths.ensure()
    old = await write_session(
        paths.history_dir, "old", NOW - timedelta(days=100), (user("the old secret", 1),)
    )
    await write_session(paths.history_dir, "new", NOW, (user("the new plan", 1),))
    stamp = (NOW - timedelta(days=100)).timestamp()
    os.utime(old, (stamp, stamp))
    assert HistoryArchive.for_paths(paths).search("secret")
    assert prune_expired(paths, 90, NOW).deleted == 1
    assert list(paths.history_dir.glob("index.sqlite3")) == []
    archive = HistoryArchive.for_paths(paths)
    assert archive.search("secret") == []
    assert [hit.session_id.endswith("-new") for hit in archive.search("plan")] == [True]
