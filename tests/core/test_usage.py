"""Token counts as the service reports them: per turn, by modality, summed per session, in the
history; the cost estimate from them."""

from __future__ import annotations

from typing import Any

from sammy_desktop.config.prices import TokenPrices, estimate_cost
from sammy_desktop.core.events import TurnStats, UsageUpdated
from sammy_desktop.core.history import read_history
from sammy_desktop.sim import OnActivityEnd, Scenario, Tone, Turn, TurnComplete
from tests.core.conftest import HarnessFactory
from tests.helpers.audio import speech

ANSWER = Turn(OnActivityEnd(), [Tone(duration_s=0.3, transcript="Noon."), TurnComplete()])


def _reported(h: Any) -> list[dict[str, Any]]:
    return [e.data["usageMetadata"] for e in h.sim.recorder.sent("usageMetadata")]


async def test_each_turns_tokens_match_what_the_service_reported(
    core_harness: HarnessFactory,
) -> None:
    async with core_harness(Scenario(turns=[ANSWER, ANSWER])) as h:
        await h.ready()
        await h.say(speech(0.5))
        await h.events.wait_for(TurnStats)
        await h.say(speech(0.25))
        await h.events.wait_for(TurnStats, count=2)
        reported = _reported(h)
        assert len(reported) == 2
        for stats, usage in zip(h.events.of(TurnStats), reported, strict=True):
            assert stats.prompt_tokens == usage["promptTokenCount"]
            assert stats.response_tokens == usage["responseTokenCount"]
            assert stats.total_tokens == usage["totalTokenCount"]
            assert stats.prompt_by_modality == {
                d["modality"]: d["tokenCount"] for d in usage["promptTokensDetails"]
            }
            assert stats.response_by_modality == {"AUDIO": usage["responseTokenCount"]}
            assert stats.prompt_by_modality["AUDIO"] > 0
        # The session's total is the sum of every turn's (the bill is, R4).
        assert h.events.of(UsageUpdated)[-1].session_total == sum(
            u["totalTokenCount"] for u in reported
        )
        path = h.history.path
        assert path is not None
        await h.history.flush()
        records = [r for r in read_history(path) if r["type"] == "turn_stats"]
        assert [r["prompt_by_modality"] for r in records] == [
            s.prompt_by_modality for s in h.events.of(TurnStats)
        ]


def test_a_turns_cost_prices_its_audio_and_text_apart() -> None:
    prices = TokenPrices(text_input=0.5, audio_input=3.0, text_output=2.0, audio_output=12.0)
    cost = estimate_cost(
        prices,
        prompt_tokens=1000,
        response_tokens=100,
        prompt_by_modality={"TEXT": 900, "AUDIO": 100},
        response_by_modality={"AUDIO": 100},
    )
    assert cost == (900 * 0.5 + 100 * 3.0 + 100 * 12.0) / 1_000_000
