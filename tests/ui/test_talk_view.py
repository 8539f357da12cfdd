"""What the talk control, the hint and the pill say, per state, talk mode and microphone.

:func:`talk_view` is the one place that decides it (issue 24, point 4): these tests hold it
to a table for every state in every talk mode, then to the cases the tour saw contradict
themselves, then to rules no situation may break.
"""

from __future__ import annotations

import itertools

import pytest

from sammy_desktop.core.events import AgentState
from sammy_desktop.ui.talk_view import (
    STATE_WORDS,
    Press,
    PressMode,
    TalkLook,
    TalkSituation,
    TalkView,
    talk_view,
)

AUTO, HOLD, TOGGLE = PressMode.AUTO, PressMode.HOLD, PressMode.TOGGLE
HANDS_FREE = PressMode.HANDS_FREE
IDLE, LISTENING, SPEAKING, UNAVAILABLE = (
    TalkLook.IDLE,
    TalkLook.LISTENING,
    TalkLook.SPEAKING,
    TalkLook.UNAVAILABLE,
)
S = AgentState

# state: (look, hint, pill) for hold to talk, click to toggle, hands-free; nothing pressed.
TABLE: dict[AgentState, dict[PressMode, tuple[TalkLook, str, str]]] = {
    S.DISCONNECTED: {
        HOLD: (IDLE, "Hold Space to connect and talk", "Disconnected"),
        TOGGLE: (IDLE, "Press Space to connect and talk", "Disconnected"),
        HANDS_FREE: (IDLE, "Hands-free · click to connect", "Disconnected"),
    },
    S.CONNECTING: {
        HOLD: (IDLE, "Connecting…", "Connecting"),
        TOGGLE: (IDLE, "Connecting…", "Connecting"),
        HANDS_FREE: (IDLE, "Connecting…", "Connecting"),
    },
    S.READY: {
        HOLD: (IDLE, "Hold Space to talk", "Ready"),
        TOGGLE: (IDLE, "Press Space or click to talk", "Ready"),
        # Hands-free hears the person whenever connected: the pill says so.
        HANDS_FREE: (LISTENING, "Hands-free: just talk · click to pause", "Listening"),
    },
    S.USER_SPEAKING: {
        HOLD: (LISTENING, "Listening…", "Listening"),
        TOGGLE: (LISTENING, "Listening…", "Listening"),
        HANDS_FREE: (LISTENING, "Listening…", "Listening"),
    },
    S.THINKING: {
        HOLD: (IDLE, "Thinking…", "Thinking"),
        TOGGLE: (IDLE, "Thinking…", "Thinking"),
        HANDS_FREE: (LISTENING, "Hands-free: just talk · click to pause", "Thinking"),
    },
    S.ASSISTANT_SPEAKING: {
        HOLD: (SPEAKING, "Speaking · Esc to stop", "Speaking"),
        TOGGLE: (SPEAKING, "Speaking · Esc to stop", "Speaking"),
        HANDS_FREE: (SPEAKING, "Speaking · Esc to stop", "Speaking"),
    },
    S.RECONNECTING: {
        HOLD: (IDLE, "Reconnecting · you can keep talking", "Reconnecting"),
        TOGGLE: (IDLE, "Reconnecting · you can keep talking", "Reconnecting"),
        HANDS_FREE: (IDLE, "Reconnecting · you can keep talking", "Reconnecting"),
    },
    S.RESTING: {
        HOLD: (IDLE, "Hold Space to talk", "Resting"),
        TOGGLE: (IDLE, "Press Space or click to talk", "Resting"),
        HANDS_FREE: (LISTENING, "Hands-free: just talk · click to pause", "Resting"),
    },
    S.ERROR: {
        HOLD: (IDLE, "Not connected · hold Space to try again", "Error"),
        TOGGLE: (IDLE, "Not connected · press Space to try again", "Error"),
        HANDS_FREE: (IDLE, "Not connected · click to try again", "Error"),
    },
    S.ENDED: {
        HOLD: (IDLE, "Hold Space to start a new conversation", "Session ended"),
        TOGGLE: (IDLE, "Press Space to start a new conversation", "Session ended"),
        HANDS_FREE: (IDLE, "Click to start a new conversation", "Session ended"),
    },
}

