"""How the demo reads a person's words: durations in words and digits, slots, templates."""

from __future__ import annotations

import pytest

from sammy_desktop.sim.demo import DEMO_INTENTS
from sammy_desktop.sim.intents import fill, fill_first, read_duration, spoken_name, understand
from sammy_desktop.tools.desktop.timers import parse_duration


@pytest.mark.parametrize(
    ("words", "duration", "seconds"),
    [
        ("set a timer for two minutes", "2m", 120),
        ("5 min", "5m", 300),
        ("90 seconds", "90s", 90),
        ("ten minutes", "10m", 600),
        ("a minute", "1m", 60),
        ("twenty-five minutes", "25m", 1500),
        ("twenty five minutes", "25m", 1500),
        ("one hundred and twenty seconds", "120s", 120),
        ("half an hour", "0.5h", 1800),
        ("an hour and a half", "1.5h", 5400),
        ("one and a half hours", "1.5h", 5400),
        ("a quarter of an hour", "0.25h", 900),
        ("a couple of minutes", "2m", 120),
        ("1 hour and 30 minutes", "1h30m", 5400),
        ("two minutes and thirty seconds", "2m30s", 150),
        ("1h30m", "1h30m", 5400),
        ("2.5 minutes", "2.5m", 150),
        ("3 hrs", "3h", 10800),
    ],
)
def test_a_duration_is_read_from_words_or_digits_as_the_timer_accepts_it(
    words: str, duration: str, seconds: float
) -> None:
    assert read_duration(words) == duration
    assert parse_duration(duration) == seconds  # the setTimer tool's own parser


@pytest.mark.parametrize("words", ["set a timer", "a timer for the eggs", "at 5 pm", ""])
def test_words_without_a_duration_give_none(words: str) -> None:
    assert read_duration(words) == ""


@pytest.mark.parametrize(
    ("typed", "intent"),
    [
        ("what time is it", "time"),
        ("can you tell me the time", "time"),
        ("hello, what time is it?", "time"),
        ("set a timer for two minutes", "timer"),
        ("I need a timer for 5 minutes please", "timer"),
        ("remind me in ten minutes", "timer"),
        ("note that the meeting time is at 3", "note"),  # the earliest match wins
        ("remember to set a timer", "note"),
        ("what do you know about my computer", "context"),
        ("bye for now", "goodbye"),
        ("hi", "hello"),
        ("help", "hello"),
    ],
)
def test_plain_phrasing_is_understood(typed: str, intent: str) -> None:
    understood = understand(typed, DEMO_INTENTS)
    assert understood is not None
    assert understood.intent.name == intent


def test_nothing_is_understood_of_other_words() -> None:
    assert understand("tell me a joke", DEMO_INTENTS) is None
    assert understand("  ?! ", DEMO_INTENTS) is None


def test_a_required_slot_that_is_not_said_is_missing() -> None:
    understood = understand("set a timer", DEMO_INTENTS)
    assert understood is not None
    assert understood.missing == ("duration",)
    assert understood.intent.arguments(understood.said) == {}


def test_a_template_fills_only_when_every_field_has_a_value() -> None:
    scope = {"value": {"time": "14:05", "weekday": "Tuesday", "label": "", "n": 0}}
    assert fill("It's {value.time} on {value.weekday}.", scope) == "It's 14:05 on Tuesday."
    assert fill("For {value.label}.", scope) is None  # empty
    assert fill("In {args.timezone}.", scope) is None  # missing
    assert fill("{value}", scope) is None  # not a plain value
    assert fill("{value.n} left", scope) == "0 left"
    assert fill("broken {", scope) is None
    assert fill_first(["In {args.timezone}.", "At {value.time}."], scope) == "At 14:05."


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("sayHello", "say hello"),
        ("get_time", "get time"),
        ("getCurrentContext", "get current context"),
    ],
)
def test_a_function_name_is_said_in_words(name: str, words: str) -> None:
    assert spoken_name(name) == words
