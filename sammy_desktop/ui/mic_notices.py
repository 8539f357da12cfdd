"""What the window says about the microphone itself: it does not work, or it is Bluetooth.

* A microphone that does not work has one banner, whichever way that showed, with the audio
  system's reason and the way to the device settings. A talk press whose microphone could
  not be opened started no turn: the banner says so, and what to do. A microphone stream
  that failed (unplugged, no device) and is being reopened says "Trying again…", unless a
  failed press said more already. With no microphone at all both happen, and the window
  showed two banners saying nearly the same. The banner goes once the microphone is heard
  or works again; "Trying again…" also once its stream is closed (nothing tries any more,
  and the next press says so if it still fails).
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
        MicrophoneInUse,
        MicrophoneListening,
        MicrophoneUnavailable,
        StreamError,
        StreamRecovered,
    )
    from sammy_desktop.config import Settings
    from sammy_desktop.ui.banners import BannerArea
    from sammy_desktop.ui.settings_state import SettingsState

__all__ = ["BLUETOOTH_BANNER", "MIC_FAILED_BANNER", "MicNotices"]

_log = logging.getLogger(__name__)

MIC_FAILED_BANNER: Final = "microphone-failed"
"""The one banner for a microphone that does not work."""
_PRESS_FAILED: Final = "press"
_TRYING_AGAIN: Final = "stream"
BLUETOOTH_BANNER: Final = "bluetooth-microphone"


class MicNotices(QObject):
    """Banners for a microphone that does not work, and for a Bluetooth headset's.

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
        # Which failure the microphone's banner tells: a press that failed, or trying again.
        self._failure: str | None = None

    def on_microphone_unavailable(self, event: MicrophoneUnavailable) -> None:
        """A press found a microphone that would not open: no turn, and why."""
        self._show_failure(
            _PRESS_FAILED,
            f"The microphone could not be opened: {event.reason}. Nothing was sent; "
            "check the microphone, or choose another one.",
        )

    def on_stream_error(self, event: StreamError) -> None:
        """The microphone stopped working or could not be opened; it is being reopened.

        A failed press's banner already says the microphone does not work, and what to do:
        it stays.
        """
        if event.direction != "input" or self._shown_failure() == _PRESS_FAILED:
            return
        self._show_failure(
            _TRYING_AGAIN, f"The microphone is not working: {event.reason}. Trying again…"
        )

    def on_stream_recovered(self, event: StreamRecovered) -> None:
        """The microphone works again: the failure is over."""
        if event.direction == "input":
            self._end_failure()

    def on_microphone_in_use(self, event: MicrophoneInUse) -> None:
        """The microphone's stream closed: nothing is "trying again" any more.

        The next talk press opens it afresh and says so if it still fails.
        """
        if not event.in_use and self._shown_failure() == _TRYING_AGAIN:
            self._end_failure()

    def on_microphone_listening(self, _event: MicrophoneListening) -> None:
        """The microphone hears again: the failure is over."""
        self._end_failure()

    def _shown_failure(self) -> str | None:
        """Which failure the banner tells, if it is still shown (the person may close it)."""
        if self._banners.banner(MIC_FAILED_BANNER) is None:
            self._failure = None
        return self._failure

    def _show_failure(self, failure: str, text: str) -> None:
        self._failure = failure
        self._banners.show_banner(
            MIC_FAILED_BANNER,
            "error",
            text,
            actions=[("Choose a device", self._open_devices)],
        )

    def _end_failure(self) -> None:
        self._failure = None
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