# Auto (hold, or tap to keep talking) says what hold to talk says, except where it invites a
# press: there it says a tap works too.
for _state, _row in TABLE.items():
    _row[AUTO] = _row[HOLD]
TABLE[S.READY][AUTO] = (IDLE, "Hold Space to talk, or tap it", "Ready")
TABLE[S.RESTING][AUTO] = (IDLE, "Hold Space to talk, or tap it", "Resting")

# The hints that change while the person types in the text box (Space types there);
# every other state and mode says what TABLE says.
TYPING: dict[AgentState, dict[PressMode, str]] = {
    S.DISCONNECTED: {
        HOLD: "Hold the button to connect and talk",
        TOGGLE: "Click the button to connect and talk",
    },
    S.READY: {
        HOLD: "Enter sends · hold the button to talk",
        TOGGLE: "Enter sends · click the button to talk",
    },
    S.RESTING: {
        HOLD: "Enter sends · hold the button to talk",
        TOGGLE: "Enter sends · click the button to talk",
    },
    S.ERROR: {
        HOLD: "Not connected · hold the button to try again",
        TOGGLE: "Not connected · click the button to try again",
    },
    S.ENDED: {
        HOLD: "Hold the button to start a new conversation",
        TOGGLE: "Click the button to start a new conversation",
    },
}

for _typing_row in TYPING.values():
    _typing_row[AUTO] = _typing_row[HOLD]

ALL = [
    TalkSituation(state, mode, press, mic_works, paused, available, typing)
    for state, mode, press, mic_works, paused, available, typing in itertools.product(
        AgentState, PressMode, Press, (True, False), (False, True), (True, False), (False, True)
    )
    if not (paused and mode is not HANDS_FREE)  # only hands-free pauses
    if not (press is not Press.NONE and mode is HANDS_FREE)  # hands-free has no presses
]


def _shown(view: TalkView) -> tuple[TalkLook, str, str]:
    return view.look, view.hint, view.pill


def test_the_table_covers_every_state() -> None:
    assert set(TABLE) == set(AgentState)


@pytest.mark.parametrize("state", list(AgentState))
@pytest.mark.parametrize("mode", list(PressMode))
def test_each_state_in_each_talk_mode(state: AgentState, mode: PressMode) -> None:
    assert _shown(talk_view(TalkSituation(state, mode))) == TABLE[state][mode]


@pytest.mark.parametrize("state", list(AgentState))
@pytest.mark.parametrize("mode", list(PressMode))
def test_each_state_in_each_talk_mode_while_typing(state: AgentState, mode: PressMode) -> None:
    """The tour: "Hold Space to talk" under the text box that had the focus, where Space types."""
    look, hint, pill = TABLE[state][mode]
    expected = (look, TYPING.get(state, {}).get(mode, hint), pill)
    assert _shown(talk_view(TalkSituation(state, mode, typing=True))) == expected


