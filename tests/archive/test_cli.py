"""``sammy-desktop history``: the real command, as a separate process, on a profile folder."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from datetime import timedelta
from pathlib import Path

import pytest

from sammy_desktop.app import build_parser
from sammy_desktop.config import AppPaths
from tests.archive.sessions import (
    WEATHER_LINES,
    WEATHER_START,
    user,
    weather_session,
    write_session,
)

COMMAND = Path(sys.executable).with_name("sammy-desktop")


def _run(*args: str | Path, home: Path) -> subprocess.CompletedProcess[str]:
    environment = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),  # nothing of the person running the tests is read or written
        "TZ": "UTC",
        "LANG": "C.UTF-8",
    }
    return subprocess.run(
        [str(COMMAND), *map(str, args)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=False,
        env=environment,
    )


@pytest.fixture
def profile(tmp_path: Path) -> Path:
    return tmp_path / "profile"


def _history_dir(profile: Path) -> Path:
    return AppPaths.profile(profile).history_dir


@pytest.fixture
async def weather(profile: Path) -> Path:
    """The weather session's file, in the profile's history folder."""
    return await weather_session(_history_dir(profile))


@pytest.fixture
async def longer(profile: Path) -> Path:
    """A later session whose first line is far too long for one line of the list."""
    long_first = "please tell me " + "a very long story about the sea " * 10
    return await write_session(
        _history_dir(profile), "longer", WEATHER_START + timedelta(days=1), [user(long_first, 1)]
    )


def test_list_shows_each_session_on_one_line(
    profile: Path, tmp_path: Path, weather: Path, longer: Path
) -> None:
    result = _run("history", "list", "--config-dir", profile, home=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    newest, oldest = result.stdout.splitlines()
    assert newest.startswith("longer ")
    assert "2026-12-01 09:15" in newest and newest.endswith("…")
    assert oldest.startswith("weather0001 ")
    assert weather.stem.endswith("weather0001")
    facts = re.fullmatch(
        r"weather0001  2026-11-30 09:15  +\d+ s  +300 tokens  +2 tool calls  (?P<said>.+)", oldest
    )
    assert facts is not None, oldest
    said = facts["said"]  # the first thing said, whole or cut to what is left of the line
    assert said == WEATHER_LINES[0] or (
        said.endswith("…") and WEATHER_LINES[0].startswith(said[:-1]) and len(oldest) == 100
    )
    assert max(len(line) for line in result.stdout.splitlines()) <= 100

    before = _run("--config-dir", profile, "history", "list", home=tmp_path)  # flag first
    assert before.returncode == 0 and before.stdout == result.stdout


def test_search_prints_the_matches_with_the_words_marked(
    profile: Path, tmp_path: Path, weather: Path
) -> None:
    found = _run("history", "search", "umbrella", "--config-dir", profile, home=tmp_path)
    assert found.returncode == 0, found.stderr
    assert found.stdout.splitlines() == [
        "1 match for “umbrella”:",
        "2026-11-30 09:15  weather0001  turn 1  You: Will I need an [umbrella] in Lisbon tomorrow?",
    ]
    tool = _run("history", "search", "oolong", "--config-dir", profile, home=tmp_path)
    assert "Tool startTimer: " in tool.stdout and "[oolong]" in tool.stdout
    odd = _run("history", "search", '"AND', "NEAR(", "*", "--config-dir", profile, home=tmp_path)
    assert odd.returncode == 1 and odd.stderr == ""
    assert odd.stdout.startswith("No matches for")
    as_json = _run(
        "history", "search", "lisbon", "--format", "json", "--config-dir", profile, home=tmp_path
    )
    assert len(json.loads(as_json.stdout)["hits"]) == 3


@pytest.mark.parametrize("fmt", ["md", "txt", "json"])
def test_export_latest_prints_the_whole_session(
    profile: Path, tmp_path: Path, weather: Path, fmt: str
) -> None:
    result = _run(
        "history", "export", "latest", "--format", fmt, "--config-dir", profile, home=tmp_path
    )
    assert result.returncode == 0, result.stderr
    if fmt == "json":
        document = json.loads(result.stdout)
        assert document["session"]["id"] == weather.stem
        said = [e["text"] for e in document["entries"] if e["type"] != "tool_call"]
        assert said == WEATHER_LINES
        calls = [e for e in document["entries"] if e["type"] == "tool_call"]
        assert [c["arguments"] for c in calls] == [
            {"city": "Lisbon", "day": "tomorrow"},
            {"minutes": 4, "label": "oolong"},
        ]
    else:
        for expected in (*WEATHER_LINES, "City: Lisbon", "Label: oolong", "The clock is asleep"):
            assert expected in result.stdout, expected


def test_export_takes_the_short_id_or_the_start_of_one(
    profile: Path, tmp_path: Path, weather: Path
) -> None:
    for reference in ("weather0001", "weath", weather.stem):
        result = _run(
            "history",
            "export",
            reference,
            "--format",
            "json",
            "--config-dir",
            profile,
            home=tmp_path,
        )
        assert result.returncode == 0, (reference, result.stderr)
        assert json.loads(result.stdout)["session"]["id"] == weather.stem


def test_an_unknown_id_exits_1_with_the_latest_ids_to_try(
    profile: Path, tmp_path: Path, weather: Path
) -> None:
    result = _run("history", "export", "nosuch", "--config-dir", profile, home=tmp_path)
    assert result.returncode == 1
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert lines[0] == "sammy-desktop: There is no conversation “nosuch”."
    assert lines[1] == "The latest are:"
    assert lines[2].startswith("  weather0001  2026-11-30 09:15")
    assert "latest" in lines[-1]


def test_an_empty_history(profile: Path, tmp_path: Path) -> None:
    listed = _run("history", "list", "--config-dir", profile, home=tmp_path)
    assert (listed.returncode, listed.stdout, listed.stderr) == (0, "No conversations yet.\n", "")
    exported = _run("history", "export", "latest", "--config-dir", profile, home=tmp_path)
    assert exported.returncode == 1
    assert exported.stderr == "sammy-desktop: No conversations yet.\n"
    searched = _run("history", "search", "anything", "--config-dir", profile, home=tmp_path)
    assert searched.returncode == 1 and "No conversations yet." in searched.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["history"],
        ["history", "delete", "x"],
        ["history", "export"],
        ["history", "export", "latest", "--format", "pdf"],
        ["history", "search"],
        ["history", "search", "tea", "--limit", "0"],
        ["history", "list", "--bogus"],
        ["--model", "m", "history", "list"],
    ],
)
def test_bad_usage_exits_2(profile: Path, tmp_path: Path, args: list[str]) -> None:
    result = _run(*args, "--config-dir", profile, home=tmp_path)
    assert result.returncode == 2, result
    assert "usage:" in result.stderr or "only used with" in result.stderr


def test_the_command_line_without_a_command_is_what_it_was() -> None:
    parser = build_parser()
    assert vars(parser.parse_args([])) | {} == {
        "log_level": "WARNING",
        "demo": False,
        "api_base_url": None,
        "self_test": False,
        "check_live": False,
        "model": None,
        "config_dir": None,
        "start_hidden": False,
        "remote": None,
        "command": None,
    }
    demo = parser.parse_args(["--demo", "--config-dir", "D", "--log-level", "debug"])
    assert (demo.demo, demo.config_dir, demo.log_level, demo.command) == (
        True,
        Path("D"),
        "DEBUG",
        None,
    )
    check = parser.parse_args(["--check-live", "--model", "m", "--api-base-url", "https://x"])
    assert (check.check_live, check.model, check.api_base_url, check.command) == (
        True,
        "m",
        "https://x",
        None,
    )
    assert parser.parse_args(["--self-test"]).self_test
    history = parser.parse_args(["--config-dir", "A", "history", "list"])
    assert (history.command, history.history_action, history.config_dir) == (
        "history",
        "list",
        Path("A"),
    )
    after = parser.parse_args(["history", "list", "--config-dir", "B"])
    assert after.config_dir == Path("B")


def test_version_still_works(tmp_path: Path) -> None:
    result = _run("--version", home=tmp_path)
    assert result.returncode == 0 and result.stdout.startswith("sammy-desktop ")


def test_the_command_starts_no_qt_no_audio_no_keyring(
    profile: Path, tmp_path: Path, weather: Path
) -> None:
    code = textwrap.dedent(
        f"""
        import sys
        from sammy_desktop.app import main
        code = main(["history", "list", "--config-dir", {str(profile)!r}])
        import keyring.core
        loaded = sorted(
            name for name in ("PySide6", "qasync", "sounddevice", "google.genai")
            if name in sys.modules
        )
        print(code, loaded, keyring.core._keyring_backend is None)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "TZ": "UTC"},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "0 [] True"
