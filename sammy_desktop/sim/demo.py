"""The offline demo: what Sammy does with no API key, and honestly nothing more.

It shows the product working end to end without pretending to be Gemini (the window labels
this mode "Offline demo", and so does the demo whenever it introduces itself):

* Typed requests in plain words call the app's tools with valid arguments and the answers
  are said as sentences, from the table :data:`DEMO_INTENTS`:

  ============================================  ==========================================
  the person types                               the demo calls
  ============================================  ==========================================
  "what time is it", "what's the time",          ``getDateTime`` (``timezone`` "Tokyo"
  "what day is it", "what time is it in Tokyo"   when a place is named)
  "set a timer for two minutes", "5 min timer",  ``setTimer`` (``duration`` "2m", "5m",
  "remind me in ten minutes to check the oven"   ``label`` "check the oven")
  "note that the wifi password is on the         ``addNote`` (``text`` "The wifi password
  router", "remember to buy milk"                is on the router.")
  "what do you know about my computer"           ``getCurrentContext`` (``reason``)
  "what's on my screen", "can you see my         nothing: it says the size of the shared
  screen", "what do you see"                     screen's pictures and how many arrived
  "goodbye", "bye", "end the conversation"       ``endSession`` (``reason``, ``confirmed``)
  "hello", "help", "what can you do"             nothing: it says what it is and what to try
  ============================================  ==========================================

  "It's 14:05 on Tuesday.", "Your timer for 2 minutes is running; it ends at 14:07.",
  "Sorry, I don't know a time zone called Atlantis." "I can see a 1024 by 640 picture of
  your screen, 3 frames so far." proves that the frames of a shared screen arrived (their
  size read from the JPEG header; with none, it says how to share). Anything else typed
  gets the same introduction as "hello", with the examples of the tools that are switched
  on.
* Speech: this computer has no speech recognition, so the demo cannot know the words. After
  the person speaks (push-to-talk release, or end of speech hands-free), it plays their own
  voice back a moment later (16 -> 24 kHz), transcribes the turn as ``[you spoke for 2.3
  s]`` (the simulator's input transcription) and says that typing is how to try a tool.

The functions called come from the setup's declarations, so a tool the person switched off
is not called ("Timers are switched off..."), and a declared tool named as it is
("sayHello") that needs no argument is called too.

The demo runs as long as the app does, so its simulator keeps only the newest of what it
received (:data:`DEMO_RECORD_LIMIT`): a test's simulator keeps everything, the demo's would
otherwise hold every microphone chunk of the day.
"""

from __future__ import annotations

from collections.abc import Sequence

from sammy_desktop.sim.actions import (
    Action,
    AnswerIntents,
    Delay,
    EchoAudio,
    GenerationComplete,
    InputTranscription,
    Respond,
    TurnComplete,
    TurnContext,
)
from sammy_desktop.sim.intent_answers import examples_of
from sammy_desktop.sim.intents import Intent
from sammy_desktop.sim.recorder import RecordLimit
from sammy_desktop.sim.scenario import Scenario, Turn
from sammy_desktop.sim.triggers import (
    OnActivityEnd,
    OnAny,
    OnSpeechEnd,
    OnText,
    OnToolResponse,
    SignalKind,
)

__all__ = ["DEMO_INTENTS", "DEMO_RECORD_LIMIT", "DemoResponder", "demo_answers", "demo_scenario"]

DEMO_RECORD_LIMIT = RecordLimit(max_events=2_000, max_audio_bytes=2 * 1024 * 1024)
"""What the demo's recorder keeps: the last ~65 s of microphone audio, 2,000 events at most.

Nothing in the app reads the demo's recorder; the bound is there so an hour of talking costs
2 MiB, not the ~115 MB that every 16 kHz chunk kept would.
"""

_INTRODUCTION = (
    "This is Sammy's offline demo: a simulator on this computer answers, not Gemini, and it "
    "knows only a few requests."
)