# What the empty transcript says, nothing pressed, the microphone working, in each state.
READY_INVITATION = {
    HOLD: "Hold the button or the Space bar and say something.\nOr type a message below.",
    TOGGLE: "Click the button or press Space and say something.\nOr type a message below.",
    HANDS_FREE: "Just say something.\nOr type a message below.",
}
INVITATIONS: dict[AgentState, dict[PressMode, str]] = {
    S.DISCONNECTED: {
        HOLD: "Hold the button or the Space bar to connect and say something.",
        TOGGLE: "Click the button or press Space to connect and say something.",
        HANDS_FREE: "Click the button to connect, then just talk.",
    },
    S.CONNECTING: {
        HOLD: "Hold the button or the Space bar and say something.",
        TOGGLE: "Click the button or press Space and say something.",
        HANDS_FREE: "Just say something.",
    },
    S.READY: READY_INVITATION,
    S.USER_SPEAKING: READY_INVITATION,
    S.THINKING: READY_INVITATION,
    S.ASSISTANT_SPEAKING: READY_INVITATION,
    S.RECONNECTING: READY_INVITATION,
    S.RESTING: READY_INVITATION,
    # A refused key, a service that cannot be reached: nothing to invite to (the banner
    # says what is wrong, the hint how to try again).
    S.ERROR: {HOLD: "", TOGGLE: "", HANDS_FREE: ""},
    S.ENDED: {
        HOLD: "Hold the button or the Space bar to connect and say something.",
        TOGGLE: "Click the button or press Space to connect and say something.",
        HANDS_FREE: "Click the button to connect, then just talk.",
    },
}


for _invitation_row in INVITATIONS.values():
    _invitation_row.setdefault(AUTO, _invitation_row[HOLD])


def test_the_invitations_cover_every_state() -> None:
    assert set(INVITATIONS) == set(AgentState)


@pytest.mark.parametrize("state", list(AgentState))
@pytest.mark.parametrize("mode", list(PressMode))
def test_the_empty_transcript_invites_only_to_what_can_work(
    state: AgentState, mode: PressMode
) -> None:
    """The tour: "Hold the button or the Space bar…" under a refused key's error."""
    assert talk_view(TalkSituation(state, mode)).invitation == INVITATIONS[state][mode]
    # Without an agent nothing can start.
    assert talk_view(TalkSituation(state, mode, available=False)).invitation == ""
    # Without a microphone: typing, where the text is taken.
    no_mic = talk_view(TalkSituation(state, mode, mic_works=False)).invitation
    takes_text = state.is_connected or state in (S.RECONNECTING, S.RESTING)
    assert no_mic == ("Type a message below." if takes_text and state is not S.ERROR else "")


def test_the_invitation_follows_typing_and_a_paused_microphone() -> None:
    typing = talk_view(TalkSituation(S.READY, HOLD, typing=True)).invitation
    assert typing == "Hold the button and say something.\nOr type a message below."
    toggle = talk_view(TalkSituation(S.READY, TOGGLE, typing=True)).invitation
    assert toggle == "Click the button and say something.\nOr type a message below."
    paused = talk_view(TalkSituation(S.READY, HANDS_FREE, paused=True)).invitation
    assert paused == "Click the button to listen.\nOr type a message below."


@pytest.mark.parametrize("state", list(AgentState))
def test_without_an_agent_talking_is_unavailable(state: AgentState) -> None:
    view = talk_view(TalkSituation(state, available=False))
    assert _shown(view) == (UNAVAILABLE, "Talking is not available yet", STATE_WORDS[state])


def test_a_press_while_not_connected_keeps_the_person_talking() -> None:
    for state in (S.DISCONNECTED, S.CONNECTING, S.RECONNECTING, S.RESTING):
        view = talk_view(TalkSituation(state, press=Press.CONNECTING))
        assert view.hint == "Connecting… keep talking"
        assert view.look is IDLE
        assert view.pill == STATE_WORDS[state]


def test_a_press_whose_microphone_opens_says_so_only_when_slow() -> None:
    waiting = talk_view(TalkSituation(S.READY, press=Press.WAITING))
    assert _shown(waiting) == TABLE[S.READY][HOLD], "a moment: nothing flickers"
    opening = talk_view(TalkSituation(S.READY, press=Press.OPENING))
    assert _shown(opening) == (IDLE, "Opening the microphone…", "Ready")


def test_a_heard_press_listens_even_over_the_answer() -> None:
    for state in (S.READY, S.USER_SPEAKING, S.THINKING, S.ASSISTANT_SPEAKING):
        view = talk_view(TalkSituation(state, HOLD, Press.HEARD))
        assert _shown(view) == (LISTENING, "Listening…", "Listening")
        assert view.tone == "accent"
    toggled = talk_view(TalkSituation(S.USER_SPEAKING, TOGGLE, Press.HEARD))
    assert toggled.hint == "Listening… click again to send"


