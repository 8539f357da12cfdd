"""Settings > Audio devices: the microphone and the speaker, their live meters, a test tone.

The device lists come from the audio layer (the sound server's own devices on Linux, by
their human names; PortAudio's elsewhere), which can take a moment (and hang on a broken
audio stack), so they are read in a worker thread: when the page is first opened, on
"Refresh devices", and when a device is plugged in or goes (:meth:`on_devices_changed`).
A device saved in the settings but not plugged in stays in its list, marked "(not
connected)", so choosing nothing never silently changes the setting; no device at all says
what to check. The speaker's meter moves while the test tone plays, so the person sees it
played even with the sound turned down. Under the devices, the sound switches (echo
cancellation, the listening sounds).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QWidget

from sammy_desktop.ui.painted import LevelMeter
from sammy_desktop.ui.settings.page import FieldsPage
from sammy_desktop.ui.settings.sections import SettingsSection

if TYPE_CHECKING:
    from sammy_desktop.audio.devices import AudioDevice
    from sammy_desktop.ui.assets import Assets
    from sammy_desktop.ui.controls import UiTasks
    from sammy_desktop.ui.settings_state import SettingsState
    from sammy_desktop.ui.theme import Palette

__all__ = ["DevicesPage"]

_log = logging.getLogger(__name__)


class DevicesPage(FieldsPage):
    """The device lists, the mic meter, the test tone and the sound switches.

    Args:
        state: the live settings.
        tasks: runs the device listing in a worker thread.
        assets: the icons of the refresh and test tone buttons.
        list_devices: lists audio devices (``sammy_desktop.audio.devices.list_devices``);
            None when audio is not available.
        on_test_tone: plays the test tone through the chosen speaker; None disables it.
        parent: the Qt parent.
    """

    def __init__(
        self,
        state: SettingsState,
        tasks: UiTasks,
        assets: Assets,
        *,
        list_devices: Callable[[], Sequence[AudioDevice]] | None = None,
        on_test_tone: Callable[[], None] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(SettingsSection.DEVICES, state, parent)
        self._tasks = tasks
        self._assets = assets
        self._list_devices = list_devices
        self.input_combo = QComboBox()
        self.output_combo = QComboBox()
        self.input_combo.activated.connect(
            lambda _i: self.apply("input_device", self.input_combo.currentData() or "")
        )
        self.output_combo.activated.connect(
            lambda _i: self.apply("output_device", self.output_combo.currentData() or "")
        )
        self.add_card("input_device", self.input_combo)
        self.mic_meter = LevelMeter()
        """The microphone's level, live (the window feeds it the bridge's input level)."""
        self.mic_meter.setAccessibleName("Microphone level")
        self.cards["input_device"].add_below(self._meter_row(self.mic_meter))
        self.add_card("output_device", self.output_combo)
        self.speaker_meter = LevelMeter()
        """What the speaker plays, live (the test tone moves it)."""
        self.speaker_meter.setAccessibleName("Speaker level")
        self.cards["output_device"].add_below(self._meter_row(self.speaker_meter))

        row = QHBoxLayout()
        self.refresh_button = QPushButton("Refresh devices")
        self.refresh_button.clicked.connect(self.refresh_devices)
        self.test_tone_button = QPushButton("Play a test tone")
        self.test_tone_button.setEnabled(on_test_tone is not None)
        if on_test_tone is not None:
            self.test_tone_button.clicked.connect(on_test_tone)
        row.addWidget(self.refresh_button)
        row.addWidget(self.test_tone_button)
        row.addStretch(1)
        self.body.addLayout(row)
        self.devices_note = self.add_note("")
        self._fill_devices([])
        self.add_group_title("Sound")
        for name in ("echo_cancellation", "earcons"):
            self.add_field(name)

    @staticmethod
    def _meter_row(meter: LevelMeter) -> QWidget:
        meter_row = QWidget()
        meter_layout = QHBoxLayout(meter_row)
        meter_layout.setContentsMargins(2, 4, 2, 0)
        meter_label = QLabel("Level")
        meter_label.setObjectName("meterLabel")
        meter_layout.addWidget(meter_label)
        meter_layout.addWidget(meter, 1)
        return meter_row

    @property
    def device_names_loaded(self) -> bool:
        """Whether the lists hold the devices (not only "System default")."""
        return self.input_combo.count() > 1 or self.output_combo.count() > 1

    def refresh_devices(self) -> None:
        """List the audio devices again (in a worker thread: PortAudio can be slow)."""
        if self._list_devices is None:
            self.devices_note.setText("Device listing is not available.")
            return
        self.refresh_button.setEnabled(False)
        self.devices_note.setText("Looking for devices…")
        self._tasks.run(self._load_devices(self._list_devices), "ui-list-devices")

    def on_devices_changed(self) -> None:
        """A device was plugged in or went: list them again, if they were listed."""
        if self.device_names_loaded or self.isVisible():
            self.refresh_devices()

    def on_palette_changed(self, palette: Palette) -> None:
        """The buttons' icons in the theme's colours."""
        self.refresh_button.setIcon(self._assets.icon("refresh", palette.text, 16))
        self.test_tone_button.setIcon(self._assets.icon("speaker", palette.text, 16))

    async def _load_devices(self, list_devices: Callable[[], Sequence[AudioDevice]]) -> None:
        try:
            devices = await asyncio.to_thread(list_devices)
        except Exception as exc:  # noqa: BLE001 - a broken audio stack must not break settings
            _log.warning("could not list audio devices: %s", exc)
            self.devices_note.setText(f"Could not list the audio devices: {exc}")
            devices = []
        else:
            self.devices_note.setText(_found_note(devices))
        finally:
            self.refresh_button.setEnabled(True)
        self._fill_devices(devices)

    def _fill_devices(self, devices: Sequence[AudioDevice]) -> None:
        settings = self.settings
        for combo, direction, current in (
            (self.input_combo, "input", settings.input_device),
            (self.output_combo, "output", settings.output_device),
        ):
            combo.clear()
            usable = [d for d in devices if d.supports(direction)]  # type: ignore[arg-type]
            default = next((d for d in usable if d.is_default_input or d.is_default_output), None)
            # Which device that is now; the list is made again when the default moves.
            combo.addItem(
                "System default" if default is None else f"System default ({default.label})", ""
            )
            names = [d.name for d in usable]
            for device in {d.name: d for d in usable}.values():
                combo.addItem(device.label, device.name)
            if current and current not in names:
                combo.addItem(f"{current} (not connected)", current)
            combo.setCurrentIndex(max(0, combo.findData(current)))


_CHECK = (
    "Check that it is plugged in and switched on, and that the system's sound settings "
    "show it (on Linux the sound server, PulseAudio or PipeWire, must be running); then "
    "press Refresh devices."
)


def _found_note(devices: Sequence[AudioDevice]) -> str:
    """What the listing found, in words, and what to check when something is missing."""
    inputs = sum(d.supports("input") for d in devices)
    outputs = sum(d.supports("output") for d in devices)
    if not inputs and not outputs:
        return f"No microphone or speaker found. {_CHECK}"
    if not inputs:
        return f"{_count(outputs, 'speaker')} found, but no microphone. {_CHECK}"
    if not outputs:
        return f"{_count(inputs, 'microphone')} found, but no speaker. {_CHECK}"
    return f"{_count(inputs, 'microphone')} and {_count(outputs, 'speaker')} found."


def _count(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"