# Of the intents that match, the one matching earliest in the words wins ("note that the
# meeting time is at 3" is a note); the examples are suggested in this order.
DEMO_INTENTS: tuple[Intent, ...] = (
    Intent(
        name="time",
        patterns=(
            r"\btime (?:is it )?(?:now )?in (?P<timezone>[a-z][a-z _/-]*?)"
            r"(?: right now| now)?$",
            r"\bwhat(?:'s| is)? the time\b",
            r"\bwhat time\b",
            r"\btime is it\b",
            r"\b(?:tell me|give me|know) the time\b",
            r"\bcurrent time\b",
            r"\bwhat day is (?:it|today)\b",
            r"\bthe time\b",
        ),
        example="what time is it",
        call="getDateTime",
        args={"timezone": "{said.timezone}"},
        slots={"timezone": "words"},
        say=(
            "In {args.timezone} it's {value.time} on {value.weekday}.",
            "It's {value.time} on {value.weekday}.",
        ),
        say_failed=(
            "Sorry, I don't know a time zone called {args.timezone}.",
            "Sorry, I can't tell the time: the date and time are not shared (Settings, Privacy).",
        ),
        say_unavailable="The date and time tool is switched off in Settings.",
    ),
    Intent(
        name="timer",
        patterns=(
            r"\bremind me (?:in|after) .+? to (?P<label>.+)",
            r"\bremind me to (?P<label>.+?) (?:in|after) \S",
            r"\b(?:set|start|make|create|add|begin)\b[^.?!]*\btimer\b",
            r"\btimer (?:for|of|in)\b",
            r"\bremind me\b",
            r"\bcount ?down\b",
            r"\b(?:min|mins|minutes?|secs?|seconds?|hours?|hrs?)\s+timer\b",
        ),
        example="set a timer for two minutes",
        call="setTimer",
        args={"duration": "{said.duration}", "label": "{said.label}"},
        slots={"duration": "duration", "label": "words"},
        required=("duration",),
        say=(
            "I'll remind you to {value.label} in {value.duration}, at {value.ends_at}.",
            "Your timer for {value.duration} is running; it ends at {value.ends_at}.",
            "Your timer for {value.duration} is running.",
        ),
        say_failed=(
            "Sorry, that timer didn't start. A timer runs from one second to 24 hours, "
            "and at most 20 run at once.",
        ),
        say_missing=(
            "How long should the timer run? Say, for example, "
            "\u201cset a timer for five minutes\u201d."
        ),
        say_unavailable="Timers are switched off in Settings, so I can't set one.",
    ),
    Intent(
        name="note",
        patterns=(
            r"\b(?:note|write down|jot down)(?: that)?[:,]?\s+(?P<text>.+)",
            r"\b(?:make|take|add|save) a note(?: that)?[:,]?\s+(?P<text>.+)",
            r"\bremember that[:,]?\s+(?P<text>.+)",
            r"\b(?P<text>remember to .+)",
            r"\bremember[:,]?\s+(?P<text>.+)",
            r"\b(?:make|take|add) a note\b|\bnote that\b|\bremember\b",
        ),
        example="note that the wifi password is on the router",
        call="addNote",
        args={"text": "{said.text}"},
        slots={"text": "sentence"},
        required=("text",),
        say=("I've noted it: \u201c{value.text}\u201d",),
        say_failed=("Sorry, I couldn't save that note.",),
        say_missing=(
            "What should I note? Say, for example, "
            "\u201cnote that the wifi password is on the router\u201d."
        ),
        say_unavailable="Notes are switched off in Settings, so I can't keep that.",
    ),
    Intent(
        name="screen",
        patterns=(
            r"\bwhat(?:'s| is) on (?:my|the|your) screen\b",
            r"\bcan you see (?:my|the) screen\b",
            r"\b(?:do|can) you see (?:anything|something)?\s*on (?:my|the) screen\b",
            r"\bwhat can you see on (?:my|the) screen\b",
            r"\bwhat do you see\b",
            r"\blook at (?:my|the) screen\b",
        ),
        say=(
            "I can see a {screen.width} by {screen.height} picture of your screen, "
            "{screen.frames_so_far}.",
            "I can't see your screen: nothing is shared. Press Ctrl+Shift+S to share it.",
        ),
    ),
    Intent(
        name="context",
        patterns=(
            r"\bcontext\b",
            r"\bwhat do you know about (?:me|my (?:computer|desktop|system|machine))\b",
            r"\bwhat (?:computer|system|platform|os|machine) (?:am i|is this)\b",
            r"\bwhat can you see\b",
        ),
        example="what do you know about my computer",
        call="getCurrentContext",
        args={"reason": "you asked what I know about this computer"},
        say=(
            "It's {value.weekday} here, your time zone is {value.time_zone}, and this "
            "computer runs {value.platform}.",
            "It's {value.weekday} here, and this computer runs {value.platform}.",
            "This computer runs {value.platform}.",
            "It's {value.weekday} here.",
            "You share nothing about this computer with me (Settings, Privacy).",
        ),
        say_failed=("Sorry, I couldn't look at this computer just now.",),
        say_unavailable="Sharing this computer's context is switched off in Settings.",
    ),
    Intent(
        name="goodbye",
        patterns=(
            r"^(?:ok(?:ay)?[, ]+)?(?:good ?bye|bye(?: bye)?|see you(?: later)?)\b",
            r"\b(?:good ?bye|bye)\s*$",
            r"\bhang up\b",
            r"\b(?:end|stop|close|finish) (?:the |this |our )?(?:conversation|session|chat)\b",
        ),
        example="goodbye",
        call="endSession",
        args={"reason": "you said \u201c{said.request}\u201d", "confirmed": True},
        say=("Goodbye! Thanks for trying Sammy's offline demo.",),
        say_failed=("Sorry, the conversation did not end. You can end it from the window.",),
        say_unavailable="Goodbye! You can end the conversation from the window.",
    ),
    Intent(
        name="hello",
        patterns=(
            r"^(?:hi|hello|hey|hallo|good (?:morning|afternoon|evening))(?: there| sammy)?$",
            r"\bhelp\b",
            r"\bwhat can you do\b",
            r"\bwho are you\b",
            r"\bwhat are you\b",
        ),
        say=(f"Hi! {_INTRODUCTION} Try {{examples}}.", f"Hi! {_INTRODUCTION}"),
    ),
)
"""The demo's table of plain requests; each one's function is called only when declared."""


