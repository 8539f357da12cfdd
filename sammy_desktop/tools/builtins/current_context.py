"""``getCurrentContext``: what the model may know about this desktop, and nothing more.

It answers with the local date, time and time zone, the platform, the app's state (mode,
session length, enabled tools) and the person's preferences and custom context from the
settings, each only when its privacy switch allows it. Switched-off items are named in
``withheld``, so the model knows to ask instead of guess. It emits
:class:`~sammy_desktop.tools.events.ContextShared` with exactly what was sent, so the UI
can show the person what the assistant learnt, in the words of :func:`shared_summary`,
:func:`shared_lines` and :func:`withheld_words` (the window imports no pack, but these are
the built-ins').
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Final

from pydantic import BaseModel, Field

from sammy_desktop.tools.context import AgentStateSnapshot, ToolContext
from sammy_desktop.tools.definition import tool
from sammy_desktop.tools.events import ContextShared
from sammy_desktop.tools.kinds import ResponseScheduling, ToolBehavior, ToolCategory
from sammy_desktop.tools.results import ToolResult
from sammy_desktop.tools.wording import human_duration, human_value

__all__ = [
    "AppStateInfo",
    "CurrentContext",
    "CurrentContextInput",
    "get_current_context",
    "shared_lines",
    "shared_summary",
    "withheld_words",
]

_SHARED_WORDS: Final = {
    # CurrentContext's fields (and the names an older record may hold) as a person says them
    "local_time": "date and time",
    "weekday": "date and time",
    "time": "date and time",
    "date": "date",
    "time_zone": "time zone",
    "timezone": "time zone",
    "platform": "operating system",
    "operating_system": "operating system",
    "app": "Sammy's state",
    "app_state": "Sammy's state",
    "preferences": "what you wrote about yourself",
    "user_preferences": "what you wrote about yourself",
    "custom_context": "custom context",
}
_LINE_LABELS: Final = {
    "local_time": "Date and time",
    "weekday": "Day",
    "time_zone": "Time zone",
    "platform": "Operating system",
    "app": "Sammy's state",
    "preferences": "About you",
    "custom_context": "Custom context",
}
_SWITCH_WORDS: Final = {
    "share_time": "date and time",
    "share_timezone": "time zone",
    "share_platform": "operating system",
    "share_app_state": "Sammy's state",
    "share_preferences": "what you wrote about yourself",
    "share_custom_context": "custom context",
}


def shared_summary(shared: Mapping[str, object]) -> str:
    """What was shared, in words ("date and time, time zone"), or "nothing"."""
    words: list[str] = []
    for key in shared:
        if key == "withheld":
            continue  # what was not shared
        word = _SHARED_WORDS.get(key, key.replace("_", " "))
        if word not in words:
            words.append(word)
    return ", ".join(words) if words else "nothing"


def withheld_words(switches: Sequence[str]) -> str:
    """The privacy switches that held something back, in words ("time zone, custom context")."""
    return ", ".join(
        _SWITCH_WORDS.get(name, name.removeprefix("share_").replace("_", " ")) for name in switches
    )


def shared_lines(shared: Mapping[str, Any]) -> list[str]:
    """Exactly what was shared, one ``Label: value`` line each, as a person reads it."""
    lines = []
    for key, value in shared.items():
        if key == "withheld":
            continue
        label = _LINE_LABELS.get(key, key.replace("_", " ").capitalize())
        if key == "local_time":
            shown = _readable_time(str(value))
        elif key == "app" and isinstance(value, Mapping):
            shown = _readable_app(value)
        else:
            shown = human_value(value)
        lines.append(f"{label}: {shown}")
    return lines


def _readable_time(iso: str) -> str:
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:
        return iso
    return f"{moment.day} {moment:%B %Y, %H:%M}"


def _readable_app(app: Mapping[str, Any]) -> str:
    parts = [str(app.get("state", "")).replace("_", " ")]
    parts.append(str(app.get("talk_mode", "")).replace("_", " "))
    length = app.get("session_length_s")
    if isinstance(length, int):
        parts.append(f"talking for {human_duration(length)}")
    tools = app.get("enabled_tools")
    if isinstance(tools, list):
        parts.append(f"{len(tools)} tool" + ("" if len(tools) == 1 else "s"))
    if app.get("demo_mode"):
        parts.append("offline demo")
    return ", ".join(part for part in parts if part)


class CurrentContextInput(BaseModel):
    """Arguments of getCurrentContext."""

    reason: str = Field(
        min_length=1,
        max_length=500,
        description="What the context is needed for, e.g. 'to know the local time'.",
    )


class AppStateInfo(BaseModel):
    """The app's state as shared with the model."""

    state: str = Field(description="What the assistant is doing now.")
    talk_mode: str = Field(description="push_to_talk or hands_free.")
    model: str = Field(description="The Live model answering.")
    session_length_s: int | None = Field(description="Seconds since the session began.")
    enabled_tools: list[str] = Field(description="Tools the assistant may use.")
    demo_mode: bool = Field(description="True in the offline demo.")


