"""The push-to-talk pre-roll: a ring buffer of the most recent microphone audio.

People start talking as the key goes down, and a stream opened or ungated at that moment
loses the first syllable. The capture keeps the last few hundred milliseconds here, and
``begin_talk`` hands them over to be sent before the live blocks.
"""

from __future__ import annotations

__all__ = ["PreRollBuffer"]


class PreRollBuffer:
    """Keeps the newest ``capacity_bytes`` bytes written to it.

    Args:
        capacity_bytes: how much to keep; 0 keeps nothing. Rounded down to whole samples.
    """

    def __init__(self, capacity_bytes: int) -> None:
        if capacity_bytes < 0:
            raise ValueError(f"pre-roll capacity must not be negative (got {capacity_bytes})")
        self._capacity = capacity_bytes - capacity_bytes % 2
        self._buffer = bytearray(self._capacity)
        self._write = 0
        self._filled = 0

    @property
    def capacity(self) -> int:
        """The most bytes it keeps."""
        return self._capacity

    def __len__(self) -> int:
        return self._filled

    def write(self, data: bytes) -> None:
        """Append ``data``, overwriting the oldest bytes when full."""
        if self._capacity == 0 or not data:
            return
        view = memoryview(data)
        if len(view) >= self._capacity:
            self._buffer[:] = view[len(view) - self._capacity :]
            self._write = 0
            self._filled = self._capacity
            return
        first = min(len(view), self._capacity - self._write)
        self._buffer[self._write : self._write + first] = view[:first]
        rest = len(view) - first
        if rest:
            self._buffer[:rest] = view[first:]
        self._write = (self._write + len(view)) % self._capacity
        self._filled = min(self._capacity, self._filled + len(view))

    def snapshot(self) -> bytes:
        """The kept bytes, oldest first."""
        if self._filled < self._capacity:
            return bytes(self._buffer[: self._filled])
        return bytes(self._buffer[self._write :]) + bytes(self._buffer[: self._write])

    def newest(self, count: int) -> bytes:
        """The newest ``count`` bytes kept (fewer if fewer are kept), oldest first."""
        count = min(count - count % 2, self._filled)
        if count <= 0:
            return b""
        start = self._write - count
        if start >= 0:
            return bytes(self._buffer[start : self._write])
        return bytes(self._buffer[start:]) + bytes(self._buffer[: self._write])

    def clear(self) -> None:
        """Forget everything kept."""
        self._write = 0
        self._filled = 0
