"""The sound server's own devices: listed by their human names, chosen, followed, watched.

Against the private PulseAudio of ``scripts/with-test-services.sh``. Which sink or source a
stream of this process is attached to is the server's own answer (pulsectl), not ours.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pulsectl
import pytest

from sammy_desktop.audio import (
    AudioCapture,
    AudioDevicesChanged,
    AudioEngine,
    AudioPlayback,
    DeviceFallback,
    DeviceSwitched,
    list_devices,
    resolve_device,
)
from sammy_desktop.audio.devices import portaudio_devices
from sammy_desktop.audio.sound_server import server_devices
from sammy_desktop.config.settings import Settings
from sammy_desktop.eventbus import EventBus
from tests.audio.conftest import BlockCollector, until
from tests.audio.virtual_devices import MIC, SPEAKER
from tests.helpers.events import EventLog

pytestmark = pytest.mark.audio

OTHER_SPEAKER = "sammy_other_speaker"
OTHER_SPEAKER_NAME = "Sammy Other Speaker"
OTHER_MIC = "sammy_other_mic"
OTHER_MIC_NAME = "Sammy Other Mic"


def _pactl(*args: str) -> str:
    return subprocess.run(
        ["pactl", *args], check=True, capture_output=True, text=True, timeout=10
    ).stdout.strip()


@dataclass
class OtherDevices:
    """A second speaker and microphone on the server, as a USB headset would bring."""

    modules: list[str]

    def plug_in(self) -> None:
        sink = _pactl(
            "load-module",
            "module-null-sink",
            f"sink_name={OTHER_SPEAKER}",
            "rate=48000",
            f"sink_properties=\"device.description='{OTHER_SPEAKER_NAME}'\"",
        )
        source = _pactl(
            "load-module",
            "module-remap-source",
            f"source_name={OTHER_MIC}",
            f"master={OTHER_SPEAKER}.monitor",
            f"source_properties=\"device.description='{OTHER_MIC_NAME}'\"",
        )
        self.modules += [sink, source]

    def unplug(self) -> None:
        for module in reversed(self.modules):
            _pactl("unload-module", module)
        self.modules.clear()


@pytest.fixture
def other_devices() -> Iterator[OtherDevices]:
    devices = OtherDevices([])
    devices.plug_in()
    try:
        yield devices
    finally:
        devices.unplug()
        _pactl("set-default-sink", SPEAKER)
        _pactl("set-default-source", MIC)


def _streams_of_this_process() -> tuple[list[str], list[str]]:
    """The sinks this process plays to and the sources it records from, by their names."""
    pid = str(os.getpid())
    with pulsectl.Pulse("sammy-test-streams") as pulse:
        sinks = {sink.index: sink.name for sink in pulse.sink_list()}
        sources = {source.index: source.name for source in pulse.source_list()}
        playing = [
            sinks.get(stream.sink, "?")
            for stream in pulse.sink_input_list()
            if stream.proplist.get("application.process.id") == pid
        ]
        recording = [
            sources.get(stream.source, "?")
            for stream in pulse.source_output_list()
            if stream.proplist.get("application.process.id") == pid
        ]
    return playing, recording


def test_the_servers_devices_are_listed_by_their_human_names() -> None:
    started = time.monotonic()
    devices = list_devices()
    # pulsectl's own connect(timeout=1) would wait the whole second, every time.
    assert time.monotonic() - started < 0.5

    by_name = {d.name: d for d in devices}
    assert by_name[SPEAKER].label == "SammyVirtualSpeaker"
    assert by_name[SPEAKER].is_default_output
    assert by_name[MIC].label == "SammyVirtualMic"
    assert by_name[MIC].is_default_input
    assert by_name[MIC].supports("input") and not by_name[MIC].supports("output")
    # What PortAudio alone would offer, and the monitors of sinks, are not choices.
    assert not {"pulse", "default"} & set(by_name)
    assert not any(name.endswith(".monitor") for name in by_name)
    assert all(d.host_api.startswith("pulseaudio ") for d in devices)


def test_a_device_is_found_by_its_human_name_and_old_names_mean_the_default() -> None:
    assert resolve_device("sammyvirtualspeaker", "output").device.name == SPEAKER
    for old in ("pulse", "default"):
        choice = resolve_device(old, "input")
        assert (choice.device.name, choice.fallback_reason) == (MIC, "")
        # The default is not pinned: the stream follows the server's default.
        assert choice.device.server_name == ""


async def test_the_chosen_speaker_and_microphone_get_the_streams(
    bus: EventBus, other_devices: OtherDevices
) -> None:
    collector = BlockCollector()
    playback = AudioPlayback(bus, device=OTHER_SPEAKER)
    capture = AudioCapture(bus, device=OTHER_MIC)
    capture.set_consumer(collector)
    await playback.start()
    await capture.start()
    try:
        await collector.wait_for_blocks(3)
        playing, recording = _streams_of_this_process()
        assert capture.device is not None
        assert capture.device.label == OTHER_MIC_NAME
    finally:
        await capture.stop()
        await playback.stop()

    assert playing == [OTHER_SPEAKER]
    assert recording == [OTHER_MIC]
    # The choice is not left in the environment for anything the app starts.
    assert "PULSE_SINK" not in os.environ
    assert "PULSE_SOURCE" not in os.environ


async def test_the_system_default_is_followed_when_it_changes(
    bus: EventBus, other_devices: OtherDevices
) -> None:
    playback = AudioPlayback(bus, device="")
    await playback.start()
    try:
        assert _streams_of_this_process()[0] == [SPEAKER]
        _pactl("set-default-sink", OTHER_SPEAKER)
        # The server moves it; it has no event this test could wait on.
        await until(lambda: _streams_of_this_process()[0] == [OTHER_SPEAKER])
    finally:
        await playback.stop()


async def test_a_device_that_goes_falls_back_with_a_notice_and_one_that_comes_back_is_used(
    bus: EventBus, events: EventLog, other_devices: OtherDevices
) -> None:
    engine = AudioEngine(bus, Settings(output_device=OTHER_SPEAKER))
    await engine.start()
    try:
        await until(lambda: engine.device_watch.connected.is_set())
        assert _streams_of_this_process()[0] == [OTHER_SPEAKER]

        other_devices.unplug()
        fallback = await events.wait_for(DeviceFallback, within_s=10)
        await events.wait_for(AudioDevicesChanged)
        await events.wait_for(DeviceSwitched)
        assert _streams_of_this_process()[0] == [SPEAKER]

        other_devices.plug_in()
        back = await events.wait_for(
            DeviceSwitched, lambda e: e.device == OTHER_SPEAKER, within_s=10
        )
        playing = _streams_of_this_process()[0]
    finally:
        await engine.stop()

    assert fallback.direction == "output"
    assert fallback.requested == OTHER_SPEAKER
    assert fallback.used == "SammyVirtualSpeaker"
    assert OTHER_SPEAKER_NAME in fallback.reason
    assert back.requested == OTHER_SPEAKER
    assert playing == [OTHER_SPEAKER]
    assert len(events.of(DeviceFallback)) == 1


async def test_a_device_plugged_in_is_announced(bus: EventBus, events: EventLog) -> None:
    engine = AudioEngine(bus)
    await engine.start()
    devices = OtherDevices([])
    try:
        await until(lambda: engine.device_watch.connected.is_set())
        devices.plug_in()
        await events.wait_for(AudioDevicesChanged, within_s=5)
        assert OTHER_SPEAKER in {d.name for d in list_devices()}
    finally:
        devices.unplug()
        await engine.stop()
    assert not engine.device_watch.connected.is_set()


def test_without_a_sound_server_the_portaudio_list_stays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PULSE_SERVER", "unix:/nonexistent/sammy-no-server")
    assert server_devices() is None
    assert [d.name for d in list_devices()] == [d.name for d in portaudio_devices()]
    assert {"pulse", "default"} <= {d.name for d in list_devices()}


def test_off_linux_the_portaudio_list_stays(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    assert [d.name for d in list_devices()] == [d.name for d in portaudio_devices()]
