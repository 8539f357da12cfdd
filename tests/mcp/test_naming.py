"""MCP tools' names for the model: <server>__<tool>, safe characters, at most 64, no clashes."""

from __future__ import annotations

import re

from sammy_desktop.tools.mcp.naming import MAX_NAME_CHARS, declared_name, name_tools

LIVE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")


def test_a_plain_name_is_server_and_tool() -> None:
    assert declared_name("time", "get_current_time") == "time__get_current_time"


def test_characters_outside_the_live_set_become_underscores() -> None:
    name = declared_name("home-assistant", "light.turn on/off")
    assert name == "home_assistant__light_turn_on_off"
    assert LIVE_NAME.fullmatch(name)


def test_a_name_starting_with_a_digit_gets_an_underscore() -> None:
    assert declared_name("3d", "print") == "_3d__print"


def test_long_names_are_shortened_with_a_hash_and_stay_apart() -> None:
    server = "a-very-long-server-name-for-a-home-automation-bridge"
    first = declared_name(server, "set_the_living_room_lights_to_a_colour")
    second = declared_name(server, "set_the_living_room_lights_to_a_brightness")
    assert len(first) == len(second) == MAX_NAME_CHARS
    assert first != second
    assert LIVE_NAME.fullmatch(first)
    assert first.startswith("a_very_long_server_name")


def test_clashes_are_resolved_and_reported() -> None:
    named = name_tools("files", ["read-file", "read_file"], taken=["files__list"])
    assert named[0].declared == "files__read_file"
    assert named[0].clash == ""
    assert named[1].declared != "files__read_file"
    assert LIVE_NAME.fullmatch(named[1].declared)
    assert '"read_file"' in named[1].clash
    assert "files__read_file" in named[1].clash


def test_a_name_another_source_holds_is_a_clash() -> None:
    (named,) = name_tools("time", ["now"], taken=["time__now"])
    assert named.declared != "time__now"
    assert named.clash