class CurrentContext(BaseModel):
    """What getCurrentContext shares; an item is None when its switch is off or it is empty."""

    local_time: str | None = Field(None, description="Local date and time, ISO 8601.")
    weekday: str | None = Field(None, description="The local day of the week.")
    time_zone: str | None = Field(None, description="Time zone name and UTC offset.")
    platform: str | None = Field(None, description="The operating system.")
    app: AppStateInfo | None = Field(None, description="The app's state.")
    preferences: str | None = Field(None, description="What the person wrote about themselves.")
    custom_context: str | None = Field(None, description="Extra context from the settings.")
    withheld: list[str] = Field(
        default_factory=list,
        description="Privacy switches that are off: ask the person rather than guess these.",
    )


def _shared_part(value: CurrentContext) -> dict[str, Any]:
    return value.model_dump(mode="json", exclude_none=True)


def _summary(result: ToolResult[CurrentContext]) -> str | None:
    if not result.ok or result.value is None:
        return None
    return f"Shared {shared_summary(_shared_part(result.value))}"


def _model_output(result: ToolResult[CurrentContext]) -> Mapping[str, Any]:
    # Leave out what is not shared instead of sending nulls: the model reads less.
    if result.ok and result.value is not None:
        return {"output": {"ok": True, "value": _shared_part(result.value)}}
    return result.to_model_payload()


@tool(
    name="getCurrentContext",
    title="Context from this computer",
    about="Tells Sammy the time, your time zone and more, as your privacy settings allow.",
    summary=_summary,
    category=ToolCategory.CONTEXT,
    behavior=ToolBehavior.NON_BLOCKING,
    scheduling=ResponseScheduling.WHEN_IDLE,
    timeout_s=5.0,
    to_model_output=_model_output,
)
async def get_current_context(args: CurrentContextInput, context: ToolContext) -> CurrentContext:
    """Get the local date, time and time zone, the operating system and the person's notes.

    Also tells the assistant's own state and what the person wrote about themselves. Use it
    when the answer depends on the time, the place or the person's preferences. Items the
    person chose not to share are listed under 'withheld'.
    """
    settings = context.services.settings()
    privacy = settings.privacy
    now = context.services.clock()
    withheld = [
        name
        for name in (
            "share_time",
            "share_timezone",
            "share_platform",
            "share_app_state",
            "share_preferences",
            "share_custom_context",
        )
        if not getattr(privacy, name)
    ]
    shared = CurrentContext(
        local_time=_local_time(now, with_zone=privacy.share_timezone)
        if privacy.share_time
        else None,
        weekday=now.strftime("%A") if privacy.share_time else None,
        time_zone=_time_zone(now) if privacy.share_timezone else None,
        platform=context.services.platform_description if privacy.share_platform else None,
        app=_app_state(context.state(), now) if privacy.share_app_state else None,
        preferences=(settings.user_preferences.strip() or None)
        if privacy.share_preferences
        else None,
        custom_context=(settings.custom_context.strip() or None)
        if privacy.share_custom_context
        else None,
        withheld=withheld,
    )
    context.emit(
        ContextShared(
            call_id=context.call_id,
            shared=_shared_part(shared),
            withheld=tuple(withheld),
            reason=args.reason,
        )
    )
    return shared


def _local_time(now: datetime, *, with_zone: bool) -> str:
    moment = now if with_zone else now.replace(tzinfo=None)
    return moment.isoformat(timespec="minutes")


def _time_zone(now: datetime) -> str:
    offset = now.strftime("%z")  # +0100
    pretty = f"UTC{offset[:3]}:{offset[3:]}" if offset else "UTC offset unknown"
    name = now.tzname()
    return f"{name} ({pretty})" if name and not name.startswith(("UTC+", "UTC-")) else pretty


def _app_state(snapshot: AgentStateSnapshot, now: datetime) -> AppStateInfo:
    length: int | None = None
    if snapshot.session_started_at is not None:
        started = snapshot.session_started_at
        if started.tzinfo is None:
            started = started.astimezone()
        length = max(0, int((now - started).total_seconds()))
    return AppStateInfo(
        state=snapshot.state,
        talk_mode=snapshot.talk_mode,
        model=snapshot.model,
        session_length_s=length,
        enabled_tools=list(snapshot.enabled_tools),
        demo_mode=snapshot.demo_mode,
    )