@pytest.mark.parametrize("stopped", [S.ERROR, S.ENDED])
@pytest.mark.parametrize("press", list(Press))
def test_a_stopped_conversation_says_so_whatever_is_pressed(
    stopped: AgentState, press: Press
) -> None:
    """The tour: "Listening…" beside a red Error pill."""
    view = talk_view(TalkSituation(stopped, HOLD, press))
    assert _shown(view) == TABLE[stopped][HOLD]


def test_a_microphone_that_does_not_work_is_said_instead_of_an_invitation() -> None:
    """The tour: no microphone, and Space said Listening."""
    not_working = (UNAVAILABLE, "Microphone not working · you can type instead")
    for state in (S.DISCONNECTED, S.READY, S.RESTING, S.RECONNECTING):
        for mode in PressMode:
            view = talk_view(TalkSituation(state, mode, mic_works=False))
            assert (view.look, view.hint) == not_working, (state, mode)
            assert view.pill == STATE_WORDS[state], "hands-free hears nothing: not Listening"
    # The answer, the thinking, the connection and a stopped conversation still say theirs.
    for state in (S.ASSISTANT_SPEAKING, S.THINKING, S.CONNECTING, S.ERROR, S.ENDED):
        assert _shown(talk_view(TalkSituation(state, mic_works=False))) == TABLE[state][HOLD]
    # Failing mid-turn: no listening look, whatever the agent still says.
    for state, press in ((S.USER_SPEAKING, Press.HEARD), (S.READY, Press.HEARD)):
        view = talk_view(TalkSituation(state, press=press, mic_works=False))
        assert (view.look, view.hint) == not_working
    # A press tries again: slow to open, it says so.
    opening = talk_view(TalkSituation(S.READY, press=Press.OPENING, mic_works=False))
    assert opening.hint == "Opening the microphone…"


def test_hands_free_paused_says_paused() -> None:
    view = talk_view(TalkSituation(S.READY, HANDS_FREE, paused=True))
    assert _shown(view) == (IDLE, "Microphone paused · click to listen", "Paused")
    assert view.tone == "idle"
    thinking = talk_view(TalkSituation(S.THINKING, HANDS_FREE, paused=True))
    assert _shown(thinking) == (IDLE, "Microphone paused · click to listen", "Thinking")


@pytest.mark.parametrize("situation", ALL, ids=str)
def test_no_situation_contradicts_itself(situation: TalkSituation) -> None:
    view = talk_view(situation)
    state = situation.state
    # Listening is said in the hint only when the pill says it too.
    if view.hint.startswith("Listening"):
        assert view.pill == "Listening"
    # No listening without a microphone that works, nor once the conversation stopped.
    if not situation.mic_works:
        assert view.look is not LISTENING
        assert not view.hint.startswith("Listening")
        assert view.pill != "Listening" or state is S.USER_SPEAKING  # the agent's own word
    if state in (S.ERROR, S.ENDED, S.DISCONNECTED):
        assert view.look is not LISTENING
        assert "Listening" not in (view.hint, view.pill)
        # Never the invitation of a working conversation.
        assert view.hint not in ("Hold Space to talk", "Press Space or click to talk")
    # Space types in the text box: never offered there, by the hint or the invitation.
    if situation.typing:
        assert "Space" not in view.hint
        assert "Space" not in view.invitation
    # No invitation to talk where no conversation can start, nor to a broken microphone.
    if state is S.ERROR or not situation.available:
        assert view.invitation == ""
    if not situation.mic_works:
        assert view.invitation in ("", "Type a message below.")
    # The pill is the state's word, or Listening or Paused while the person is heard.
    assert view.pill in (STATE_WORDS[state], "Listening", "Paused")
    assert view.description == f"{view.hint}. State: {view.pill}."
