"""Settings (a pydantic model saved as JSON), the app's folders, and the API key store."""

from sammy_desktop.config.paths import APP_NAME, AppPaths
from sammy_desktop.config.settings import (
    SCHEMA_VERSION,
    PrivacySettings,
    Settings,
    TalkMode,
    Theme,
    VadSensitivity,
)

__all__ = [
    "APP_NAME",
    "SCHEMA_VERSION",
    "AppPaths",
    "PrivacySettings",
    "Settings",
    "TalkMode",
    "Theme",
    "VadSensitivity",
]
