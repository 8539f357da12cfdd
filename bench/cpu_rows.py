"""CPU rows for issue 23: the idle hands-free app, and the reference client while it answers.

    scripts/with-test-services.sh .venv/bin/python bench/cpu_rows.py [--seconds 10] [--rounds 3]

* :func:`hands_free_idle_cpu`: the real app in hands-free, connected, nobody speaking (the
  virtual microphone gives digital silence, streamed to the simulator with echo
  cancellation on), CPU % of one core per second; beside it the same app in push-to-talk,
  idle (:func:`push_to_talk_idle_cpu`).
* :func:`streaming_cpu_reference`: the starter-style reference client
  (bench/reference_client.py) while an answer plays, measured as ``app_resources`` measures
  the app's streaming row: espeak speech played into the microphone with talk held, then
  from the key up to the end of the answer (the speech echoed back, its length plus the
  time to the first answer sample).

Both keep the virtual sinks busy (``sinks_kept_awake``; see docs/benchmarks.md): an idle null
sink makes PortAudio spin while it waits for a first block, which would be counted here.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, cast

if __package__ in (None, ""):  # run as a script: the repository root on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.live_audio import (
    ANSWER_MARGIN_S,
    SPEECH_TEXT,
    STARTUP_SETTLE_S,
    SimProcess,
    _cpu_pct,
    make_speech,
    running_app,
    running_reference,
)
from bench.pulse_rig import play_into_mic, sinks_kept_awake


def _idle_cpu(workdir: Path, seconds: float, **settings: object) -> list[float]:
    with (
        sinks_kept_awake(),
        SimProcess("turn", workdir, label=str(settings.get("talk_mode", "ptt"))) as sim,
        running_app(sim, workdir, **cast("dict[str, Any]", settings)) as app,
    ):
        # First paint, the connection, the streams' first fragments (see app_resources).
        time.sleep(STARTUP_SETTLE_S)
        return [_cpu_pct(app, 1.0) for _ in range(max(1, round(seconds)))]


def hands_free_idle_cpu(workdir: Path, seconds: float) -> list[float]:
    """The idle hands-free app's CPU % of a core, one reading per second.

    Connected, nobody speaking: the microphone's silence goes to the simulator all along,
    through the echo canceller (on, the default).
    """
    return _idle_cpu(workdir, seconds, talk_mode="hands_free")


def push_to_talk_idle_cpu(workdir: Path, seconds: float) -> list[float]:
    """The idle push-to-talk app's CPU % of a core, one reading per second (for comparison)."""
    return _idle_cpu(workdir, seconds, talk_mode="push_to_talk")


def streaming_cpu_reference(workdir: Path, rounds: int, speech_text: str = SPEECH_TEXT) -> float:
    """The reference client's mean CPU % of a core while an answer plays.

    Each round: ``down``, espeak speech into the microphone, ``up``; then the CPU from the
    key up until the echoed answer has played (the speech's length and a margin).
    """
    speech, seconds = make_speech(workdir, speech_text)
    readings: list[float] = []
    with (
        sinks_kept_awake(),
        SimProcess("turn", workdir, label="reference-cpu") as sim,
        running_reference(sim) as client,
    ):
        time.sleep(STARTUP_SETTLE_S)
        for _ in range(max(1, rounds)):
            client.send("down")
            play_into_mic(speech)
            client.send("up")
            readings.append(_cpu_pct(client, seconds + ANSWER_MARGIN_S))
            time.sleep(0.3)
    return sum(readings) / len(readings)


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="idle readings per mode")
    parser.add_argument("--rounds", type=int, default=3, help="answers for the reference")
    parser.add_argument("--no-push-to-talk", action="store_true", help="skip the PTT row")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="sammy-cpu-rows-") as tmp:
        workdir = Path(tmp)
        hands_free = hands_free_idle_cpu(workdir, args.seconds)
        rows: dict[str, object] = {
            "hands_free_idle_pct": [round(x, 1) for x in hands_free],
            "hands_free_idle_median_pct": round(_median(hands_free), 1),
        }
        if not args.no_push_to_talk:
            push_to_talk = push_to_talk_idle_cpu(workdir, args.seconds)
            rows["push_to_talk_idle_pct"] = [round(x, 1) for x in push_to_talk]
            rows["push_to_talk_idle_median_pct"] = round(_median(push_to_talk), 1)
        rows["reference_streaming_pct"] = round(streaming_cpu_reference(workdir, args.rounds), 1)
    print(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
