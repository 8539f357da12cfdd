"""What the window says about the microphone itself: it could not be opened, or it is Bluetooth.

* A talk press whose microphone could not be opened started no turn: a banner says so, with
  the audio system's reason and the way to the device settings. The next press that is
  heard takes it away.
* A Bluetooth headset's microphone switches the headset to its call profile while it
  records (music muffled, media paused; USERS.md 17): said once per run, with the advice
  (the built-in microphone for input, the headset for sound) and "Don't show again", which
  the settings keep (``bluetooth_mic_hint``).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Final

from PySide6.QtCore import QObject, Signal

from sammy_desktop.config.store import SettingsError
from sammy_desktop.ui.settings.sections import SettingsSection

if TYPE_CHECKING:
    from sammy_desktop.audio.events import (
        BluetoothMicrophone,
        MicrophoneListening,
        MicrophoneUnavailable,
    )
    from sammy_desktop.config import Settings
    from sammy_desktop.ui.banners import BannerArea
    from sammy_desktop.ui.settings_state import SettingsState

__all__ = ["BLUETOOTH_BANNER", "MIC_FAILED_BANNER", "MicNotices"]

_log = logging.getLogger(__name__)

MIC_FAILED_BANNER: Final = "microphone-failed"
BLUETOOTH_BANNER: Final = "bluetooth-microphone"


class MicNotices(QObject):
    """Banners for a microphone that failed a press, and for a Bluetooth headset's.

    Args:
        banners: where the banners go.
        settings: the settings in use (whether the Bluetooth hint is still wanted).
        settings_state: saves "Don't show again"; without it the button is not offered.
        parent: the Qt parent.
    """

    settings_requested = Signal(str)
    """The person asked for a settings section."""

    def __init__(
        self,
        banners: BannerArea,
        *,
        settings: Settings,
        settings_state: SettingsState | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._banners = banners
        self._settings = settings_state.settings if settings_state is not None else settings
        self._settings_state = settings_state
        self._bluetooth_shown = False

    def on_microphone_unavailable(self, event: MicrophoneUnavailable) -> None:
        """A press found a microphone that would not open: no turn, and why."""
        self._banners.show_banner(
            MIC_FAILED_BANNER,
            "error",
            f"The microphone could not be opened: {event.reason}. Nothing was sent; "
            "check the microphone, or choose another one.",
            actions=[("Choose a device", self._open_devices)],
        )

    def on_microphone_listening(self, _event: MicrophoneListening) -> None:
        """The microphone hears again: the failure is over."""
        self._banners.remove(MIC_FAILED_BANNER)

    def on_bluetooth_microphone(self, event: BluetoothMicrophone) -> None:
        """Once per run, unless turned off: what a headset's microphone costs, and the fix."""
        if self._bluetooth_shown or not self._settings.bluetooth_mic_hint:
            return
        self._bluetooth_shown = True
        actions = [("Choose a microphone", self._open_devices)]
        if self._settings_state is not None:
            actions.append(("Don't show again", self._never_again))
        self._banners.show_banner(
            BLUETOOTH_BANNER,
            "info",
            f"Sammy is listening through “{event.device}”, a Bluetooth headset: using its "
            "microphone lowers the headset's sound while you talk. Pick the built-in "
            "microphone in Settings and keep the headset for sound.",
            actions=actions,
        )

    def _open_devices(self) -> None:
        self.settings_requested.emit(SettingsSection.DEVICES)

    def _never_again(self) -> None:
        self._banners.remove(BLUETOOTH_BANNER)
        if self._settings_state is None:
            return
        try:
            self._settings_state.update(bluetooth_mic_hint=False)
        except SettingsError as exc:  # the file could not be written: say so in the log
            _log.warning("'Don't show again' could not be saved: %s", exc)
