"""Test helpers shared by every part of the suite (qutebrowser's tests/helpers)."""
