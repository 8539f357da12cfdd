"""Device listing, fallback to the default for a missing device, and recovery."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sammy_desktop.audio import (
    AudioCapture,
    AudioLevel,
    AudioPlayback,
    DeviceFallback,
    PlaybackDrained,
    PlaybackStarted,
    StreamError,
    StreamRecovered,
    list_devices,
    resolve_device,
)
from sammy_desktop.audio.devices import portaudio_devices
from sammy_desktop.eventbus import EventBus
from sammy_desktop.wire_audio import OUTPUT_RATE
from tests.audio.conftest import BlockCollector
from tests.audio.signals import tone
from tests.audio.virtual_devices import (
    MIC,
    SPEAKER,
    load_virtual_devices,
    pactl,
    unload_virtual_devices,
)
from tests.helpers.events import EventLog

pytestmark = pytest.mark.audio


def test_devices_are_listed_with_their_properties() -> None:
    devices = list_devices()
    assert devices, "no device is listed"
    default_in = [d for d in devices if d.is_default_input]
    default_out = [d for d in devices if d.is_default_output]
    assert [d.name for d in default_in] == [MIC]
    assert [d.name for d in default_out] == [SPEAKER]
    assert default_in[0].max_input_channels > 0
    assert default_out[0].max_output_channels > 0
    assert all(d.default_samplerate > 0 for d in devices)
    # PortAudio itself sees the sound server through ALSA's plugins only.
    names = {d.name for d in portaudio_devices()}
    assert {"pulse", "default"} <= names
    assert all(d.host_api == "ALSA" for d in portaudio_devices())


def test_a_saved_name_resolves_exactly_then_ignoring_case() -> None:
    assert resolve_device(SPEAKER, "output").device.name == SPEAKER
    choice = resolve_device(f"  {MIC.upper()} ", "input")
    assert choice.device.name == MIC
    assert choice.fallback_reason == ""
    default = resolve_device("", "input")
    assert default.device.is_default_input
    assert default.fallback_reason == ""


def test_a_missing_device_falls_back_to_the_default_with_a_reason() -> None:
    choice = resolve_device("USB Headset (gone)", "output")
    assert choice.device.is_default_output
    assert "“USB Headset (gone)” was not found" in choice.fallback_reason
    assert "speaker" in choice.fallback_reason


@pytest.mark.usefixtures("running_sinks")
async def test_streams_on_a_missing_device_run_on_the_default_and_say_so(
    bus: EventBus, events: EventLog
) -> None:
    collector = BlockCollector()
    capture = AudioCapture(bus, device="No Such Microphone")
    playback = AudioPlayback(bus, device="No Such Speaker")
    capture.set_consumer(collector)
    await capture.start()
    await playback.start()
    try:
        await collector.wait_for_blocks(5)
    finally:
        await playback.stop()
        await capture.stop()
    fallbacks = {e.direction: e for e in events.of(DeviceFallback)}
    assert fallbacks["input"].requested == "No Such Microphone"
    assert fallbacks["input"].used == resolve_device("", "input").device.label
    assert fallbacks["output"].requested == "No Such Speaker"
    assert "not found" in fallbacks["output"].reason
    assert not events.of(StreamError)


@pytest.fixture
def restore_virtual_devices() -> Iterator[list[tuple[str, str]]]:
    """Hands the test a list to fill with unloaded modules; loads them back at the end."""
    unloaded: list[tuple[str, str]] = []
    yield unloaded
    if unloaded:
        load_virtual_devices(unloaded)


async def test_streams_recover_when_the_sound_server_loses_and_regains_its_devices(
    bus: EventBus, events: EventLog, restore_virtual_devices: list[tuple[str, str]]
) -> None:
    collector = BlockCollector()
    capture = AudioCapture(bus)
    playback = AudioPlayback(bus)
    capture.set_consumer(collector)
    await capture.start()
    await playback.start()
    try:
        await collector.wait_for_blocks(3)
        playback.play(tone(440.0, 5.0, rate=OUTPUT_RATE).tobytes())
        await events.wait_for(PlaybackStarted)
        restore_virtual_devices.extend(unload_virtual_devices())
        output_error = await events.wait_for(StreamError, within_s=10)
        while {e.direction for e in events.of(StreamError)} != {"input", "output"}:
            await events.wait_for(StreamError, count=len(events.of(StreamError)) + 1)
        assert output_error.reason
        # The speech that was playing is given up, and the listener hears so.
        drained = await events.wait_for(PlaybackDrained)
        assert drained.interrupted
        assert not playback.is_running
        playback.play(tone(440.0, 0.1, rate=OUTPUT_RATE).tobytes())
        assert playback.dropped_while_down == 1

        load_virtual_devices(restore_virtual_devices)
        restore_virtual_devices.clear()
        while {e.direction for e in events.of(StreamRecovered)} != {"input", "output"}:
            await events.wait_for(
                StreamRecovered, count=len(events.of(StreamRecovered)) + 1, within_s=15
            )
        blocks = len(collector.blocks)
        await collector.wait_for_blocks(blocks + 5)
    finally:
        await playback.stop()
        await capture.stop()
    assert {e.device for e in events.of(StreamRecovered)} == {MIC, SPEAKER}
    assert capture.is_running is False


async def test_a_stream_the_device_refuses_is_an_event_and_retries_not_a_crash(
    bus: EventBus, events: EventLog
) -> None:
    capture = AudioCapture(bus, samplerate=3_000_000)  # no device runs at 3 MHz
    await capture.start()
    try:
        error = await events.wait_for(StreamError)
        assert error.direction == "input"
        assert "could not open the device" in error.reason
        assert not capture.is_running
        # start() returned normally: the app goes on without a microphone.
    finally:
        await capture.stop()
    assert not events.of(StreamRecovered)


async def test_a_stream_that_stops_delivering_is_reopened_when_it_comes_back(
    bus: EventBus, events: EventLog
) -> None:
    playback = AudioPlayback(bus, stall_timeout_s=0.5)
    await playback.start()
    suspended = False
    try:
        await events.wait_for(AudioLevel)  # callbacks are flowing
        # A suspended sink keeps the stream "active" but stops calling back: a wedged
        # device as far as PortAudio can tell.
        await pactl("suspend-sink", SPEAKER, "1")
        suspended = True
        error = await events.wait_for(StreamError)
        assert error.direction == "output"
        assert "no audio from the device" in error.reason
        await pactl("suspend-sink", SPEAKER, "0")
        suspended = False
        recovered = await events.wait_for(StreamRecovered)
    finally:
        if suspended:
            await pactl("suspend-sink", SPEAKER, "0")
        await playback.stop()
    assert recovered.direction == "output"
    assert len(events.of(StreamError)) == 1, "one outage is one event"
