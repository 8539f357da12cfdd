"""``escalate``: hand the conversation to a human.

The model calls it when it cannot help, when the person asks for a human, or when the topic
needs one. The tool writes a review record (id, reason, category, urgency, time, the app's
state and the whole transcript so far) as JSON under ``paths.escalations_dir``, opens the
support channel configured in the settings (an https: page or a mailto: address, through
the UI's :class:`~sammy_desktop.tools.context.UrlOpener`), emits
:class:`~sammy_desktop.tools.events.EscalationRaised`, and tells the model the record id and
what to say to the person. It is BLOCKING: the model waits so it does not talk over it.
Records are readable by the person only (``0600``) and are kept as long as the history
(``Settings.history_retention``).
"""

from __future__ import annotations

import asyncio
import enum
import json
import logging
import secrets
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from pydantic import BaseModel, Field

from sammy_desktop import __version__
from sammy_desktop.config.private_data import write_private_text
from sammy_desktop.tools.context import ToolContext
from sammy_desktop.tools.definition import tool
from sammy_desktop.tools.events import EscalationRaised
from sammy_desktop.tools.kinds import ToolBehavior, ToolCategory
from sammy_desktop.tools.results import ToolErrorKind, ToolResult

__all__ = [
    "EscalateInput",
    "EscalateOutput",
    "EscalationCategory",
    "Urgency",
    "escalate",
    "support_link",
]

_log = logging.getLogger(__name__)


class EscalationCategory(enum.StrEnum):
    """What kind of help is needed."""

    TECHNICAL_SUPPORT = "technical_support"
    ACCOUNT = "account"
    BILLING = "billing"
    SAFETY = "safety"
    COMPLAINT = "complaint"
    OTHER = "other"


class Urgency(enum.StrEnum):
    """How soon a human should look."""

    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


class EscalateInput(BaseModel):
    """Arguments of escalate."""

    reason: str = Field(
        min_length=1,
        max_length=2000,
        description="What the person needs and why you cannot help, in one or two sentences.",
    )
    category: EscalationCategory = Field(description="What kind of help is needed.")
    urgency: Urgency = Field(Urgency.MEDIUM, description="How soon a human should look.")


class EscalateOutput(BaseModel):
    """What escalate answers."""

    record_id: str = Field(description="The escalation's id; tell it to the person.")
    support_contacted: bool = Field(
        description="True when the support page or e-mail was opened for the person."
    )


_CONFIRMATION_TIMEOUT_S = 60.0
OPEN_AT_MOST_EVERY_S = 300.0
"""The support channel opens at most once in this long, whatever the model asks."""


