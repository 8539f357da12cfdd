"""What pressing and letting go of "talk" means in each talk mode, and what the control shows.

The person talks in push-to-talk or hands-free (``talk_mode``, Settings > Talking). In
push-to-talk the talk key (``talk_key``) says what a press means:

* Auto (the default): a press starts the turn at once; letting go after a hold ends it,
  letting go of a short tap (under :data:`~sammy_desktop.config.TAP_MAX_S`) keeps talking
  until the next press;
* hold to talk: a press starts the turn, letting go ends it;
* tap to toggle: one press starts the turn, the next ends it.

Hands-free, the microphone is live whenever Sammy is connected, and a press pauses or
resumes it. Other processes drive the same turns without a key (:meth:`TalkInput.toggle`,
:meth:`~TalkInput.start`, :meth:`~TalkInput.stop`: the tray and ``sammy-desktop
--toggle-talk``/``--talk-start``/``--talk-stop``).

A press while disconnected connects first; the turn starts as soon as the agent takes it
("Connecting… keep talking"). Presses come from the talk button, from Space and the global
hotkey (merged into one key by :class:`~sammy_desktop.ui.talk_keys.TalkKeys`) and from the
tray. :class:`TalkInput` also shows where talking stands: the talk button's look (idle,
listening, speaking, unavailable), its level ring, the hint under it and the header's state
pill. What those say is decided in one place, :func:`~sammy_desktop.ui.talk_view.talk_view`,
from the agent's state, the talk mode, the press and whether the microphone works; this
module only keeps those facts and shows the result after every change.

The cue follows the microphone, not the key (USERS.md 12): where the microphone is closed
between turns, a press opens it, and "Listening", the level ring and the start earcon come
when its first real block arrives (the bridge's ``microphone_listening``). If opening takes
longer than :data:`OPENING_HINT_MS`, the hint says "Opening the microphone…" meanwhile. A
microphone that cannot be opened ends the press without a turn (the banner says why), and
until it is heard again (or works again, or another is chosen) the control says it does not
work instead of inviting a press. With no microphone events at all (no audio, a test's fake
agent) the cue comes with the press. A conversation that stops (an error, the end) ends the
press with it, even one still waiting for the connection.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Final

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QLabel

from sammy_desktop.audio.events import (
    MicrophoneInUse,
    MicrophoneListening,
    MicrophoneOpening,
    MicrophoneUnavailable,
    StreamError,
    StreamRecovered,
)
from sammy_desktop.config import TAP_MAX_S, Settings, TalkKey, TalkMode
from sammy_desktop.core.events import AgentState, SessionEnded, StateChanged
from sammy_desktop.ui.controls import AgentControls, UiTasks
from sammy_desktop.ui.state_pill import StatePill
from sammy_desktop.ui.talk_button import TalkButton
from sammy_desktop.ui.talk_view import (
    Press,
    PressMode,
    TalkLook,
    TalkSituation,
    TalkView,
    talk_view,
)

__all__ = ["OPENING_HINT_MS", "TalkInput"]

_log = logging.getLogger(__name__)

OPENING_HINT_MS: Final = 150
"""A microphone that takes longer than this to hear is said to be opening."""


class TalkInput(QObject):
    """Turns talk presses into the agent's turns, and shows where talking stands.

    Args:
        button: the round talk button; its look follows the person's turn.
        hint: the line under the button saying what a press does now.
        pill: the header's state pill; without it only the button and the hint are shown.
        settings: the settings in use (talk mode, click-to-toggle, earcons).
        tasks: runs the agent's coroutines (connecting, switching the talk mode).
        controls: the agent; without it talking is unavailable and the button is disabled.
        play_sound: plays a short sound by name (``listen_start``, ``listen_stop``).
        invitation: shows what the empty transcript invites the person to do ("" for
            nothing); the transcript's ``set_invitation``.
        clock: seconds, for telling a tap from a hold (``time.monotonic``).
        parent: the Qt parent.
    """

    talk_started = Signal()
    """A press (a key, the tray, a remote command) started talking, or resumed hands-free
    listening: a shared screen sends its picture now."""

    def __init__(
        self,
        button: TalkButton,
        hint: QLabel,
        *,
        pill: StatePill | None = None,
        settings: Settings,
        tasks: UiTasks,
        controls: AgentControls | None = None,
        play_sound: Callable[[str], None] | None = None,
        invitation: Callable[[str], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._clock = clock
        # Auto: when the press that started talking went down; whether a tap latched it
        # (talking until the next press); and that press's release, which ends nothing.
        self._pressed_at = 0.0
        self._latched = False
        self._ignore_release = False
        self._button = button
        self._hint = hint
        self._pill = pill
        self._invitation = invitation
        # The text box has the focus: Space types there instead of talking.
        self._typing = False
        self._reason = ""
        self._shown: tuple[TalkView, bool, AgentState, str] | None = None
        # False once the microphone failed, until it is heard or works again.
        self._mic_works = True
        self._settings = settings
        self._tasks = tasks
        self._controls = controls
        self._play_sound = play_sound
        self._state = controls.state if controls is not None else AgentState.DISCONNECTED
        self._talking = False
        # Talking was asked for before the agent could take the turn (still connecting).
        self._pending = False
        self._mic_paused = False
        # The press waits for the microphone to hear (it was closed), and whether the
        # listening cue has been given for this press.
        self._opening = False
        self._cued = False
        self._opening_timer = QTimer(self)
        self._opening_timer.setSingleShot(True)
        self._opening_timer.setInterval(OPENING_HINT_MS)
        self._opening_timer.timeout.connect(self._show)
        self._show()

    @property
    def opening(self) -> bool:
        """Whether a press waits for the microphone to open and hear."""
        return self._opening

    @property
    def talking(self) -> bool:
        """Whether the person is talking (button or Space held, or toggled on).

        Hands-free: whether the microphone is live (connected and not paused).
        """
        if self._hands_free():
            return self._state.is_running and not self._mic_paused
        return self._talking

    # ------------------------------------------------------------------ presses

    def on_pressed(self) -> None:
        """The talk button, Space or a shortcut went down."""
        key = self._settings.talk_key
        if self._hands_free():
            self._toggle_hands_free_mic()
        elif key is TalkKey.TAP_TO_TOGGLE:
            if self._talking:
                self._stop_talking()
            else:
                self._start_talking()
        elif key is TalkKey.AUTO and self._talking and self._latched:
            self._ignore_release = True  # this press sends; its release ends nothing
            self._stop_talking()
        else:
            self._pressed_at = self._clock()
            self._ignore_release = False
            self._start_talking()

    def on_released(self) -> None:
        """The talk button, Space or a shortcut came up."""
        key = self._settings.talk_key
        if self._hands_free() or key is TalkKey.TAP_TO_TOGGLE:
            return
        if key is TalkKey.AUTO:
            if self._ignore_release:
                self._ignore_release = False
                return
            if self._talking and self._clock() - self._pressed_at < TAP_MAX_S:
                self._latched = True  # a tap: talking goes on until the next press
                self._show()
                return
        self._stop_talking()

    def toggle(self) -> None:
        """Start talking, or send what was said (the tray's Talk, ``--toggle-talk``).

        Hands-free it pauses or resumes the microphone, as a press does.
        """
        if self._hands_free():
            self._toggle_hands_free_mic()
        elif self._talking:
            self._stop_talking()
        else:
            self._start_talking()
            self._latched = True

    def start(self) -> None:
        """Start talking if not already (``--talk-start``, a shortcut's press).

        Hands-free it resumes a paused microphone (and connects when not connected).
        """
        if self._hands_free():
            if self._mic_paused or not self._state.is_running:
                self._toggle_hands_free_mic()
        elif not self._talking:
            self._start_talking()
            self._latched = True

    def stop(self) -> None:
        """Send what was said, if talking (``--talk-stop``, a shortcut's release).

        Hands-free it pauses the microphone.
        """
        if self._hands_free():
            if self._state.is_running and not self._mic_paused:
                self._toggle_hands_free_mic()
        else:
            self._stop_talking()

    # ------------------------------------------------------------------ what happens around

    def on_state_changed(self, event: StateChanged) -> None:
        """Follow the agent: start a turn asked for while connecting, end one it dropped.

        A conversation that stopped (an error, the end, Disconnect) ends the press, even
        one still waiting for the connection: that connection is not coming.
        """
        self._state = event.new
        self._reason = event.reason
        if not event.new.is_running and self._talking:
            self._talking = False
            self._pending = False
            self._cued = False
            self._end_opening()
        self._show()
        if self._pending and self._talking and event.new.is_running:
            # Cleared first: begin_talk itself changes the state, which lands here again.
            self._pending = False
            if self._controls is not None:
                self._pending = not self._begin_talk(self._controls)
                self._show()

    def on_session_ended(self, _event: SessionEnded) -> None:
        """The conversation is over: so is any turn in progress."""
        self._pending = False
        if self._talking:
            self._talking = False
            self._show()

    def on_settings_changed(self, settings: Settings, names: frozenset[str]) -> None:
        """A new talk mode ends the turn in progress and reaches the agent at once."""
        self._settings = settings
        if "talk_mode" in names and self._controls is not None:
            if self._talking:
                self._stop_talking()
            self._mic_paused = False
            self._tasks.run(self._controls.set_talk_mode(settings.talk_mode), "ui-talk-mode")
        if "input_device" in names:
            self._mic_works = True  # another microphone: not known to fail
        self._show()

    def on_microphone_opening(self, _event: MicrophoneOpening) -> None:
        """The press found the microphone closed: the cue waits until it hears."""
        if self._talking and not self._cued:
            self._opening = True
            self._opening_timer.start()
            self._show()

    def on_microphone_listening(self, _event: MicrophoneListening) -> None:
        """The microphone hears the press: now the listening cue."""
        self._mic_works = True
        if self._talking:
            self._cue_listening()
        else:
            self._show()

    def on_microphone_unavailable(self, _event: MicrophoneUnavailable) -> None:
        """The microphone could not be opened: no turn (the banner says why)."""
        self._mic_works = False
        if self._talking:
            self._talking = False
            self._pending = False
            self._cued = False
            self._end_opening()
        self._show()

    def on_microphone_in_use(self, event: MicrophoneInUse) -> None:
        """A capture stream runs: the microphone works (it opened)."""
        if event.in_use and not self._mic_works:
            self._mic_works = True
            self._show()

    def on_stream_error(self, event: StreamError) -> None:
        """The microphone stopped working (unplugged, a driver error); it is being reopened."""
        if event.direction == "input":
            self._mic_works = False
            self._show()

    def on_stream_recovered(self, event: StreamRecovered) -> None:
        """The microphone works again."""
        if event.direction == "input":
            self._mic_works = True
            self._show()

    def set_typing(self, typing: bool) -> None:
        """Whether the focus is in the text box, where Space types instead of talking."""
        if typing != self._typing:
            self._typing = typing
            self._show()

    def on_input_level(self, dbfs: float) -> None:
        """The microphone's level: the button's ring follows it while listening."""
        if self._button.look is TalkLook.LISTENING:
            self._button.set_level_dbfs(dbfs)

    def on_output_level(self, dbfs: float) -> None:
        """The speaker's level: the ring follows it while the assistant speaks."""
        if self._button.look is TalkLook.SPEAKING:
            self._button.set_level_dbfs(dbfs)

    @property
    def view(self) -> TalkView:
        """What the talk control, the hint and the pill show now."""
        return talk_view(self._situation())

    # ------------------------------------------------------------------ turns

    def _hands_free(self) -> bool:
        return self._settings.talk_mode is TalkMode.HANDS_FREE

    def _toggle_hands_free_mic(self) -> None:
        # Hands-free: the microphone is live whenever connected; the button pauses it.
        controls = self._controls
        if controls is None:
            return
        if not controls.state.is_running:
            self._mic_paused = False
            self._tasks.run(controls.start(), "ui-connect-hands-free")
            self.talk_started.emit()
        elif self._mic_paused:
            self._mic_paused = False
            controls.begin_talk()
            self._sound("listen_start")
            self.talk_started.emit()
        else:
            self._mic_paused = True
            controls.end_talk()
            self._sound("listen_stop")
        self._show()

    def _start_talking(self) -> None:
        controls = self._controls
        if controls is None or self._talking:
            return
        self._talking = True
        self._latched = False
        self._cued = False
        if controls.state.is_running:
            # While connecting the core may already take the turn (and buffer the audio);
            # if not, the turn starts at the next state change.
            self._pending = not self._begin_talk(controls)
        else:
            # Not connected: connect first and talk as soon as the core accepts the turn.
            self._pending = True
            self._tasks.run(controls.start(), "ui-connect-to-talk")
        self._show()
        self.talk_started.emit()

    def _begin_talk(self, controls: AgentControls) -> bool:
        """The agent's begin_talk; without a word from the microphone, the cue comes now."""
        accepted = controls.begin_talk()
        if accepted and self._talking and not self._opening and not self._cued:
            self._cue_listening()
        return accepted

    def _cue_listening(self) -> None:
        self._end_opening()
        if self._cued:
            return
        self._cued = True
        self._show()
        # After begin_talk: it silences the assistant, which would cut the earcon too.
        self._sound("listen_start")

    def _end_opening(self) -> None:
        self._opening = False
        self._opening_timer.stop()

    def _stop_talking(self) -> None:
        self._latched = False
        if not self._talking:
            return
        self._talking = False
        self._pending = False
        cued, self._cued = self._cued, False
        self._end_opening()
        # The end of the turn goes out first: the earcon and the new look can wait a moment,
        # the model's answer waits for activityEnd. Repainting before the loop's next turn
        # would put the repaint ahead of the sender; so the look changes just after it.
        if self._controls is not None:
            self._controls.end_talk()
        if cued:
            self._sound("listen_stop")
        self._after_sending(self._show)

    def _after_sending(self, update: Callable[[], None]) -> None:
        """Run a look update after what the loop already has queued (the sender's turn)."""
        try:
            asyncio.get_running_loop().call_soon(update)
        except RuntimeError:  # no loop running (a bare widget in a test): now
            update()

    def _sound(self, name: str) -> None:
        if self._play_sound is not None and self._settings.earcons:
            try:
                self._play_sound(name)
            except Exception:  # noqa: BLE001 - a missing earcon must never stop talking
                _log.exception("could not play the sound %s", name)

    # ------------------------------------------------------------------ showing

    def _situation(self) -> TalkSituation:
        return TalkSituation(
            state=self._state,
            mode=self._press_mode(),
            press=self._press(),
            mic_works=self._mic_works,
            paused=self._mic_paused,
            available=self._controls is not None,
            typing=self._typing,
        )

    def _press_mode(self) -> PressMode:
        if self._hands_free():
            return PressMode.HANDS_FREE
        key = self._settings.talk_key
        if key is TalkKey.TAP_TO_TOGGLE or (self._talking and self._latched):
            return PressMode.TOGGLE  # the next press sends
        return PressMode.AUTO if key is TalkKey.AUTO else PressMode.HOLD

    def _press(self) -> Press:
        if not self._talking:
            return Press.NONE
        if self._pending:
            return Press.CONNECTING
        if self._cued:
            return Press.HEARD
        if self._opening and not self._opening_timer.isActive():
            return Press.OPENING
        return Press.WAITING

    def _show(self) -> None:
        """Show what :func:`talk_view` says: the look, the hint, the pill.

        Nothing when that is what shows already: the key's release asks twice (the state
        change, then the look after activityEnd went out), just as the answer is due.
        """
        view = self.view
        shown = (view, self._controls is not None, self._state, self._reason)
        if shown == self._shown:
            return
        self._shown = shown
        self._button.setEnabled(self._controls is not None)
        self._button.set_look(view.look)
        self._hint.setText(view.hint)
        self._button.setToolTip(view.hint)
        self._button.setAccessibleDescription(view.description)
        if self._pill is not None:
            self._pill.show_word(self._state, view.pill, view.tone, self._reason)
        if self._invitation is not None:
            self._invitation(view.invitation)
