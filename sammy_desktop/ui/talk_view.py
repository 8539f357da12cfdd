"""What the talk control, the hint under it and the state pill say: decided here, in one place.

The window showed them from three places that disagreed: "Hold Space to talk" under Error,
Disconnected or Session ended, "Listening…" beside a red Error pill, Listening with no
microphone, and a hands-free pill saying Ready while it heard the person. Now
:func:`talk_view` turns where things stand (a :class:`TalkSituation`: the agent's state,
how presses work, the person's press, whether the microphone works) into a
:class:`TalkView`: the button's look, the hint, the pill's word and colour. The widgets
only show it (:class:`~sammy_desktop.ui.talk_input.TalkInput` asks, after every change).

While the person types (the text box has the focus) Space types a space: the hints that
would offer Space offer the button instead, and Ready says that Enter sends. The empty
transcript's invitation (:attr:`TalkView.invitation`) is decided here too, so it never offers
talking when no conversation can start (a refused key, no agent) nor the microphone when it
does not work.

The rules, in order:

1. no agent to talk to: the control is unavailable;
2. the conversation stopped (Error, Session ended): the state says so and how to start
   again, whatever is pressed (a press was ended with it);
3. a press in progress: connecting, opening the microphone, or listening;
4. the assistant speaks or thinks, or the connection is being made: that;
5. the microphone does not work: say so (and that typing works) instead of inviting a
   press, and never look or read as listening (not even mid-turn, where it fails first);
6. otherwise: how to talk in this talk mode and state (hands-free: listening, or paused).

Pure: no Qt, no clock; each state and mode is tested on its own (tests/ui/test_talk_view.py).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from typing import Final

from sammy_desktop.core.events import AgentState
from sammy_desktop.ui.controls import can_talk

__all__ = [
    "STATE_TONES",
    "STATE_WORDS",
    "TURN_WORDS",
    "Press",
    "PressMode",
    "TalkLook",
    "TalkSituation",
    "TalkView",
    "invitation",
    "talk_view",
]

STATE_WORDS: Final[dict[AgentState, str]] = {
    AgentState.DISCONNECTED: "Disconnected",
    AgentState.CONNECTING: "Connecting",
    AgentState.READY: "Ready",
    AgentState.USER_SPEAKING: "Listening",
    AgentState.THINKING: "Thinking",
    AgentState.ASSISTANT_SPEAKING: "Speaking",
    AgentState.RECONNECTING: "Reconnecting",
    AgentState.RESTING: "Resting",
    AgentState.ERROR: "Error",
    AgentState.ENDED: "Session ended",
}
"""What the pill says for each state (hands-free adds Listening and Paused while Ready)."""

STATE_TONES: Final[dict[AgentState, str]] = {
    AgentState.DISCONNECTED: "idle",
    AgentState.CONNECTING: "thinking",
    AgentState.READY: "idle",
    AgentState.USER_SPEAKING: "accent",
    AgentState.THINKING: "thinking",
    AgentState.ASSISTANT_SPEAKING: "speaking",
    AgentState.RECONNECTING: "thinking",
    AgentState.RESTING: "idle",
    AgentState.ERROR: "error",
    AgentState.ENDED: "idle",
}
"""The dot's colour by meaning: idle grey, listening accent, amber, green, red."""

LISTENING: Final = "Listening"
_LISTENING_TONE: Final = STATE_TONES[AgentState.USER_SPEAKING]
PAUSED: Final = "Paused"
TURN_WORDS: Final = (
    STATE_WORDS[AgentState.READY],
    LISTENING,
    STATE_WORDS[AgentState.THINKING],
    STATE_WORDS[AgentState.ASSISTANT_SPEAKING],
    PAUSED,
)
"""What the pill says turn after turn, in every talk mode: it keeps the width of the widest."""
NOT_AVAILABLE: Final = "Talking is not available yet"
MIC_NOT_WORKING: Final = "Microphone not working · you can type instead"


class TalkLook(enum.Enum):
    """How the talk button looks: which colour and which level drives the ring."""

    IDLE = "idle"
    LISTENING = "listening"
    SPEAKING = "speaking"
    UNAVAILABLE = "unavailable"


