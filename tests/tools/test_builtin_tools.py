"""The built-in tools: endSession, getCurrentContext and escalate, with their events."""

from __future__ import annotations

import dataclasses
import json
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from google.genai import types

from sammy_desktop.config import Settings
from sammy_desktop.eventbus import EventBus
from sammy_desktop.tools import (
    AgentStateSnapshot,
    ContextShared,
    EndSessionRequested,
    EscalationRaised,
    ToolCallFailed,
    ToolManager,
    ToolServices,
)
from tests.helpers.events import EventLog
from tests.tools.conftest import ManagerFactory
from tests.tools.fakes import RecordingResponder, RecordingUrlOpener, ScriptedConfirmer


def call(call_id: str, name: str, **args: Any) -> types.LiveServerToolCall:
    return types.LiveServerToolCall(
        function_calls=[types.FunctionCall(id=call_id, name=name, args=args)]
    )


def response_of(responder: RecordingResponder, call_id: str = "1") -> dict[str, Any]:
    response = responder.by_id(call_id).response
    assert response is not None
    return response


# ---------------------------------------------------------------- endSession


async def test_end_session_refuses_until_confirmed(
    make_manager: ManagerFactory, responder: RecordingResponder, events: EventLog
) -> None:
    manager = make_manager()
    await manager.handle(call("1", "endSession", reason="bye", confirmed=False), responder)

    error = response_of(responder)["error"]
    assert "has not confirmed" in error["problems"][0]
    assert "confirmed=true only if they say yes" in error["problems"][0]
    assert error["validation"]["confirmed"]["allowed_values"] == [True]
    # The refusal must make the model ask, so it is not silent.
    assert responder.by_id("1").scheduling is types.FunctionResponseScheduling.WHEN_IDLE
    assert events.of(EndSessionRequested) == []


async def test_end_session_confirmed_emits_the_request(
    make_manager: ManagerFactory, responder: RecordingResponder, events: EventLog
) -> None:
    manager = make_manager()
    await manager.handle(
        call("7", "endSession", reason="the person said bye", confirmed=True), responder
    )

    output = response_of(responder, "7")["output"]
    assert output["value"] == {"ending": True, "reason": "the person said bye"}
    assert "goodbye" in output["instructions"][0]
    assert events.one(EndSessionRequested) == EndSessionRequested(
        reason="the person said bye", call_id="7"
    )


# ---------------------------------------------------------------- getCurrentContext


async def test_context_shares_everything_allowed(
    make_manager: ManagerFactory,
    responder: RecordingResponder,
    events: EventLog,
    settings: Settings,
) -> None:
    settings.user_preferences = "Call me Sam. Metric units."
    settings.custom_context = "  I work in a print shop.  "
    manager = make_manager()
    await manager.handle(call("1", "getCurrentContext", reason="the time"), responder)

    value = response_of(responder)["output"]["value"]
    assert value == {
        "local_time": "2026-11-30T09:15+01:00",
        "weekday": "Monday",
        "time_zone": "CET (UTC+01:00)",
        "platform": "Linux-6.1-x86_64",
        "app": {
            "state": "listening",
            "talk_mode": "push_to_talk",
            "model": "gemini-2.5-flash-native-audio-preview-12-2025",
            "session_length_s": 300,
            "enabled_tools": ["endSession", "getCurrentContext", "escalate"],
            "demo_mode": False,
        },
        "preferences": "Call me Sam. Metric units.",
        "custom_context": "I work in a print shop.",
        "withheld": [],
    }
    shared = events.one(ContextShared)
    assert shared.shared == value  # exactly what was sent
    assert shared.withheld == ()
    assert shared.call_id == "1"
    assert shared.reason == "the time"


async def test_context_honours_every_privacy_switch(
    make_manager: ManagerFactory,
    responder: RecordingResponder,
    events: EventLog,
    settings: Settings,
) -> None:
    settings.user_preferences = "secret preferences"
    settings.custom_context = "secret context"
    for switch in (
        "share_platform",
        "share_app_state",
        "share_preferences",
        "share_custom_context",
    ):
        setattr(settings.privacy, switch, False)
    settings.privacy.share_timezone = False
    manager = make_manager()
    await manager.handle(call("1", "getCurrentContext", reason="anything"), responder)

    value = response_of(responder)["output"]["value"]
    assert value == {
        "local_time": "2026-11-30T09:15",  # no offset: the time zone is withheld
        "weekday": "Monday",
        "withheld": [
            "share_timezone",
            "share_platform",
            "share_app_state",
            "share_preferences",
            "share_custom_context",
        ],
    }
    assert "secret" not in json.dumps(response_of(responder))
    shared = events.one(ContextShared)
    assert shared.shared == value
    assert shared.withheld == tuple(value["withheld"])


async def test_context_with_nothing_shared(
    make_manager: ManagerFactory, responder: RecordingResponder, settings: Settings
) -> None:
    for switch in type(settings.privacy).model_fields:
        setattr(settings.privacy, switch, False)
    manager = make_manager()
    await manager.handle(call("1", "getCurrentContext", reason="anything"), responder)
    value = response_of(responder)["output"]["value"]
    assert set(value) == {"withheld"}
    assert len(value["withheld"]) == 6


# ---------------------------------------------------------------- escalate


def with_opener(services: ToolServices, opener: RecordingUrlOpener) -> ToolServices:
    return dataclasses.replace(services, url_opener=opener)


