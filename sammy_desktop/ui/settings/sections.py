"""The names of the settings sections, shared by the settings window and what opens it.

A banner's "Open settings", the devices banner's "Choose a device" and the shortcut all
name the section to open; the settings window lists its pages under the same names.
"""

from __future__ import annotations

from typing import Final

__all__ = ["SettingsSection"]


class SettingsSection:
    """Names of the settings sections a banner or shortcut can open."""

    ACCOUNT: Final = "Account"
    VOICE: Final = "Voice & language"
    TALKING: Final = "Talking"
    DEVICES: Final = "Audio devices"
    TOOLS: Final = "Tools"
    SCREEN: Final = "Screen"
    PRIVACY: Final = "Privacy"
    APPEARANCE: Final = "Appearance"
    ABOUT: Final = "About"
