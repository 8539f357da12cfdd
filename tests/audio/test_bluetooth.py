"""The Bluetooth microphone hint: asked of the private PulseAudio through pulsectl."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest

from sammy_desktop.audio import AudioEngine
from sammy_desktop.audio.bluetooth import bluetooth_input, looks_bluetooth, source_is_bluetooth
from sammy_desktop.audio.events import BluetoothMicrophone, MicrophoneListening
from sammy_desktop.config.settings import MicBetweenTurns
from sammy_desktop.eventbus import EventBus
from tests.audio.virtual_devices import MIC, wait_capture_streams
from tests.helpers.events import EventLog


def _pactl(*args: str) -> str:
    return subprocess.run(
        ["pactl", *args], check=True, capture_output=True, text=True, timeout=10
    ).stdout.strip()


@pytest.fixture
def headset_is_the_default_input() -> Iterator[str]:
    """A virtual source that says what a BlueZ headset says, as the default input."""
    module = _pactl(
        "load-module",
        "module-null-sink",
        "sink_name=bluez_sink.test",
        "sink_properties=device.bus=bluetooth",
    )
    remap = _pactl(
        "load-module",
        "module-remap-source",
        "source_name=bluez_input.00_11_22_33_44_55",
        "master=bluez_sink.test.monitor",
        "source_properties='device.bus=bluetooth api.bluez5.profile=headset-head-unit "
        "device.description=WH-1000XM4'",
    )
    _pactl("set-default-source", "bluez_input.00_11_22_33_44_55")
    try:
        yield "WH-1000XM4"
    finally:
        _pactl("set-default-source", MIC)
        _pactl("unload-module", remap)
        _pactl("unload-module", module)


def test_names_and_properties_headsets_go_by() -> None:
    assert looks_bluetooth("AirPods Pro")
    assert looks_bluetooth("Jabra Headset")
    assert looks_bluetooth("WH-1000XM4 Hands-Free")
    assert not looks_bluetooth("Built-in Audio Analog Stereo")
    assert source_is_bluetooth("bluez_input.AA_BB", {})
    assert source_is_bluetooth("x", {"device.bus": "bluetooth"})
    assert source_is_bluetooth("x", {"api.bluez5.address": "AA:BB"})
    assert not source_is_bluetooth("alsa_input.pci", {"device.bus": "pci"})


@pytest.mark.audio
def test_the_virtual_microphone_is_not_bluetooth() -> None:
    assert bluetooth_input("default") is None
    assert bluetooth_input("pulse") is None


@pytest.mark.audio
def test_a_bluetooth_default_input_is_found(headset_is_the_default_input: str) -> None:
    assert bluetooth_input("default") == headset_is_the_default_input


def test_without_a_sound_server_it_only_looks_at_the_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PULSE_SERVER", "unix:/nonexistent/sammy-no-server")
    assert bluetooth_input("default") is None
    assert bluetooth_input("AirPods") == "AirPods"


@pytest.mark.audio
@pytest.mark.usefixtures("running_sinks")
async def test_opening_a_bluetooth_microphone_says_so_once(
    headset_is_the_default_input: str,
) -> None:
    bus = EventBus()
    events = EventLog(bus)
    engine = AudioEngine(bus, mic_between_turns=MicBetweenTurns.CLOSE)
    engine.set_consumer(lambda _block: None)
    await engine.start()
    try:
        for turn in (1, 2):
            engine.begin_talk(lambda _pre_roll: True)
            await events.wait_for(MicrophoneListening, count=turn)
            if turn == 1:
                found = await events.wait_for(BluetoothMicrophone)
                assert found.device == headset_is_the_default_input
            engine.end_talk()
            await wait_capture_streams(0)
    finally:
        await engine.stop()
    assert len(events.of(BluetoothMicrophone)) == 1