async def test_escalate_saves_the_record_and_opens_mailto(
    make_manager: ManagerFactory,
    responder: RecordingResponder,
    events: EventLog,
    services: ToolServices,
    settings: Settings,
    bus: EventBus,
    snapshot: AgentStateSnapshot,
) -> None:
    settings.support_url = "mailto:help@example.org"
    opener = RecordingUrlOpener()
    confirmer = ScriptedConfirmer(True)
    manager = ToolManager(
        bus,
        with_opener(services, opener),
        load_entry_points=False,
        state=lambda: snapshot,
        confirmer=confirmer,
    )
    await manager.handle(
        call(
            "1", "escalate", reason="Printer broken", category="technical_support", urgency="high"
        ),
        responder,
    )
    # Asked first (issue 18): the question names the case, the contact and the reason.
    [question] = confirmer.requests
    assert question.prompt.startswith("Open the support contact for case esc-")
    assert "mailto:help@example.org" in question.prompt
    assert "Printer broken" in question.prompt

    raised = events.one(EscalationRaised)
    assert raised.record_path.parent == services.paths.escalations_dir
    record = json.loads(raised.record_path.read_text(encoding="utf-8"))
    assert record["id"] == raised.record_id
    assert (record["reason"], record["category"], record["urgency"]) == (
        "Printer broken",
        "technical_support",
        "high",
    )
    assert record["created_at"] == "2026-11-30T09:15:00+01:00"
    assert record["model"] == "gemini-2.5-flash-native-audio-preview-12-2025"
    assert [line["text"] for line in record["transcript"]] == [
        "My printer will not print.",
        "Let me get you a human.",
    ]
    assert record["transcript"][0]["role"] == "user"

    (opened,) = opener.opened
    assert raised.channel_opened == opened
    parts = urlsplit(opened)
    assert (parts.scheme, parts.path) == ("mailto", "help@example.org")
    query = parse_qs(parts.query)
    assert query["subject"] == [f"Sammy escalation {raised.record_id}: technical_support (high)"]
    assert "Printer broken" in query["body"][0]

    output = response_of(responder)["output"]
    assert output["value"] == {"record_id": raised.record_id, "support_contacted": True}
    assert raised.record_id in output["instructions"][0]
    assert "e-mail" in output["instructions"][0]
    assert responder.by_id("1").scheduling is None  # BLOCKING: no scheduling


@pytest.mark.parametrize(
    ("support_url", "opener", "contacted", "says"),
    [
        ("https://help.example.org/new", RecordingUrlOpener(), True, "support page"),
        ("https://help.example.org/new", RecordingUrlOpener(result=False), False, "could not"),
        (
            "https://help.example.org/new",
            RecordingUrlOpener(error=OSError("no browser")),
            False,
            "could not",
        ),
        ("", RecordingUrlOpener(), False, "no support contact is configured"),
        ("https://help.example.org/new", None, False, "could not"),
    ],
    ids=["https-opened", "opener-refused", "opener-raised", "not-configured", "no-ui"],
)
@pytest.mark.logs_errors("opening the support channel")
async def test_escalate_support_channel_outcomes(
    services: ToolServices,
    settings: Settings,
    bus: EventBus,
    events: EventLog,
    responder: RecordingResponder,
    support_url: str,
    opener: RecordingUrlOpener | None,
    contacted: bool,
    says: str,
) -> None:
    settings.support_url = support_url
    used = services if opener is None else with_opener(services, opener)
    manager = ToolManager(bus, used, load_entry_points=False, confirmer=ScriptedConfirmer(True))
    await manager.handle(call("1", "escalate", reason="help", category="other"), responder)

    raised = events.one(EscalationRaised)
    assert raised.record_path.is_file()
    assert (raised.channel_opened is not None) is contacted
    output = response_of(responder)["output"]
    assert output["value"]["support_contacted"] is contacted
    assert says in output["instructions"][0]
    if opener is not None and support_url:
        assert opener.opened == [support_url]  # a web page is opened as configured


async def test_escalate_opens_the_channel_only_with_a_yes_and_at_most_every_few_minutes(
    services: ToolServices,
    settings: Settings,
    bus: EventBus,
    events: EventLog,
) -> None:
    """Issue 18: 30 escalate calls opened 30 mail windows, with no question."""
    settings.support_url = "https://help.example.org/new"
    opener = RecordingUrlOpener()
    declined = ToolManager(
        bus,
        with_opener(services, opener),
        load_entry_points=False,
        confirmer=ScriptedConfirmer(False),
    )
    no = RecordingResponder()
    await declined.handle(call("1", "escalate", reason="help", category="other"), no)
    assert opener.opened == []
    assert events.one(EscalationRaised).record_path.is_file()  # saved all the same
    assert response_of(no)["output"]["value"]["support_contacted"] is False

    confirmer = ScriptedConfirmer(True)
    agreeing = ToolManager(
        bus, with_opener(services, opener), load_entry_points=False, confirmer=confirmer
    )
    for number in range(2, 32):
        await agreeing.handle(
            call(str(number), "escalate", reason="help", category="other"), RecordingResponder()
        )
    assert opener.opened == ["https://help.example.org/new"]  # once, however often asked
    assert len(confirmer.requests) == 1
    assert len(events.of(EscalationRaised)) == 31


@pytest.mark.logs_errors("could not write escalation record")
async def test_escalate_when_the_record_cannot_be_written(
    make_manager: ManagerFactory,
    responder: RecordingResponder,
    events: EventLog,
    services: ToolServices,
) -> None:
    # A file where the data folder should be: the record cannot be written.
    services.paths.data_dir.parent.mkdir(parents=True, exist_ok=True)
    services.paths.data_dir.write_text("not a folder", encoding="utf-8")
    manager = make_manager()
    await manager.handle(call("1", "escalate", reason="help", category="other"), responder)

    problem = response_of(responder)["error"]["problems"][0]
    assert "could not be saved" in problem
    assert events.of(EscalationRaised) == []
    assert len(events.of(ToolCallFailed)) == 1