class PressMode(enum.Enum):
    """What a press of the talk control does (Settings > Talking)."""

    AUTO = "auto"
    """Hold to talk, or tap to start (and press again to send)."""
    HOLD = "hold"
    """Hold to talk: the turn lasts while the key or the button is down."""
    TOGGLE = "toggle"
    """Click to toggle: one press starts the turn, the next sends it."""
    HANDS_FREE = "hands_free"
    """The microphone is live while connected; a press pauses or resumes it."""


class Press(enum.Enum):
    """Where the person's press stands (push-to-talk; hands-free has none)."""

    NONE = "none"
    """Not talking."""
    CONNECTING = "connecting"
    """Pressed while not connected: the turn starts once the agent takes it."""
    WAITING = "waiting"
    """Pressed, and the microphone is opening (a moment: nothing said about it yet)."""
    OPENING = "opening"
    """Pressed, and the microphone is still opening (long enough to say so)."""
    HEARD = "heard"
    """Pressed, and the microphone hears: the person is listened to."""


@dataclass(frozen=True, slots=True)
class TalkSituation:
    """Everything the talk control, the hint and the pill depend on.

    Attributes:
        state: the agent's state.
        mode: what a press does.
        press: where the person's press stands.
        mic_works: False once the microphone could not be opened or stopped working, until
            it is heard again (or comes back, or another one is chosen).
        paused: hands-free only: the person paused the microphone.
        available: whether there is an agent to talk to at all.
        typing: the text box has the focus, where Space types a space instead of talking.
    """

    state: AgentState
    mode: PressMode = PressMode.HOLD
    press: Press = Press.NONE
    mic_works: bool = True
    paused: bool = False
    available: bool = True
    typing: bool = False


@dataclass(frozen=True, slots=True)
class TalkView:
    """What the talk control, the hint and the pill show.

    Attributes:
        look: the talk button's look.
        hint: the line under the button (also its tooltip).
        pill: the state pill's word.
        tone: the pill dot's colour by meaning (see :data:`STATE_TONES`).
        invitation: what the empty transcript invites the person to do ("" for nothing:
            no conversation can start, the banner says why).
    """

    look: TalkLook
    hint: str
    pill: str
    tone: str
    invitation: str = ""

    @property
    def description(self) -> str:
        """The talk button's accessible description: the hint and the state."""
        return f"{self.hint}. State: {self.pill}."


_ASK: Final = {
    PressMode.AUTO: ("Hold Space", "hold Space"),
    PressMode.HOLD: ("Hold Space", "hold Space"),
    PressMode.TOGGLE: ("Press Space", "press Space"),
    PressMode.HANDS_FREE: ("Click", "click"),
}
"""What the person does to start, at the start of a sentence and after a dot."""

_ASK_TYPING: Final = {
    PressMode.AUTO: ("Hold the button", "hold the button"),
    PressMode.HOLD: ("Hold the button", "hold the button"),
    PressMode.TOGGLE: ("Click the button", "click the button"),
    PressMode.HANDS_FREE: ("Click", "click"),
}
"""The same while the person types, where Space types a space."""

_INVITE: Final = {
    PressMode.AUTO: "Hold the button or the Space bar",
    PressMode.HOLD: "Hold the button or the Space bar",
    PressMode.TOGGLE: "Click the button or press Space",
}
"""How the empty transcript says to talk (push-to-talk)."""

_INVITE_TYPING: Final = {
    PressMode.AUTO: "Hold the button",
    PressMode.HOLD: "Hold the button",
    PressMode.TOGGLE: "Click the button",
}
"""The same while the person types."""

TYPE_BELOW: Final = "Or type a message below."


def talk_view(situation: TalkSituation) -> TalkView:
    """What to show for ``situation`` (see the module's rules)."""
    return replace(_talk_view(situation), invitation=invitation(situation))


def invitation(situation: TalkSituation) -> str:
    """What the empty transcript says: how to begin, only where that can work.

    Nothing when no conversation can start (no agent, a stopped one: the banner says why
    and the hint how to try again); only typing when the microphone does not work, and
    typing only where the text would be taken (connected, reconnecting, resting).
    """
    state, mode = situation.state, situation.mode
    if not situation.available or state is AgentState.ERROR:
        return ""
    takes_text = can_talk(state)
    if not situation.mic_works:
        return "Type a message below." if takes_text else ""
    if mode is PressMode.HANDS_FREE:
        if not state.is_running:
            return "Click the button to connect, then just talk."
        how = "Click the button to listen" if situation.paused else "Just say something"
    else:
        how = (_INVITE_TYPING if situation.typing else _INVITE)[mode]
        how += " and say something" if state.is_running else " to connect and say something"
    return f"{how}.\n{TYPE_BELOW}" if takes_text else f"{how}."


