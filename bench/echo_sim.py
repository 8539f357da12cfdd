"""A Live simulator process for the benchmarks: answers at once, or echoes every chunk.

    .venv/bin/python bench/echo_sim.py --mode turn --events-out sim-events.json

Modes:

* ``turn``: after activityEnd, the person's speech comes back (EchoAudio, no quiet lead-in),
  then turnComplete: the voice-to-voice measurement. It comes at once, or after
  ``--think-ms``, the model's time to its first audio (docs/live-service.md R13: hundreds of
  milliseconds; the voice rows use ``bench/live_audio.py`` ECHO_THINK_MS). The lead-in is cut
  because its length depended on the client: the simulator keeps up to 100 ms of what was
  sent before the speech, and a client that starts sending later (the reference client
  starts at "down", the app also sends its pre-roll) got a shorter silence before its
  answer.
  With ``--pacing burst`` the answer comes the way the service sends it (docs/live-service.md
  R6: half a second at once, three times faster than real time overall); by default it is
  paced at real time.
* ``chunk``: every audio chunk the client sends is sent back at once as model audio (no
  turns): the click-in to echo-out measurement of the audio path alone.
* ``probe``: like ``turn``, but after ``--plain-turns`` turns, one also calls
  ``benchSlowTool`` before answering (the slow tool must not make the event loop lag).

It prints ``priority=...`` (see :data:`SERVICE_NICENESS`), then ``base_url=...`` and
``ca_file=...`` (like ``sammy-live-sim``) and, when stopped with SIGTERM, writes what it
received and sent with ``time.monotonic()`` stamps (the same clock in every process on
Linux) to ``--events-out``, so the runner can measure key up -> activityEnd on the wire.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from sammy_desktop.sim import (
    CallTools,
    Delay,
    EchoAudio,
    FunctionCallSpec,
    LiveSimulator,
    OnActivityEnd,
    OnToolResponse,
    PcmAudio,
    RecordedEvent,
    Recorder,
    Scenario,
    Turn,
    TurnComplete,
)
from sammy_desktop.wire_audio import INPUT_RATE

SLOW_TOOL = "benchSlowTool"
LOUD = 2000
"""A sample louder than this is the test tone (the virtual microphone is otherwise silent)."""
BENCH_API_KEY = "bench-key"
SERVICE_NICENESS = -10
"""The simulator's scheduling priority (a nice value; the clients run at 0).

