"""Tests of the typed tool system (sammy_desktop.tools)."""
