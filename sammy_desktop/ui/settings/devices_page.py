"""Settings > Audio devices: the microphone and the speaker, a live mic meter, a test tone.

The device lists come from PortAudio, which can take a moment (and hang on a broken audio
stack), so they are read in a worker thread: when the page is first opened and on
"Refresh devices". A device saved in the settings but not plugged in stays in its list,
marked "(not found)", so choosing nothing never silently changes the setting. Under the
devices, the sound switches (echo cancellation, the listening sounds).
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
        self.cards["input_device"].add_below(self._meter_row())
        self.add_card("output_device", self.output_combo)

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

    def _meter_row(self) -> QWidget:
        meter_row = QWidget()
        meter_layout = QHBoxLayout(meter_row)
        meter_layout.setContentsMargins(2, 4, 2, 0)
        meter_label = QLabel("Level")
        meter_label.setObjectName("meterLabel")
        meter_layout.addWidget(meter_label)
        meter_layout.addWidget(self.mic_meter, 1)
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
            self.devices_note.setText(f"{len(devices)} devices found.")
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
            combo.addItem("System default", "")
            names = [d.name for d in devices if d.supports(direction)]  # type: ignore[arg-type]
            for name in dict.fromkeys(names):
                combo.addItem(name, name)
            if current and current not in names:
                combo.addItem(f"{current} (not found)", current)
            combo.setCurrentIndex(max(0, combo.findData(current)))
