"""Settings (a pydantic model saved as JSON), the app's folders, and the API key store."""

from typing import TYPE_CHECKING

from sammy_desktop.lazy import lazy_attributes

if TYPE_CHECKING:
    from sammy_desktop.config.paths import APP_NAME, AppPaths
    from sammy_desktop.config.settings import (
        KEEP_READY_S,
        SCHEMA_VERSION,
        TAP_MAX_S,
        MediaResolution,
        MicBetweenTurns,
        PrivacySettings,
        ScreenImageSize,
        ScreenSendPolicy,
        Settings,
        TalkKey,
        TalkMode,
        Theme,
        VadSensitivity,
    )

# Each name is imported on first use (see lazy_attributes).
__getattr__ = lazy_attributes(
    __name__,
    {
        "APP_NAME": "sammy_desktop.config.paths",
        "AppPaths": "sammy_desktop.config.paths",
        "KEEP_READY_S": "sammy_desktop.config.settings",
        "SCHEMA_VERSION": "sammy_desktop.config.settings",
        "TAP_MAX_S": "sammy_desktop.config.settings",
        "MediaResolution": "sammy_desktop.config.settings",
        "MicBetweenTurns": "sammy_desktop.config.settings",
        "ScreenImageSize": "sammy_desktop.config.settings",
        "ScreenSendPolicy": "sammy_desktop.config.settings",
        "PrivacySettings": "sammy_desktop.config.settings",
        "Settings": "sammy_desktop.config.settings",
        "TalkKey": "sammy_desktop.config.settings",
        "TalkMode": "sammy_desktop.config.settings",
        "Theme": "sammy_desktop.config.settings",
        "VadSensitivity": "sammy_desktop.config.settings",
    },
)

__all__ = [
    "APP_NAME",
    "KEEP_READY_S",
    "SCHEMA_VERSION",
    "TAP_MAX_S",
    "AppPaths",
    "MediaResolution",
    "MicBetweenTurns",
    "PrivacySettings",
    "ScreenImageSize",
    "ScreenSendPolicy",
    "Settings",
    "TalkKey",
    "TalkMode",
    "Theme",
    "VadSensitivity",
]
