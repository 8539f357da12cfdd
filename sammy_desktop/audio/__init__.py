"""audio layer."""
