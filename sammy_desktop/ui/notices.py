"""What the main window tells the person: banners that need them, notes in the transcript.

The core, the tools and the audio devices report what happened as events; :class:`Notices`
turns the ones the person should know about into words. What needs the person becomes a
banner under the header, with the action that helps (a refused key opens Settings > Account,
a speaker that stopped "Choose a device", a dropped connection says it is reconnecting);
a microphone that does not work is :mod:`~sammy_desktop.ui.mic_notices`' to say. What only
marks the conversation's course ("Reconnected · conversation resumed", "Tools updated")
becomes a quiet note in the transcript.

A banner's action that leads elsewhere is a signal (:attr:`Notices.settings_requested`,
:attr:`Notices.connect_requested`): the window decides what opens.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from PySide6.QtCore import QObject, Signal

from sammy_desktop.core.events import (
    AgentState,
    ConnectionLost,
    ErrorKind,
    ErrorRaised,
    NoResponse,
    Reconnected,
    Reconnecting,
    SessionEnded,
    SessionStarted,
    StateChanged,
    ToolsChanged,
    TurnStats,
)
from sammy_desktop.tools.builtins.current_context import (
    shared_lines,
    shared_summary,
    withheld_words,
)
from sammy_desktop.tools.desktop.events import TimerCancelled, TimerFired, TimerStarted
from sammy_desktop.tools.wording import human_duration
from sammy_desktop.ui.controls import can_talk
from sammy_desktop.ui.settings.sections import SettingsSection
from sammy_desktop.ui.settings.tools_page import tools_change_timing
from sammy_desktop.ui.url_opener import open_folder_on_desktop

if TYPE_CHECKING:
    from PySide6.QtWidgets import QLabel

    from sammy_desktop.audio.events import (
        DeviceFallback,
        DeviceSwitched,
        StreamError,
        StreamRecovered,
    )
    from sammy_desktop.tools.events import (
        ContextShared,
        EndSessionRequested,
        EscalationRaised,
    )
    from sammy_desktop.ui.banners import BannerAction, BannerArea
    from sammy_desktop.ui.transcript import TranscriptView

__all__ = ["Notices", "shared_summary"]

_SETTINGS_FOR_ERROR: Final = {
    ErrorKind.AUTH: SettingsSection.ACCOUNT,
    # The Voice & language page lists the models the key can use.
    ErrorKind.MODEL: SettingsSection.VOICE,
    ErrorKind.CONFIGURATION: SettingsSection.VOICE,
}
"""The settings section that can fix an error of each kind (none for the others)."""

_ERROR_OVER: Final = frozenset(
    {AgentState.READY, AgentState.CONNECTING, AgentState.DISCONNECTED, AgentState.ENDED}
)
"""The states that end an error's banner: working again, trying again, or stopped."""


def _clause(sentence: str) -> str:
    """``The key was refused.`` -> ``the key was refused``, to sit inside another sentence."""
    text = sentence.strip().rstrip(".")
    if len(text) > 1 and text[0].isupper() and text[1].islower():
        text = text[0].lower() + text[1:]
    return text or "no reason given"


