"""getDateTime through the real ToolManager: local time, named zones, unknown zones."""

from __future__ import annotations

import json

from sammy_desktop.config.settings import Settings
from sammy_desktop.tools.desktop import resolve_zone
from tests.tools.conftest import ManagerFactory
from tests.tools.desktop.conftest import Call, error, output


async def test_local_time_comes_from_the_services_clock(
    make_pack_manager: ManagerFactory, call: Call
) -> None:
    body = output(await call(make_pack_manager(), "getDateTime", {}))
    assert body["value"] == {
        "iso": "2026-11-30T09:15:00+01:00",
        "date": "2026-11-30",
        "time": "09:15",
        "weekday": "Monday",
        "timezone": "local",
        "utc_offset": "+01:00",
        "abbreviation": "CET",
    }


async def test_named_zone_converts_the_same_moment(
    make_pack_manager: ManagerFactory, call: Call
) -> None:
    body = output(await call(make_pack_manager(), "getDateTime", {"timezone": "Asia/Tokyo"}))
    value = body["value"]
    assert value["iso"] == "2026-11-30T17:15:00+09:00"
    assert value["timezone"] == "Asia/Tokyo"
    assert value["utc_offset"] == "+09:00"
    assert "feedback" not in body


async def test_zone_name_in_other_case_or_a_city_alone_is_understood_and_said(
    make_pack_manager: ManagerFactory, call: Call
) -> None:
    manager = make_pack_manager()
    body = output(await call(manager, "getDateTime", {"timezone": "america/new_york"}, "fc-1"))
    assert body["value"]["timezone"] == "America/New_York"
    assert body["value"]["time"] == "03:15"
    assert body["feedback"] == ["Interpreted 'america/new_york' as America/New_York."]
    city = output(await call(manager, "getDateTime", {"timezone": "Tokyo"}, "fc-2"))
    assert city["value"]["timezone"] == "Asia/Tokyo"


async def test_unknown_zone_is_a_validation_failure_with_close_matches(
    make_pack_manager: ManagerFactory, call: Call
) -> None:
    body = error(await call(make_pack_manager(), "getDateTime", {"timezone": "Europe/Pariss"}))
    feedback = body["validation"]["timezone"]
    assert feedback["valid"] is False
    assert feedback["suggested_values"][0] == "Europe/Paris"
    assert "Europe/Paris" in body["problems"][0]


async def test_city_misspelt_suggests_its_zone(
    make_pack_manager: ManagerFactory, call: Call
) -> None:
    body = error(await call(make_pack_manager(), "getDateTime", {"timezone": "Berln"}))
    assert "Europe/Berlin" in body["validation"]["timezone"]["suggested_values"]


async def test_nonsense_zone_says_how_to_write_one(
    make_pack_manager: ManagerFactory, call: Call
) -> None:
    body = error(await call(make_pack_manager(), "getDateTime", {"timezone": "qqqqqqqq"}))
    assert "Region/City" in body["problems"][0]
    assert "suggested_values" not in body["validation"]["timezone"]


async def test_misspelt_parameter_name_is_corrected(
    make_pack_manager: ManagerFactory, call: Call
) -> None:
    body = error(await call(make_pack_manager(), "getDateTime", {"time_zone": "Asia/Tokyo"}))
    assert body["validation"]["time_zone"]["suggested_values"] == ["timezone"]


def test_resolve_zone_against_a_given_list() -> None:
    zones = ["Europe/Paris", "America/Argentina/Buenos_Aires", "Europe/London"]
    assert resolve_zone("buenos aires", zones).zone == "America/Argentina/Buenos_Aires"
    assert resolve_zone("EUROPE/LONDON", zones).zone == "Europe/London"
    missing = resolve_zone("Londn", zones)
    assert missing.zone is None
    assert missing.suggestions[0] == "Europe/London"


async def test_time_withheld_in_privacy_is_a_denied_answer(
    make_pack_manager: ManagerFactory, call: Call, settings: Settings
) -> None:
    settings.privacy.share_time = False
    answer = error(await call(make_pack_manager(), "getDateTime", {}))
    assert "Privacy" in answer["problems"][0]
    assert "2026" not in json.dumps(answer)


async def test_time_zone_withheld_gives_utc_and_says_so(
    make_pack_manager: ManagerFactory, call: Call, settings: Settings
) -> None:
    settings.privacy.share_timezone = False
    body = output(await call(make_pack_manager(), "getDateTime", {}))
    assert body["value"]["iso"] == "2026-11-30T08:15:00+00:00"
    assert body["value"]["timezone"] == "UTC"
    assert "CET" not in json.dumps(body)
    assert any("UTC" in line for line in body["feedback"])


async def test_time_zone_withheld_still_converts_a_named_zone(
    make_pack_manager: ManagerFactory, call: Call, settings: Settings
) -> None:
    settings.privacy.share_timezone = False
    body = output(await call(make_pack_manager(), "getDateTime", {"timezone": "Asia/Tokyo"}))
    assert body["value"]["iso"] == "2026-11-30T17:15:00+09:00"
