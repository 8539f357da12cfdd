"""Settings (a pydantic model saved as JSON), the app's folders, and the API key store."""

from sammy_desktop.config.paths import APP_NAME, AppPaths
from sammy_desktop.config.settings import (
    KEEP_READY_S,
    SCHEMA_VERSION,
    TAP_MAX_S,
    MicBetweenTurns,
    PrivacySettings,
    Settings,
    TalkKey,
    TalkMode,
    Theme,
    VadSensitivity,
)

__all__ = [
    "APP_NAME",
    "KEEP_READY_S",
    "SCHEMA_VERSION",
    "TAP_MAX_S",
    "AppPaths",
    "MicBetweenTurns",
    "PrivacySettings",
    "Settings",
    "TalkKey",
    "TalkMode",
    "Theme",
    "VadSensitivity",
]