def demo_answers(*, chime_hz: float = 660.0) -> AnswerIntents:
    """The action that answers typed requests and the tools' answers in the demo."""
    return AnswerIntents(
        intents=DEMO_INTENTS,
        otherwise=f"{_INTRODUCTION} Try {{examples}}.",
        without_tools=f"{_INTRODUCTION} No tools are switched on, so it can only play your "
        "voice back.",
        chime_hz=chime_hz,
    )


class DemoResponder:
    """Decides what the demo says for each input; used through :func:`demo_scenario`.

    Typed text and the tools' answers go to the declared intents (:func:`demo_answers`);
    speech, which the demo cannot understand, is played back.

    Args:
        echo_delay_s: Pause before the echo, so the person hears it as a reply.
        chime_hz: Pitch of the short tone that carries text answers (0 for none).
    """

    def __init__(self, *, echo_delay_s: float = 0.3, chime_hz: float = 660.0) -> None:
        self._echo_delay_s = echo_delay_s
        self.answers = demo_answers(chime_hz=chime_hz)

    def respond(self, context: TurnContext) -> Sequence[Action]:
        """Return the actions answering the input that fired the turn."""
        if context.signal.kind in (SignalKind.TOOL_RESPONSE, SignalKind.TEXT):
            return [self.answers]
        return self._echo(context)

    def _echo(self, context: TurnContext) -> list[Action]:
        seconds = context.speech_seconds
        actions: list[Action] = [InputTranscription(text=f"[you spoke for {seconds:.1f} s]")]
        if context.user_speech:
            actions += [
                Delay(seconds=self._echo_delay_s),
                EchoAudio(transcript=self._after_speech(context)),
            ]
        return [*actions, GenerationComplete(), TurnComplete()]

    def _after_speech(self, context: TurnContext) -> str:
        example = examples_of(self.answers.intents, context.function_names, limit=1)
        try_one = f", such as {example}" if example else ""
        return (
            "That was your voice, played back: the offline demo cannot understand speech. "
            f"Type a request{try_one}."
        )


def demo_scenario(*, echo_delay_s: float = 0.3, chime_hz: float = 660.0) -> Scenario:
    """Return the offline demo scenario (see the module docstring).

    Args:
        echo_delay_s: Pause before the person's voice is played back.
        chime_hz: Pitch of the short tone carrying text answers; 0 sends text only.
    """
    responder = DemoResponder(echo_delay_s=echo_delay_s, chime_hz=chime_hz)
    trigger = OnAny((OnActivityEnd(), OnSpeechEnd(), OnText(), OnToolResponse()))
    return Scenario(turns=[Turn(trigger, [Respond(responder.respond)])], repeat=True, name="demo")