def _talk_view(situation: TalkSituation) -> TalkView:
    state, mode, press = situation.state, situation.mode, situation.press
    hands_free = mode is PressMode.HANDS_FREE
    key, then_key = (_ASK_TYPING if situation.typing else _ASK)[mode]
    word, tone = STATE_WORDS[state], STATE_TONES[state]

    def view(hint: str, look: TalkLook = TalkLook.IDLE) -> TalkView:
        return TalkView(look, hint, word, tone)

    # 1. Nobody to talk to.
    if not situation.available:
        return view(NOT_AVAILABLE, TalkLook.UNAVAILABLE)

    # 2. The conversation stopped: how to start again, whatever was pressed.
    if state is AgentState.ERROR:
        return view(f"Not connected · {then_key} to try again")
    if state is AgentState.ENDED:
        return view(f"{key} to start a new conversation")

    # A microphone that fails while the person talks hears nothing: never "Listening".
    heard = press is Press.HEARD or state is AgentState.USER_SPEAKING
    if not situation.mic_works and heard:
        return view(MIC_NOT_WORKING, TalkLook.UNAVAILABLE)

    # 3. A press in progress.
    if not hands_free and press is not Press.NONE:
        pressed = _pressed(state, mode, press)
        if pressed is not None:
            return pressed

    # 4. What the assistant or the connection is doing.
    if state is AgentState.ASSISTANT_SPEAKING:
        return view("Speaking · Esc to stop", TalkLook.SPEAKING)
    if state is AgentState.USER_SPEAKING:
        return view("Listening…", TalkLook.LISTENING)
    if state is AgentState.THINKING and not hands_free:
        return view("Thinking…")
    if state is AgentState.CONNECTING:
        return view("Connecting…")

    # 5. A microphone that does not work is never an invitation to talk, nor listening.
    if not situation.mic_works:
        return view(MIC_NOT_WORKING, TalkLook.UNAVAILABLE)

    # 6. How to talk now.
    if state is AgentState.RECONNECTING:
        return view("Reconnecting · you can keep talking")
    if hands_free:
        if not state.is_running:
            return view("Hands-free · click to connect")
        if situation.paused:
            paused = "Microphone paused · click to listen"
            if state is AgentState.READY:
                return TalkView(TalkLook.IDLE, paused, PAUSED, "idle")
            return view(paused)
        live = "Hands-free: just talk · click to pause"
        if state is AgentState.READY:  # it hears the person: the pill says so
            return TalkView(TalkLook.LISTENING, live, LISTENING, _LISTENING_TONE)
        return view(live, TalkLook.LISTENING)
    if state is AgentState.DISCONNECTED:
        return view(f"{key} to connect and talk")
    if situation.typing:  # Space types here: the button talks, Enter sends
        return view(f"Enter sends · {then_key} to talk")
    if mode is PressMode.TOGGLE:
        return view("Press Space or click to talk")
    if mode is PressMode.AUTO:
        return view("Hold Space to talk, or tap it")
    return view("Hold Space to talk")


def _pressed(state: AgentState, mode: PressMode, press: Press) -> TalkView | None:
    """What a press in progress shows, or None where the state's own view applies."""
    word, tone = STATE_WORDS[state], STATE_TONES[state]
    if press is Press.CONNECTING or (press is Press.HEARD and not state.is_connected):
        return TalkView(TalkLook.IDLE, "Connecting… keep talking", word, tone)
    if press is Press.OPENING:
        return TalkView(TalkLook.IDLE, "Opening the microphone…", word, tone)
    if press is Press.WAITING:
        return None  # a moment: nothing changes until the microphone hears or is slow
    # Heard, connected: listening, whatever the agent said a moment before (a press over
    # the answer interrupts it, and its Listening follows at once).
    hint = "Listening… click again to send" if mode is PressMode.TOGGLE else "Listening…"
    return TalkView(TalkLook.LISTENING, hint, LISTENING, _LISTENING_TONE)
