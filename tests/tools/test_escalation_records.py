"""Escalation records hold the whole conversation: nobody else may read them (issue 18, 9)."""

from __future__ import annotations

import os
import stat

import pytest
from google.genai import types

from sammy_desktop.eventbus import EventBus
from sammy_desktop.tools import EscalationRaised, ToolManager, ToolServices
from tests.helpers.events import EventLog
from tests.tools.fakes import RecordingResponder, ScriptedConfirmer


@pytest.mark.skipif(os.name != "posix", reason="Windows keeps the profile private")
async def test_an_escalation_record_is_owner_only(
    services: ToolServices, bus: EventBus, events: EventLog, responder: RecordingResponder
) -> None:
    old_umask = os.umask(0o022)
    try:
        manager = ToolManager(
            bus, services, load_entry_points=False, confirmer=ScriptedConfirmer(True)
        )
        escalate = types.FunctionCall(
            id="1", name="escalate", args={"reason": "help", "category": "other"}
        )
        await manager.handle(types.LiveServerToolCall(function_calls=[escalate]), responder)
    finally:
        os.umask(old_umask)
    record = events.one(EscalationRaised).record_path
    assert stat.S_IMODE(record.stat().st_mode) == 0o600
    assert stat.S_IMODE(record.parent.stat().st_mode) == 0o700