@tool(
    name="escalate",
    title="Hand over to a person",
    about="Saves the conversation for a person to review and, if you agree, opens the "
    "support contact.",
    confirms_in_handler=True,
    category=ToolCategory.SYSTEM,
    behavior=ToolBehavior.BLOCKING,
    timeout_s=_CONFIRMATION_TIMEOUT_S + 20.0,
    confirmation_timeout_s=_CONFIRMATION_TIMEOUT_S,
)
async def escalate(
    args: EscalateInput, context: ToolContext
) -> EscalateOutput | ToolResult[EscalateOutput]:
    """Hand the conversation to a human.

    Use it when the person asks for a human, when you cannot solve their problem, or when
    the topic needs a person (safety, money, accounts). The conversation is saved for
    review and, if the person agrees, the support contact is opened.
    """
    services = context.services
    now = services.clock()
    record_id = f"esc-{now.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"
    settings = services.settings()
    support_url = settings.support_url.strip()
    snapshot = context.state()
    record: dict[str, Any] = {
        "id": record_id,
        "created_at": now.isoformat(),
        "reason": args.reason,
        "category": args.category.value,
        "urgency": args.urgency.value,
        "app_version": __version__,
        "model": snapshot.model,
        "app_state": {
            "state": snapshot.state,
            "talk_mode": snapshot.talk_mode,
            "enabled_tools": list(snapshot.enabled_tools),
            "demo_mode": snapshot.demo_mode,
            "reconnects": snapshot.reconnects,
        },
        "support_channel": support_url or None,
        "transcript": [
            {"role": line.role, "text": line.text, "at": line.at.isoformat()}
            for line in services.transcript()
        ],
    }
    path = services.paths.escalations_dir / f"{record_id}.json"
    try:
        # Disk I/O off the event loop: the websocket keepalive must keep running.
        await asyncio.to_thread(_write_json_atomically, path, record)
    except OSError as error:
        _log.exception("could not write escalation record %s", path)
        return ToolResult.failure(
            f"The escalation could not be saved ({error.strerror or error}). Tell the person "
            "that handing over to a human failed on this computer, and give them whatever "
            "help you can.",
            error_kind=ToolErrorKind.TOOL_FAILURE,
            display="Your case could not be saved on this computer, so it was not handed "
            "over. The log file has the details.",
        )

    opened = await _open_channel(context, support_url, record_id, args, now)
    if opened is not None:
        record["channel_opened_at"] = now.isoformat()
        try:
            await asyncio.to_thread(_write_json_atomically, path, record)
        except OSError:
            _log.warning("could not note the opened channel in %s", path)
    context.emit(
        EscalationRaised(
            record_id=record_id,
            record_path=path,
            channel_opened=opened,
            call_id=context.call_id,
            reason=args.reason,
            category=args.category.value,
            urgency=args.urgency.value,
        )
    )
    if opened is not None:
        kind = "an e-mail to support" if opened.startswith("mailto:") else "the support page"
        say = (
            f"Tell the person their case {record_id} was saved and that {kind} has been "
            "opened on their screen for them to send or complete."
        )
    elif support_url:
        say = (
            f"Tell the person their case {record_id} was saved, but the support contact "
            f"could not be opened; they can reach support at {support_url}."
        )
    else:
        say = (
            f"Tell the person their case {record_id} was saved on this computer for review; "
            "no support contact is configured in Settings."
        )
    return ToolResult.success(
        EscalateOutput(record_id=record_id, support_contacted=opened is not None),
        instructions=(say,),
        display=f"Saved as case {record_id} for a person to review"
        + ("; the support contact was opened" if opened is not None else ""),
    )


def support_link(support_url: str, record_id: str, args: EscalateInput) -> str:
    """The URL to open: a mailto: gets a subject and a body; a web page is opened as is."""
    if urlsplit(support_url).scheme != "mailto":
        return support_url
    subject = f"Sammy escalation {record_id}: {args.category.value} ({args.urgency.value})"
    body = f"Case {record_id}\nUrgency: {args.urgency.value}\n\n{args.reason}\n"
    separator = "&" if "?" in support_url else "?"
    return f"{support_url}{separator}subject={quote(subject)}&body={quote(body)}"


async def _open_channel(
    context: ToolContext, support_url: str, record_id: str, args: EscalateInput, now: datetime
) -> str | None:
    """Open the support contact, if there is one, the person agrees, and it was not just done.

    A model told to by a web page or a typed text could escalate again and again: the
    channel opens at most once every :data:`OPEN_AT_MOST_EVERY_S` (the saved records say
    when it last did), and never without a yes.
    """
    services = context.services
    if not support_url or services.url_opener is None:
        return None
    since = now - timedelta(seconds=OPEN_AT_MOST_EVERY_S)
    if await asyncio.to_thread(_opened_since, services.paths.escalations_dir, since):
        _log.info("support channel opened less than %.0f s ago; not again", OPEN_AT_MOST_EVERY_S)
        return None
    if not await context.confirm(
        f"Open the support contact for case {record_id}?\n\n{support_url}\n\nReason: {args.reason}"
    ):
        return None
    link = support_link(support_url, record_id, args)
    try:
        opened = await services.url_opener.open_url(link)
    except Exception:  # noqa: BLE001 - the record is saved; a broken opener must not undo that
        _log.exception("opening the support channel %s failed", support_url)
        return None
    return link if opened else None


def _write_json_atomically(path: Path, data: dict[str, Any]) -> None:
    # Owner-only (0600 in a 0700 folder): the record holds the whole conversation.
    write_private_text(path, json.dumps(data, ensure_ascii=False, indent=2))


def _opened_since(folder: Path, since: datetime) -> bool:
    """Whether a saved record says the channel was opened at or after ``since``."""
    try:
        candidates = list(folder.glob("esc-*.json"))
    except OSError:
        return False
    for candidate in candidates:
        try:
            data = json.loads(candidate.read_text(encoding="utf-8"))
            opened_at = datetime.fromisoformat(str(data["channel_opened_at"]))
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if opened_at >= since:
            return True
    return False
