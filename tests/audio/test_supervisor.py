"""StreamSupervisor's pause and resume, with a hand-written stream (timing under control).

The real-device side (a paused PortAudio stream really stops calling back, and plays again
when started) is in tests/audio/test_playback_standby.py; here the watchdog's rules are
checked with a stream whose callbacks the test decides, on a clock the test moves.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import AsyncIterator, Callable
from typing import TypeVar

import pytest
import sounddevice as sd

from sammy_desktop.audio import (
    AudioDevice,
    DeviceChoice,
    DeviceSwitched,
    StreamError,
    StreamRecovered,
)
from sammy_desktop.audio import supervisor as supervisor_module
from sammy_desktop.audio.supervisor import RECOVERY_PROOF_S, StreamSupervisor
from sammy_desktop.eventbus import EventBus
from tests.audio.conftest import until
from tests.helpers.clock import ManualScheduler
from tests.helpers.events import EventLog

DEVICE = AudioDevice(
    index=0,
    name="Fake Speaker",
    host_api="fake",
    default_samplerate=24000.0,
    max_input_channels=0,
    max_output_channels=2,
    is_default_input=False,
    is_default_output=True,
)


class FakeStream:
    """Calls ``finished`` when stopped, as PortAudio does; counts starts and aborts."""

    def __init__(self, finished: Callable[[], None]) -> None:
        self._finished = finished
        self.active = True
        self.starts = 0
        self.aborts = 0
        self.closed = False

    def start(self) -> None:
        self.starts += 1
        self.active = True

    def abort(self) -> None:
        self.aborts += 1
        if self.active:
            self.active = False
            self._finished()

    def close(self) -> None:
        self.closed = True


Stream = TypeVar("Stream", bound=FakeStream)


def recording_opener(
    kind: type[Stream], streams: list[Stream], *, refuse_first_start: bool = False
) -> Callable[[AudioDevice, int, Callable[[], None]], Stream]:
    """An opener of ``kind`` streams, each kept in ``streams``.

    ``refuse_first_start``: the first stream's start() fails as a device's can (it opened,
    and will not run again once stopped).
    """

    def opener(_device: AudioDevice, _generation: int, finished: Callable[[], None]) -> Stream:
        stream = kind(finished)
        if refuse_first_start and not streams:

            def refuse() -> None:
                raise sd.PortAudioError("Unanticipated host error")

            stream.start = refuse  # type: ignore[method-assign]
        streams.append(stream)
        return stream

    return opener


@pytest.fixture
def fake_device(monkeypatch: pytest.MonkeyPatch) -> None:
    # resolve_device asks PortAudio; the fake stream needs no device list.
    monkeypatch.setattr(
        supervisor_module, "resolve_device", lambda _name, _direction: DeviceChoice(DEVICE, "")
    )


@contextlib.asynccontextmanager
async def paused_supervisor(
    bus: EventBus, opener: Callable[..., FakeStream], scheduler: ManualScheduler | None = None
) -> AsyncIterator[StreamSupervisor]:
    """A supervisor of the output, its stream opened and then paused; stopped on the way out."""
    supervisor = StreamSupervisor(
        bus, "output", "", opener, stall_timeout_s=30, scheduler=scheduler
    )
    await supervisor.start()
    try:
        supervisor.pause()
        await until(lambda: supervisor.is_paused)
        yield supervisor
    finally:
        await supervisor.stop()


@pytest.mark.usefixtures("fake_device")
async def test_a_paused_stream_is_not_a_stalled_one_and_the_watchdog_wakes_with_it(
    bus: EventBus, events: EventLog
) -> None:
    streams: list[FakeStream] = []

    opener = recording_opener(FakeStream, streams)

    clock = ManualScheduler()
    supervisor = StreamSupervisor(bus, "output", "", opener, stall_timeout_s=0.3, scheduler=clock)
    await supervisor.start()
    try:
        # Running: the watchdog looks four times per stall timeout.
        assert await clock.timer_set() == pytest.approx(0.075)
        supervisor.pause()
        await until(lambda: supervisor.is_paused)
        assert streams[0].aborts == 1
        # PortAudio's finished callback came before the abort returned, and was handled
        # before the pause took effect: it did not count as a failure.
        assert supervisor.is_running
        # Paused, the supervisor waits for a request and nothing else: no watchdog timer,
        # so three stall timeouts without a callback pass without a look.
        assert clock.pending == []
        clock.advance(1.0)
        assert supervisor.is_running
        assert events.of(StreamError) == []

        supervisor.resume()
        assert not supervisor.is_paused  # resuming counts as running at once
        await until(lambda: streams[0].starts == 1)
        # Running again and silent: the watchdog is back on duty, counting from the resume.
        assert await clock.timer_set() == pytest.approx(0.075)
        clock.advance(0.25)  # not yet a stall
        await clock.timer_set()
        assert supervisor.is_running
        clock.advance(0.1)  # now 0.35 s without a callback
        error = await events.wait_for(StreamError)
        assert "no audio from the device" in error.reason
        # Reopened after the first backoff step.
        assert await clock.timer_set() == pytest.approx(0.2)
        clock.advance(0.2)
        await until(lambda: len(streams) == 2)
        # The first callbacks of a reopened stream come at once, PortAudio filling the
        # device buffer, from a device that works or not: recovered once they keep coming.
        supervisor.alive(supervisor.generation)
        clock.advance(RECOVERY_PROOF_S / 2)
        supervisor.alive(supervisor.generation)
        assert events.of(StreamRecovered) == []
        clock.advance(RECOVERY_PROOF_S / 2)
        supervisor.alive(supervisor.generation)
        await events.wait_for(StreamRecovered)
    finally:
        await supervisor.stop()
    assert all(stream.closed for stream in streams)
    assert len(events.of(StreamError)) == 1


@pytest.mark.usefixtures("fake_device")
async def test_the_owner_hears_each_time_a_pause_has_stopped_the_stream(bus: EventBus) -> None:
    streams: list[FakeStream] = []
    stopped: list[tuple[bool, int]] = []  # (paused, aborts so far) at each call

    def on_paused() -> None:
        stopped.append((supervisor.is_paused, streams[0].aborts))

    supervisor = StreamSupervisor(
        bus, "output", "", recording_opener(FakeStream, streams), on_paused=on_paused
    )
    await supervisor.start()
    try:
        supervisor.pause()
        await until(lambda: bool(stopped))
        assert stopped == [(True, 1)]  # after the abort returned: no callback runs now
        supervisor.resume()
        await until(lambda: streams[0].starts == 1 and not supervisor.is_paused)
        assert stopped == [(True, 1)]  # a resume is not a stop
        supervisor.pause()
        await until(lambda: len(stopped) == 2)
        assert stopped[1] == (True, 2)
    finally:
        await supervisor.stop()


@pytest.mark.usefixtures("fake_device")
async def test_a_stream_that_will_not_start_again_is_reopened(
    bus: EventBus, events: EventLog
) -> None:
    streams: list[FakeStream] = []

    opener = recording_opener(FakeStream, streams, refuse_first_start=True)

    async with paused_supervisor(bus, opener) as supervisor:
        supervisor.resume()
        error = await events.wait_for(StreamError, within_s=3)
        assert "would not start again" in error.reason
        await until(lambda: len(streams) == 2)
        await until(lambda: _called_back(supervisor) and bool(events.of(StreamRecovered)))
        assert not supervisor.is_paused


def _called_back(supervisor: StreamSupervisor) -> bool:
    """A callback of the current stream arrives (the device calling back, as it runs)."""
    supervisor.alive(supervisor.generation)
    return True


class BlockingStartStream(FakeStream):
    """A stream whose start() says, across threads, that it ran."""

    def __init__(self, finished: Callable[[], None]) -> None:
        super().__init__(finished)
        self.started = threading.Event()

    def start(self) -> None:
        super().start()
        self.started.set()


@pytest.mark.usefixtures("fake_device")
async def test_resume_starts_the_stream_while_the_loop_is_still_busy(
    bus: EventBus, events: EventLog
) -> None:
    # The speaker is resumed from play(), in the middle of a burst of the model's audio that
    # keeps the loop busy: the start must not wait for the supervising task's next turn.
    streams: list[BlockingStartStream] = []

    opener = recording_opener(BlockingStartStream, streams)

    async with paused_supervisor(bus, opener) as supervisor:
        supervisor.resume()
        # Blocking the loop on purpose: only a worker thread can start the stream now.
        assert streams[0].started.wait(timeout=5)
        assert streams[0].starts == 1
        # A pause asked while that start was on its way is applied after it, in turn.
        supervisor.pause()
        await until(lambda: supervisor.is_paused and streams[0].aborts == 2)
        supervisor.resume()
        await until(lambda: streams[0].starts == 2 and not supervisor.is_paused)
        assert supervisor.is_running
    assert streams[0].closed
    assert events.of(StreamError) == []


@contextlib.asynccontextmanager
async def watched_paused_supervisor(
    bus: EventBus,
) -> AsyncIterator[tuple[StreamSupervisor, ManualScheduler, list[FakeStream]]]:
    """:func:`paused_supervisor` on a hand-moved clock, with every stream it opened."""
    streams: list[FakeStream] = []

    opener = recording_opener(FakeStream, streams)

    clock = ManualScheduler()
    async with paused_supervisor(bus, opener, clock) as supervisor:
        yield supervisor, clock, streams


async def _fail_and_reopen(
    supervisor: StreamSupervisor, clock: ManualScheduler, streams: list[FakeStream]
) -> None:
    """The stream fails; the supervisor reopens it after the first backoff step."""
    supervisor.report_failure("the sound server restarted")
    assert await clock.timer_set() == pytest.approx(0.2)
    clock.advance(0.2)
    await until(lambda: len(streams) == 2)


@pytest.mark.usefixtures("fake_device")
async def test_a_resting_stream_moved_to_another_device_rests_again_once_it_called_back(
    bus: EventBus, events: EventLog
) -> None:
    # A resting speaker whose device came back (or that the settings move): its first
    # callback on the new device is what says so, so it runs until that comes.
    async with watched_paused_supervisor(bus) as (supervisor, clock, streams):
        assert clock.pending == []  # resting: nothing watched
        supervisor.switch_device("Headphones")
        await until(lambda: len(streams) == 2)
        # Running and watched, though a pause is still asked for: no callback yet.
        assert await clock.timer_set() == pytest.approx(1.0)
        assert streams[1].aborts == 0 and not supervisor.is_paused
        assert events.of(DeviceSwitched) == []
        supervisor.alive(supervisor.generation)
        switched = await events.wait_for(DeviceSwitched)
        assert switched.device == DEVICE.name
        # Proven: it rests again.
        await until(lambda: supervisor.is_paused and streams[1].aborts == 1)
    assert events.of(StreamError) == []


@pytest.mark.usefixtures("fake_device")
async def test_a_resting_stream_reopened_after_a_failure_rests_again_once_it_recovered(
    bus: EventBus, events: EventLog
) -> None:
    async with watched_paused_supervisor(bus) as (supervisor, clock, streams):
        await _fail_and_reopen(supervisor, clock, streams)
        assert await clock.timer_set() == pytest.approx(1.0)  # running and watched
        supervisor.alive(supervisor.generation)
        clock.advance(RECOVERY_PROOF_S)
        supervisor.alive(supervisor.generation)
        await events.wait_for(StreamRecovered)
        await until(lambda: supervisor.is_paused and streams[1].aborts == 1)
        assert clock.pending == []  # resting again: nothing watched
    assert len(events.of(StreamError)) == 1


@pytest.mark.usefixtures("fake_device")
async def test_a_resting_stream_reopened_on_a_device_that_never_calls_back_is_found_dead(
    bus: EventBus, events: EventLog
) -> None:
    # Paused at once, it would have waited, unwatched, for the next answer to find out.
    async with watched_paused_supervisor(bus) as (supervisor, clock, streams):
        await _fail_and_reopen(supervisor, clock, streams)
        while True:
            await clock.timer_set()  # the watchdog's next look, or the backoff after a stall
            if supervisor.failures == 2:
                break
            clock.advance(1.0)  # no callback between the looks
        assert clock.now == pytest.approx(0.2 + 31.0)  # one stall timeout (30 s) and a look
        assert events.of(StreamRecovered) == []
        assert len(events.of(StreamError)) == 1  # still the one outage


class DroppingStream(BlockingStartStream):
    """A stream that logs its aborts and starts in order, from whichever thread."""

    def __init__(self, finished: Callable[[], None]) -> None:
        super().__init__(finished)
        self.calls: list[str] = []

    def abort(self) -> None:
        self.calls.append("abort")
        super().abort()

    def start(self) -> None:
        self.calls.append("start")
        super().start()


@contextlib.asynccontextmanager
async def running_supervisor(
    bus: EventBus, opener: Callable[..., FakeStream]
) -> AsyncIterator[StreamSupervisor]:
    """A supervisor of the output, its stream opened and running; stopped on the way out."""
    supervisor = StreamSupervisor(bus, "output", "", opener, stall_timeout_s=30)
    await supervisor.start()
    try:
        yield supervisor
    finally:
        await supervisor.stop()


@pytest.mark.usefixtures("fake_device")
async def test_dropping_the_buffer_stops_and_starts_the_stream_at_once_and_is_no_failure(
    bus: EventBus, events: EventLog
) -> None:
    # Barge-in: what the device holds is dropped (an abort) and the stream runs on (a
    # start), handed to a worker at once: the loop may be busy with the interruption.
    streams: list[DroppingStream] = []

    opener = recording_opener(DroppingStream, streams)

    dropped: list[list[str]] = []
    async with running_supervisor(bus, opener) as supervisor:
        stream = streams[0]
        assert supervisor.drop_buffered(lambda: dropped.append(list(stream.calls)))
        assert stream.started.wait(timeout=5)  # the loop blocked: a worker did it
        assert stream.calls == ["abort", "start"]
        await until(lambda: bool(dropped) and not supervisor._unapplied)
        # Told on the loop once the abort had dropped the buffer.
        assert dropped[0][0] == "abort"
        # PortAudio's finished callback for that abort was expected, not a failure.
        assert supervisor.is_running and not supervisor.is_paused
        assert events.of(StreamError) == []
        # Again: each barge-in drops what is buffered then.
        assert supervisor.drop_buffered()
        await until(lambda: stream.calls == ["abort", "start"] * 2 and not supervisor._unapplied)
        # A stream that ends by itself afterwards is a failure again, as it always was.
        stream._finished()
        error = await events.wait_for(StreamError, within_s=3)
        assert "stopped the stream" in error.reason
    assert events.of(StreamError) == [error]


@pytest.mark.usefixtures("fake_device")
async def test_a_paused_or_pausing_stream_has_nothing_to_drop_and_a_pause_waits_for_a_drop(
    bus: EventBus, events: EventLog
) -> None:
    streams: list[DroppingStream] = []

    opener = recording_opener(DroppingStream, streams)

    async with paused_supervisor(bus, opener) as supervisor:
        stream = streams[0]
        calls = list(stream.calls)
        assert not supervisor.drop_buffered()  # paused: the device holds nothing
        supervisor.resume()
        await until(lambda: not supervisor.is_paused and not supervisor._unapplied)
        supervisor.pause()
        assert not supervisor.drop_buffered()  # the pause's abort drops it anyway
        await until(lambda: supervisor.is_paused)
        assert stream.calls == [*calls, "start", "abort"]
        supervisor.resume()
        await until(lambda: not supervisor._unapplied)
        # A pause asked while a drop is on its way is applied after it, in turn.
        assert supervisor.drop_buffered()
        supervisor.pause()
        await until(lambda: supervisor.is_paused)
        assert stream.calls[-3:] == ["abort", "start", "abort"]
    assert events.of(StreamError) == []


@pytest.mark.usefixtures("fake_device")
async def test_a_stream_that_will_not_start_after_a_drop_is_reopened(
    bus: EventBus, events: EventLog
) -> None:
    streams: list[FakeStream] = []

    opener = recording_opener(FakeStream, streams, refuse_first_start=True)

    async with running_supervisor(bus, opener) as supervisor:
        assert supervisor.drop_buffered()
        error = await events.wait_for(StreamError, within_s=3)
        assert "would not start again" in error.reason
        await until(lambda: len(streams) == 2)
        await until(lambda: _called_back(supervisor) and bool(events.of(StreamRecovered)))
        assert streams[0].closed