class Notices(QObject):
    """Banners and transcript notes for what happened.

    Args:
        banners: the column of banners under the header.
        transcript: where the notes go.
        state: the agent's state when the window is built.
        parent: the Qt parent.
    """

    settings_requested = Signal(str)
    """A banner's action asks for the settings at a section (a :class:`SettingsSection`)."""

    connect_requested = Signal()
    """A banner's action asks to connect ("Connect", "Connect again")."""

    def __init__(
        self,
        banners: BannerArea,
        transcript: TranscriptView,
        *,
        state: AgentState = AgentState.DISCONNECTED,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._banners = banners
        self._transcript = transcript
        self._state = state

    # ------------------------------------------------------------------ asked by the window

    def show_startup_notices(self, texts: Sequence[str]) -> list[QLabel]:
        """Show start-up's notices for the person; return the banners' text labels.

        A settings file that could not be read is one: the notice names the field and value.
        """
        labels = []
        for index, text in enumerate(texts):
            banner = self._banners.show_banner(f"notice-{index}", "warning", text)
            labels.append(banner.text_label)
        return labels

    def show_for_settings(self, section: str, text: str, kind: str = "error") -> None:
        """A banner whose action opens the settings at ``section``."""
        self._banners.show_banner(
            f"settings-{section}",
            kind,
            text,
            actions=[self._settings_action("Open settings", section)],
        )

    def show_not_connected(self) -> None:
        """A message was typed while not connected: say so, and keep the text."""
        self._banners.show_banner(
            "not-connected",
            "info",
            "Not connected: connect first, then send your message again. Your text is kept.",
            actions=[("Connect", lambda: self.connect_requested.emit())],
        )

    def on_connecting(self) -> None:
        """The person asked to connect: the "not connected" banner has done its job."""
        self._banners.remove("not-connected")

    # ------------------------------------------------------------------ the conversation

    def on_state_changed(self, event: StateChanged) -> None:
        """Each banner about the conversation goes once what it says is no longer so.

        * "reconnecting": the conversation takes words again, or it has stopped (given up
          with the final error, Disconnect, the key removed);
        * "not connected": the conversation takes words again;
        * the error: ready again, or the person starts again or stops (Connecting,
          Disconnected, Session ended);
        * "no answer came back": the person talks again, or the conversation has stopped.
        """
        new = event.new
        self._state = new
        if can_talk(new) or not new.is_running:
            self._banners.remove("connection")
        if can_talk(new):
            self._banners.remove("not-connected")
        if new in _ERROR_OVER:
            self._banners.remove("error")
        if new is AgentState.USER_SPEAKING or not new.is_running:
            self._banners.remove("no-response")

    def on_session_started(self, _event: SessionStarted) -> None:
        """A new conversation, marked in a transcript that already has one."""
        if self._transcript.lines():
            self._transcript.add_note("New conversation")

    def on_session_ended(self, event: SessionEnded) -> None:
        """The conversation is over (the reason as a clause: the error said it already)."""
        self._transcript.add_note(f"Conversation ended ({_clause(event.reason)})")

    def on_end_session_requested(self, event: EndSessionRequested) -> None:
        """The assistant ends the conversation (the endSession tool)."""
        reason = f": {event.reason}" if event.reason else ""
        self._transcript.add_note(f"Sammy is ending the conversation{reason}")

    def on_error_raised(self, event: ErrorRaised) -> None:
        """A problem the person must act on, with the action that helps."""
        # What happened, then what to do, each once (a message may already say it).
        advice = event.what_to_do if event.what_to_do not in event.message else ""
        text = f"{event.message} {advice}".strip()
        section = _SETTINGS_FOR_ERROR.get(event.kind)
        if section is not None:
            action = self._settings_action("Open settings", section)
        else:
            # A quota, a network, a bug: nothing in the settings helps; trying again may.
            action = ("Connect again", lambda: self.connect_requested.emit())
        self._banners.show_banner("error", "error", text, actions=[action])

    def on_connection_lost(self, event: ConnectionLost) -> None:
        """The connection dropped; a reconnection usually follows.

        The close's reason (a code, the service's or the network's words) is for the log.
        """
        self._banners.show_banner(
            "connection", "warning", "Connection lost. Trying again…", dismissible=False
        )

    def on_reconnecting(self, event: Reconnecting) -> None:
        """A reconnection attempt is on its way."""
        self._banners.show_banner(
            "connection",
            "warning",
            f"Offline: reconnecting (attempt {event.attempt} of {event.max_attempts}). "
            "Keep talking; what you say is kept and sent once the connection is back.",
            dismissible=False,
        )

    def on_reconnected(self, event: Reconnected) -> None:
        """Back online; a drop (not a planned reconnection) is noted in the transcript."""
        self._banners.remove("connection")
        if not event.planned:
            how = (
                "conversation resumed"
                if event.resumed
                else "conversation restarted with its history"
            )
            self._transcript.add_note(f"Reconnected · {how}")

    def on_no_response(self, event: NoResponse) -> None:
        """The service stayed silent after the person's turn."""
        if event.gave_up:
            self._banners.show_banner(
                "no-response",
                "warning",
                "No answer came back. Please say it again, or check the connection.",
            )
        else:
            self._transcript.add_note("Waiting for an answer…")

    def on_turn_stats(self, _event: TurnStats) -> None:
        """An answer came: "no answer came back" is no longer true."""
        self._banners.remove("no-response")

    # ------------------------------------------------------------------ the tools

    def on_tools_changed(self, event: ToolsChanged) -> None:
        """Say that the assistant's tools changed, and when that takes effect."""
        if not self._state.is_running:
            return
        count = len(event.enabled)
        self._transcript.add_note(
            f"Tools updated ({count} available to Sammy): applies {tools_change_timing(event)}"
        )

    def on_context_shared(self, event: ContextShared) -> None:
        """Say exactly what the assistant learnt about this computer."""
        shared = dict(event.shared)
        text = f"Shared with Sammy: {shared_summary(shared)}."
        if event.withheld:
            text += f" Held back by your privacy settings: {withheld_words(event.withheld)}."
        details = "\n".join(shared_lines(shared)) or "Nothing."
        self._banners.show_banner(
            "context",
            "info",
            text,
            actions=[self._settings_action("Privacy settings", SettingsSection.PRIVACY)],
            details=details,
        )

    def on_escalation_raised(self, event: EscalationRaised) -> None:
        """Escalation saved: show the record id and where it went."""
        if event.channel_opened:
            where = f"Opened {event.channel_opened} for you."
        else:
            where = "It is saved on this computer only (no support contact is set)."
        record_folder = event.record_path.parent

        def show_record() -> None:
            open_folder_on_desktop(record_folder)

        self._banners.show_banner(
            "escalation",
            "success",
            f"Sent for review as {event.record_id}. {where}",
            actions=[("Show record", show_record)],
        )

    def on_timer_started(self, event: TimerStarted) -> None:
        """A timer runs: a quiet banner says what for and when it ends."""
        timer = event.timer
        ends = timer.ends_at.astimezone().strftime("%H:%M")
        # A timer without a label is just a timer: no empty quotes ("Timer “” set for…").
        name = f"Timer “{timer.label}”" if timer.label.strip() else "Timer"
        self._banners.show_banner(
            f"timer-{timer.id}",
            "info",
            f"{name} set for {human_duration(timer.duration_s)}; it ends at {ends}.",
        )

    def on_timer_fired(self, event: TimerFired) -> None:
        """A timer ended."""
        timer = event.timer
        if timer.label.strip():
            text = f"Timer done: “{timer.label}”."
        else:
            text = f"Timer done (set for {human_duration(timer.duration_s)})."
        self._banners.show_banner(f"timer-{timer.id}", "success", text)

    def on_timer_cancelled(self, event: TimerCancelled) -> None:
        """A timer was cancelled: its banner goes."""
        self._banners.remove(f"timer-{event.timer.id}")

    # ------------------------------------------------------------------ the audio devices

    def on_device_fallback(self, event: DeviceFallback) -> None:
        """The chosen device could not be used (unplugged, turned off); another one is."""
        reason = event.reason.rstrip(".")
        self._show_device_banner(event.direction, "warning", f"{reason[:1].upper()}{reason[1:]}.")

    def on_device_switched(self, event: DeviceSwitched) -> None:
        """A stream moved: onto the chosen device (back, once it is plugged in) ends a fallback."""
        if event.requested in ("", event.device):
            self._banners.remove(f"device-{event.direction}")

    def on_stream_error(self, event: StreamError) -> None:
        """The speaker failed (unplugged headphones...).

        A microphone that does not work has one banner, MicNotices' (with no microphone at
        all a failed press and a failed stream showed two saying nearly the same).
        """
        if event.direction != "output":
            return
        self._show_device_banner(
            "output", "error", f"The speaker is not working: {event.reason}. Trying again…"
        )

    def on_stream_recovered(self, event: StreamRecovered) -> None:
        """A device works again."""
        self._banners.remove(f"device-{event.direction}")

    def _show_device_banner(self, direction: str, kind: str, text: str) -> None:
        self._banners.show_banner(
            f"device-{direction}",
            kind,
            text,
            actions=[self._settings_action("Choose a device", SettingsSection.DEVICES)],
        )

    def _settings_action(self, label: str, section: str) -> BannerAction:
        return (label, lambda: self.settings_requested.emit(section))
