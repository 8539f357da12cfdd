"""Audio the tests speak: loud, simple signals the simulator's energy VAD hears as speech."""

from __future__ import annotations

from sammy_desktop.wire_audio import INPUT_RATE

__all__ = ["speech"]


def speech(seconds: float, level: int = 3000, rate: int = INPUT_RATE) -> bytes:
    """A square wave of ``seconds`` at ``rate`` (PCM16 LE mono): "speech" for an energy VAD."""
    count = int(rate * seconds)
    period = [level, -level] * 20
    samples = (period * (count // len(period) + 1))[:count]
    return b"".join(s.to_bytes(2, "little", signed=True) for s in samples)
