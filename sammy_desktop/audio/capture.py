"""Microphone capture: 16 kHz mono PCM16 blocks delivered on the asyncio loop.

The PortAudio callback only copies the block and hands it to the loop with
``call_soon_threadsafe``; at most ``max_pending_blocks`` may wait there, further blocks are
dropped and counted as overflows (a stalled loop must not grow memory without bound). On the
loop each block is resampled to 16 kHz when the device runs at another rate, passed through
the echo canceller, cut into blocks of ``block_ms``, kept in the pre-roll ring, metered, and
handed to the consumer.

Standby (opt-in, ``standby_when_idle``; the :class:`AudioEngine` uses it): in push-to-talk
the microphone runs all the time only to keep the pre-roll, and nobody needs its blocks until
the talk key goes down. Waking the loop 100 times a second for that cost most of the app's
idle CPU (qasync turns every ``call_soon_threadsafe`` into a queued Qt signal plus a zero
timer, then the echo canceller, the meter and a repaint ran per block). So, while nobody
talks, the mode is not hands-free and the echo canceller has nothing to cancel, the callback
deviates from "only hand bytes to the loop": it copies the raw block into a preallocated ring
under a lock (a memcpy, no allocation, no wake-up) and posts only a heartbeat every
``_STANDBY_TICK_MS`` (the stall watchdog and a throttled level for the meters). Leaving
standby (:meth:`AudioCapture.begin_talk`, hands-free, or the echo canceller waking because
something audible is played) runs the kept raw audio through the usual resampler and clean-up
into the pre-roll, atomically with switching the callback back to hand-offs, so the pre-roll
and the live blocks join without a gap or an overlap.

Quiet hand-offs (opt-in, :meth:`AudioCapture.hold_quiet`; the engine uses it in hands-free):
the hands-free microphone is delivered all the time, and each hand-off to the loop costs
a Qt event and a timer under qasync. While nobody has spoken for the hangover (the
service's silence duration and a margin, so the silence that ends a turn still comes
block by block) and the echo canceller is idle, the callback holds quiet blocks and hands
over :data:`QUIET_HANDOFF_BLOCKS` at a time; a block loud enough to be speech goes at once
with what was held, and hand-offs are per block again until the hangover has passed.

Closed between turns (the :class:`~sammy_desktop.audio.mic_policy.MicrophonePolicy` decides
when): :meth:`AudioCapture.start` and :meth:`AudioCapture.stop` open and close the stream
itself, and :class:`MicrophoneInUse` says so. A stream opened afresh starts with an empty
pre-roll (nothing from before it was opened is kept), and :meth:`AudioCapture.on_next_block`
tells a talk press when the first real block is there.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import numpy as np
import sounddevice as sd

from sammy_desktop.audio.events import AudioLevel, MicrophoneInUse
from sammy_desktop.audio.levels import SILENCE_DBFS, ChangedLevels, LevelMeter, rms_dbfs
from sammy_desktop.audio.preroll import PreRollBuffer
from sammy_desktop.audio.resampling import StreamResampler
from sammy_desktop.audio.stream_owner import DeviceCallback, OpenedStream, StreamOwner
from sammy_desktop.eventbus import EventBus
from sammy_desktop.wire_audio import INPUT_RATE, SAMPLE_WIDTH, SPEECH_DBFS

if TYPE_CHECKING:
    import asyncio

    from sammy_desktop.audio.devices import AudioDevice
    from sammy_desktop.audio.echo import EchoCanceller

__all__ = ["AudioCapture", "HandoffStats"]

_log = logging.getLogger(__name__)

# In standby, one heartbeat reaches the loop this often: it keeps the stall watchdog fed and
# the idle meter moving, at a tenth of the hand-offs of 10 ms blocks.
_STANDBY_TICK_MS: Final = 100
# Held quiet (hands-free, nobody speaking): this many blocks go to the loop in one hand-off.
QUIET_HANDOFF_BLOCKS: Final = 4


def _speech_level(samples: np.ndarray) -> bool:
    """Whether PCM16 ``samples`` are loud enough to be speech (RMS >= SPEECH_DBFS)."""
    return rms_dbfs(samples) >= SPEECH_DBFS


@dataclass(slots=True)
class HandoffStats:
    """How long blocks waited between the PortAudio callback and the loop (for bench/)."""

    count: int = 0
    total_s: float = 0.0
    max_s: float = 0.0

    def add(self, seconds: float) -> None:
        """Record one hand-off."""
        self.count += 1
        self.total_s += seconds
        self.max_s = max(self.max_s, seconds)

    @property
    def mean_s(self) -> float:
        """The mean hand-off delay in seconds (0 before any block)."""
        return self.total_s / self.count if self.count else 0.0


class AudioCapture:
    """Captures the microphone as 16 kHz mono PCM16 blocks.

    Args:
        bus: where :class:`AudioLevel` ("input") and stream events go.
        device: the input device name from the settings; empty for the system default.
        block_ms: the size of the blocks handed to the consumer, 10 to 20 ms.
        pre_roll_ms: how much audio :meth:`begin_talk` returns from before the key press.
        echo_canceller: removes what we play from the microphone; ``None`` for none.
        samplerate: force the device rate (testing the resampler); ``None`` prefers
            16 kHz and falls back to the device's own rate.
        max_pending_blocks: how many blocks may wait for the loop before new ones are
            dropped and counted as overflows.
        stall_timeout_s: a stream that delivers no callback for this long counts as dead
            and is reopened (generous: some sound servers take seconds to start one).
        standby_when_idle: go to standby (see the module docstring) while nobody talks,
            :meth:`keep_live` is off and the echo canceller is idle; the consumer then
            receives blocks only from :meth:`begin_talk` to :meth:`end_talk`. Off: every
            block is delivered, always.
        before_block: called on the loop before each block from the device is processed
            (the engine passes the playback's :meth:`~AudioPlayback.pump`, so the echo
            canceller has the far-end reference before the microphone audio).

    Attributes:
        blocks: blocks handed to the consumer so far.
        handoff: callback -> loop delay statistics (for the benchmarks).
    """

    def __init__(
        self,
        bus: EventBus,
        *,
        device: str = "",
        block_ms: int = 10,
        pre_roll_ms: int = 300,
        echo_canceller: EchoCanceller | None = None,
        samplerate: int | None = None,
        stall_timeout_s: float = 5.0,
        max_pending_blocks: int = 50,
        standby_when_idle: bool = False,
        before_block: Callable[[], None] | None = None,
    ) -> None:
        if not 10 <= block_ms <= 20:
            raise ValueError(f"block_ms must be between 10 and 20 (got {block_ms})")
        if pre_roll_ms < 0:
            raise ValueError(f"pre_roll_ms must not be negative (got {pre_roll_ms})")
        self._bus = bus
        self._block_ms = block_ms
        self._block_bytes = INPUT_RATE * block_ms // 1000 * SAMPLE_WIDTH
        self._echo = echo_canceller
        self._before_block = before_block
        self._max_pending = max_pending_blocks
        self._consumer: Callable[[bytes], None] | None = None
        self._preroll = PreRollBuffer(INPUT_RATE * pre_roll_ms // 1000 * SAMPLE_WIDTH)
        self._meter = LevelMeter(INPUT_RATE, self._report_level)
        self._muted = False
        self._pending = bytearray()
        self._resampler = StreamResampler(INPUT_RATE, INPUT_RATE)
        self._stream = StreamOwner(
            bus,
            "input",
            device,
            stream_class=sd.RawInputStream,
            what="microphone",
            # The wire rate first (no resampling), then the device's own.
            preferred_rates=(INPUT_RATE,),
            samplerate=samplerate,
            block_ms=block_ms,
            make_callback=self._make_callback,
            on_running=self._stream_running,
            stall_timeout_s=stall_timeout_s,
        )
        # _posted is written only by the PortAudio thread, _handled only by the loop:
        # their difference is the number of blocks waiting, without a lock.
        self._posted = 0
        self._handled = 0
        self._dropped = 0
        self._device_overflows = 0
        self.blocks = 0
        self.handoff = HandoffStats()
        # Standby: _standby, _raw_ring, _raw_rate, _tick_countdown and _posted are shared
        # with the PortAudio thread and change only under _lock.
        self._lock = threading.Lock()
        self._pre_roll_ms = pre_roll_ms
        self._standby_allowed = standby_when_idle
        self._standby = False
        self._talking = False
        self._keep_live = False
        self._raw_ring = PreRollBuffer(0)
        self._raw_rate = 0
        self._tick_countdown = 0
        self._tick_blocks = max(1, _STANDBY_TICK_MS // block_ms)
        self._idle_levels = ChangedLevels(self._report_level)
        # Quiet hand-offs: _hold_quiet, _held and _held_blocks are shared with the PortAudio
        # thread and change only under _lock; the rest is the loop's.
        self._hold_quiet = False
        self._held = bytearray()
        self._held_blocks = 0
        self._held_flagged = False
        self._quiet_hangover_ms: int | None = None
        self._quiet_ms = 0
        self._raw_block_frames = INPUT_RATE * block_ms // 1000
        self._next_block: list[Callable[[], None]] = []
        self._in_use = False
        if echo_canceller is not None:
            # Closed until the stream runs: the canceller only keeps the reference till then.
            echo_canceller.set_microphone_open(False)
            echo_canceller.set_wake_listener(self._echo_woke)

    # -- public API ---------------------------------------------------------------------

    @property
    def overflows(self) -> int:
        """Blocks lost: dropped because the loop fell behind, or overrun in the device."""
        return self._dropped + self._device_overflows

    @property
    def is_running(self) -> bool:
        """Whether the input stream is open and healthy."""
        return self._stream.is_running

    @property
    def device(self) -> AudioDevice | None:
        """The device the stream runs on now."""
        return self._stream.device

    @property
    def device_samplerate(self) -> int:
        """The rate the device runs at (16000 when no resampling is needed)."""
        return self._stream.samplerate

    @property
    def is_muted(self) -> bool:
        """Whether the half-duplex gate is closed."""
        return self._muted

    def set_device(self, name: str) -> None:
        """Move the input to the device called ``name`` (empty: the system default).

        The stream is reopened there in the background; this object, its consumer and its
        gate stay as they are. Then :class:`DeviceSwitched`, or :class:`DeviceFallback`
        first when no device has that name. The current name again does nothing.
        """
        self._stream.set_device(name)

    def devices_changed(self) -> None:
        """The audio devices changed: see :meth:`StreamSupervisor.devices_changed`."""
        self._stream.supervisor.devices_changed()

    @property
    def is_open(self) -> bool:
        """Whether the stream was opened and not closed since (running, or reopening)."""
        return self._stream.is_started

    @property
    def open_error(self) -> str:
        """Why the latest open failed ("" after a successful one)."""
        return self._stream.open_error

    async def start(self, *, retry: bool = True) -> bool:
        """Open the microphone. Device trouble becomes events and retries, never an error.

        Args:
            retry: ``False`` (opening for a talk press): one try; a failure is no event
                and no retry, and :attr:`open_error` says why.

        Returns:
            Whether the stream opened.
        """
        return await self._stream.start(retry=retry)

    async def stop(self) -> None:
        """Close the microphone (what it kept for the pre-roll goes with it)."""
        await self._stream.stop()
        if self._echo is not None:
            self._echo.set_microphone_open(False)
        self._next_block.clear()
        with self._lock:
            self._standby = False
            self._hold_quiet = False
            self._held.clear()
            self._held_blocks = 0
        self._quiet_ms = 0
        self._preroll.clear()
        self._pending.clear()
        if self._in_use:
            self._in_use = False
            self._bus.emit(MicrophoneInUse(False))

    def on_next_block(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once, on the loop, just before the next block reaches the consumer.

        A block from the device, not a standby heartbeat: the first one after a talk press
        is where the person is heard from. :meth:`stop` forgets callbacks not yet called.
        """
        self._next_block.append(callback)

    def cancel_next_block(self, callback: Callable[[], None]) -> None:
        """Forget a callback given to :meth:`on_next_block` that has not been called yet."""
        if callback in self._next_block:
            self._next_block.remove(callback)

    def set_consumer(self, callback: Callable[[bytes], None] | None) -> None:
        """Receive every 16 kHz PCM16 block on the loop; ``None`` stops delivery.

        The callback must be quick (it runs on the loop for every block); it may schedule
        slower work.
        """
        self._consumer = callback

    @property
    def is_standby(self) -> bool:
        """Whether the callback only fills the pre-roll ring (see the module docstring)."""
        return self._standby

    def begin_talk(self) -> bytes:
        """Return the pre-roll: the audio captured just before this moment, oldest first.

        With ``standby_when_idle`` this also starts delivering blocks to the consumer
        (joined seamlessly to the pre-roll) until :meth:`end_talk`.
        """
        self._talking = True
        self._leave_standby()
        return self._preroll.snapshot()

    def end_talk(self) -> None:
        """The talk key is up: the capture may go back to standby (``standby_when_idle``)."""
        self._talking = False

    def keep_live(self, on: bool) -> None:
        """Deliver every block even while nobody talks (hands-free), or stop doing so."""
        self._keep_live = on
        if on:
            self._leave_standby()
        else:
            self._set_hold_quiet(False)

    def hold_quiet(self, hangover_ms: int | None) -> None:
        """Hand quiet blocks to the loop a few at a time (see the module docstring).

        Args:
            hangover_ms: after speech, how long blocks still go one by one; ``None``:
                every block is handed over alone (the default).
        """
        self._quiet_hangover_ms = hangover_ms
        self._quiet_ms = 0
        if hangover_ms is None:
            self._set_hold_quiet(False)

    @property
    def quiet_hangover_ms(self) -> int | None:
        """The hangover given to :meth:`hold_quiet` (``None``: quiet blocks are not held)."""
        return self._quiet_hangover_ms

    @property
    def is_holding_quiet(self) -> bool:
        """Whether the callback holds quiet blocks now."""
        return self._hold_quiet

    def gate(self, muted: bool) -> None:
        """Close (``True``) or open the half-duplex gate.

        While closed the consumer receives silence of the same length, so a listener's
        timing stays intact but nothing the speaker says is heard.
        """
        self._muted = muted

    # -- stream plumbing ----------------------------------------------------------------

    def _stream_running(self, opened: OpenedStream) -> None:
        rate = opened.samplerate
        with self._lock:
            # Leaving standby first: the new stream starts a new, contiguous ring.
            self._standby = False
            self._hold_quiet = False
            self._held.clear()
            self._held_blocks = 0
            self._raw_rate = rate
            self._raw_ring = PreRollBuffer(rate * self._pre_roll_ms // 1000 * SAMPLE_WIDTH)
        if rate != self._resampler.in_rate:
            self._resampler = StreamResampler(rate, INPUT_RATE)
        else:
            self._resampler.reset()
        if not self._in_use:
            # Opened afresh: audio from an earlier stream is no pre-roll for this one.
            self._preroll.clear()
            self._pending.clear()
            self._in_use = True
            self._bus.emit(MicrophoneInUse(True))
        if self._echo is not None:
            self._echo.set_capture_delay(opened.latency_s + self._block_ms / 1000)
            self._echo.set_microphone_open(True)

    def _make_callback(self, loop: asyncio.AbstractEventLoop, generation: int) -> DeviceCallback:
        deliver = self._on_raw_block

        tick = self._on_standby_tick

        def callback(indata: Any, frames: int, time_info: Any, status: Any) -> None:
            # PortAudio's thread: copy and hand over, nothing else. Never block here: the
            # lock is only ever held for a memcpy or a counter update.
            with self._lock:
                if self._standby:
                    # Standby: keep the block for the pre-roll; wake the loop only for the
                    # heartbeat (see the module docstring).
                    self._raw_ring.write(indata)
                    if status:
                        self._device_overflows += 1
                    self._tick_countdown -= 1
                    if self._tick_countdown > 0:
                        return
                    self._tick_countdown = self._tick_blocks
                    payload: tuple[Callable[..., None], tuple[object, ...]] = (
                        tick,
                        (generation,),
                    )
                else:
                    data = bytes(indata)
                    flagged = bool(status)
                    if self._hold_quiet:
                        if not _speech_level(np.frombuffer(data, np.int16)):
                            self._held += data
                            self._held_blocks += 1
                            self._held_flagged = self._held_flagged or flagged
                            if self._held_blocks < QUIET_HANDOFF_BLOCKS:
                                return
                            data = b""  # all of it is in what is held
                        else:
                            # Speech: what is held and this block at once, then one by
                            # one (the loop holds again after the hangover).
                            self._hold_quiet = False
                    if self._held:  # held blocks go first (also after a switch-off)
                        data = bytes(self._held) + data
                        flagged = flagged or self._held_flagged
                        self._held.clear()
                        self._held_blocks = 0
                        self._held_flagged = False
                    if self._posted - self._handled >= self._max_pending:
                        self._dropped += 1
                        return
                    payload = (deliver, (generation, data, flagged, time.perf_counter()))
                self._posted += 1
            try:
                loop.call_soon_threadsafe(payload[0], *payload[1])
            except RuntimeError:  # the loop is closed: we are shutting down
                with self._lock:
                    self._posted -= 1

        return callback

    def _on_raw_block(self, generation: int, data: bytes, flagged: bool, stamp: float) -> None:
        self._handled += 1
        if self._before_block is not None:
            self._before_block()
        if not self._stream.is_current(generation):
            return  # from a stream that has since been replaced
        self.handoff.add(time.perf_counter() - stamp)
        if flagged:
            self._device_overflows += 1
        raw = np.frombuffer(data, dtype=np.int16)
        if self._quiet_hangover_ms is not None:
            self._track_quiet(raw, self._quiet_hangover_ms)
        samples = self._resampler.process(raw)
        pcm = samples.tobytes()
        if self._echo is not None:
            pcm = self._echo.process_capture(pcm)
        self._pending += pcm
        while len(self._pending) >= self._block_bytes:
            block = bytes(self._pending[: self._block_bytes])
            del self._pending[: self._block_bytes]
            self._deliver(block)
        self._maybe_enter_standby()

    def _deliver(self, block: bytes) -> None:
        if self._muted:
            block = bytes(len(block))
            self._meter.feed_silence(len(block) // SAMPLE_WIDTH)
        else:
            self._meter.feed(np.frombuffer(block, dtype=np.int16))
        self._preroll.write(block)
        self.blocks += 1
        if self._next_block:
            waiting, self._next_block = self._next_block, []
            for callback in waiting:
                try:
                    callback()
                except Exception:  # noqa: BLE001 - logged with its traceback
                    _log.exception("the next-block callback %r failed", callback)
        consumer = self._consumer
        if consumer is not None:
            # One broken listener must not stop the microphone for everyone.
            try:
                consumer(block)
            except Exception:  # noqa: BLE001 - logged with its traceback
                _log.exception("the capture consumer %r failed", consumer)

    def _report_level(self, dbfs: float) -> None:
        self._bus.emit(AudioLevel("input", dbfs))

    # -- quiet hand-offs ----------------------------------------------------------------

    def _track_quiet(self, raw: np.ndarray, hangover_ms: int) -> None:
        """Count the quiet since the last speech; hold quiet blocks once it is long enough."""
        step = self._raw_block_frames * max(1, self._stream.samplerate) // INPUT_RATE
        for start in range(0, len(raw), max(1, step)):
            if _speech_level(raw[start : start + step]):
                self._quiet_ms = 0
            else:
                self._quiet_ms += self._block_ms
        echo = self._echo
        self._set_hold_quiet(
            self._keep_live
            and self._quiet_ms >= hangover_ms
            and (echo is None or not echo.enabled or echo.is_idle)
        )

    def _echo_woke(self) -> None:
        """Something audible is played: the canceller needs every frame in time from now."""
        self._set_hold_quiet(False)
        self._leave_standby()

    def _set_hold_quiet(self, on: bool) -> None:
        if on != self._hold_quiet:
            with self._lock:
                self._hold_quiet = on

    # -- standby ------------------------------------------------------------------------

    def _standby_wanted(self) -> bool:
        if not self._standby_allowed or self._talking or self._keep_live:
            return False
        echo = self._echo
        # An echo canceller with something to cancel needs every capture frame in time.
        return echo is None or not echo.enabled or echo.is_idle

    def _maybe_enter_standby(self) -> None:
        if self._standby or not self._standby_wanted():
            return
        with self._lock:
            # Only with nothing in flight: blocks still queued on the loop are older than
            # anything the ring will hold, and must not be processed after it.
            if self._posted != self._handled or self._raw_rate == 0:
                return
            self._raw_ring.clear()
            self._tick_countdown = self._tick_blocks
            self._standby = True
        self._idle_levels.reset()
        _log.debug("microphone standby: nobody talks, nothing to cancel")

    def _leave_standby(self) -> None:
        """Hand-offs again; the audio kept meanwhile becomes the pre-roll (on the loop)."""
        if not self._standby:
            return
        with self._lock:
            self._standby = False
            kept = self._raw_ring.snapshot()
            rate = self._raw_rate
            self._raw_ring.clear()
        _log.debug(
            "microphone live: %d ms kept for the pre-roll", len(kept) * 1000 // SAMPLE_WIDTH // rate
        )
        if rate != self._resampler.in_rate:
            return  # the stream is being replaced; its audio is not worth keeping
        # The kept audio does not continue what was processed before standby: restart the
        # resampler and the block cutter on it. The live blocks continue it seamlessly.
        self._resampler.reset()
        self._pending.clear()
        if not kept:
            return
        pcm = self._resampler.process(np.frombuffer(kept, dtype=np.int16)).tobytes()
        if self._echo is not None:
            pcm = self._echo.process_capture(pcm)
        usable = len(pcm) - len(pcm) % self._block_bytes
        self._preroll.write(pcm[:usable])
        self._pending += pcm[usable:]

    def _on_standby_tick(self, generation: int) -> None:
        with self._lock:
            self._handled += 1
            newest = self._raw_ring.newest(self._raw_rate * _STANDBY_TICK_MS // 1000 * SAMPLE_WIDTH)
        if not self._stream.is_current(generation):
            return
        if not self._standby:
            return  # woken since: the live blocks meter themselves
        if self._muted:
            self._idle_levels(SILENCE_DBFS)
        else:
            self._idle_levels(rms_dbfs(np.frombuffer(newest, dtype=np.int16)))