It stands in for a service on other machines, whose answer never waits for the client's
CPU. On this rig it shares two cores with the client, its sound server and the X server,
and at the same priority the app's work at the talk key's release (the window's repaint
and the X server's) delayed its answer by 3-5 ms, a wait the starter-style client, with no
window, did not cause (docs/benchmarks.md, "Where the time goes").
"""


class ChunkEchoRecorder(Recorder):
    """Records like the simulator's own recorder, and echoes each audio chunk at once."""

    def __init__(self) -> None:
        super().__init__()
        self.simulator: LiveSimulator | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    def record(
        self,
        kind: str,
        *,
        connection_id: int,
        session_id: str = "",
        data: Mapping[str, Any] | None = None,
        audio: bytes = b"",
        picture: bytes = b"",
    ) -> RecordedEvent:
        """Record the event; an audio chunk is also sent straight back as model audio."""
        event = super().record(
            kind,
            connection_id=connection_id,
            session_id=session_id,
            data=data,
            audio=audio,
            picture=picture,
        )
        if kind == "audio" and audio and self.simulator is not None:
            echo = PcmAudio(pcm=audio, sample_rate=INPUT_RATE, realtime=False)
            task = asyncio.get_running_loop().create_task(
                self.simulator.inject(echo, connection_id=connection_id),
                name=f"bench-chunk-echo-{connection_id}",
            )
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return event


def scenario_for(mode: str, plain_turns: int = 1, think_ms: int = 0) -> Scenario:
    """The scripted model for ``mode`` (see the module docstring).

    In ``probe`` mode, ``plain_turns`` plain echo turns come before each slow-tool turn.
    ``think_ms``: how long the model thinks after activityEnd before its echo starts.
    """
    if mode == "chunk":
        return Scenario(name="bench-chunk-echo")
    think = [Delay(seconds=think_ms / 1000)] if think_ms else []
    echo = Turn(OnActivityEnd(), [*think, EchoAudio(padding_ms=0), TurnComplete()])
    if mode == "turn":
        return Scenario(turns=[echo], repeat=True, name="bench-echo")
    slow = Turn(
        OnActivityEnd(),
        [CallTools(calls=(FunctionCallSpec(name=SLOW_TOOL),)), EchoAudio(), TurnComplete()],
    )
    after_tool = Turn(OnToolResponse(), [TurnComplete()])
    turns = [*([echo] * max(1, plain_turns)), slow, after_tool]
    return Scenario(turns=turns, repeat=True, name="bench-probe")


def dump_events(recorder: Recorder, path: Path) -> None:
    """Write the recorded events (without audio bytes) as JSON."""
    rows = []
    for event in recorder.events():
        row: dict[str, Any] = {
            "kind": event.kind,
            "connection": event.connection_id,
            "t": event.monotonic_time,
        }
        if event.kind == "audio":
            row["bytes"] = event.byte_count
            # Where a loud signal (a test tone) is in the chunk, for the speech lost at the
            # start of a turn (bench/live_audio.py mic_start).
            samples = np.frombuffer(event.audio, np.int16)
            loud = np.flatnonzero(np.abs(samples) > LOUD)
            row["samples"] = len(samples)
            row["first_loud"] = int(loud[0]) if len(loud) else -1
            row["last_loud"] = int(loud[-1]) if len(loud) else -1
        elif event.kind == "sent.serverContent":
            content = event.data.get("serverContent", {})
            row["audio"] = bool(content.get("modelTurn"))
            row["interrupted"] = bool(content.get("interrupted"))
            row["turn_complete"] = bool(content.get("turnComplete"))
        rows.append(row)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(rows))


async def serve(
    mode: str, events_out: Path | None, plain_turns: int, pacing: str, think_ms: int
) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    simulator = LiveSimulator(
        scenario_for(mode, plain_turns, think_ms),
        api_keys=(BENCH_API_KEY,),
        realtime=True,
        pacing="burst" if pacing == "burst" else "realtime",
    )
    if mode == "chunk":
        recorder = ChunkEchoRecorder()
        recorder.simulator = simulator
        simulator.recorder = recorder
    async with simulator:
        print(f"base_url={simulator.base_url}\nca_file={simulator.ca_pem_path}", flush=True)
        await stop.wait()
        if events_out is not None:
            dump_events(simulator.recorder, events_out)


def _take_priority() -> str:
    """Run ahead of the clients (:data:`SERVICE_NICENESS`); what was set, or why not."""
    try:
        os.setpriority(os.PRIO_PROCESS, 0, SERVICE_NICENESS)
    except OSError as exc:  # not root, and no CAP_SYS_NICE
        return f"unchanged ({exc.strerror})"
    return str(SERVICE_NICENESS)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("turn", "chunk", "probe"), default="turn")
    parser.add_argument("--events-out", type=Path, default=None)
    parser.add_argument("--plain-turns", type=int, default=1, help="probe: echo turns per slow one")
    parser.add_argument(
        "--pacing",
        choices=("realtime", "burst"),
        default="realtime",
        help="answer audio at real time, or in the service's bursts ahead of it "
        "(docs/live-service.md R6)",
    )
    parser.add_argument(
        "--think-ms",
        type=int,
        default=0,
        help="turn: the model's time to its first audio after activityEnd (docs/live-service.md "
        "R13); 0 answers at once",
    )
    args = parser.parse_args()
    print(f"priority={_take_priority()}", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(args.mode, args.events_out, args.plain_turns, args.pacing, args.think_ms))
    return 0


if __name__ == "__main__":
    sys.exit(main())
