"""How long to wait between reconnection attempts, and when to give up.

Kept apart from the connection code so the numbers are easy to read, to test, and to shrink
in tests (the simulator tests use milliseconds).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

__all__ = ["ReconnectPolicy"]


@dataclass(frozen=True, slots=True)
class ReconnectPolicy:
    """Bounded exponential backoff with jitter.

    Attempt ``n`` (1-based) waits ``min(maximum_s, initial_s * multiplier ** (n - 1))``
    seconds, spread by up to ``jitter`` (a fraction) either way so many clients dropped at
    once do not reconnect in lockstep. After ``max_attempts`` failed attempts in a row the
    core gives up and shows an error. A connection that stays up for ``stable_after_s``
    seconds resets the count.

    Attributes:
        initial_s: the first delay.
        multiplier: growth factor per attempt.
        maximum_s: the largest delay.
        jitter: relative spread, 0 for none, at most 1.
        max_attempts: failed attempts in a row before giving up.
        stable_after_s: uptime after which the failure count resets.
        goaway_margin_s: on goAway, reconnect at the latest this long before the deadline.
        connect_timeout_s: limit for one connection attempt (TLS + setup handshake).
    """

    initial_s: float = 0.5
    multiplier: float = 2.0
    maximum_s: float = 10.0
    jitter: float = 0.2
    max_attempts: int = 6
    stable_after_s: float = 30.0
    goaway_margin_s: float = 5.0
    connect_timeout_s: float = 15.0

    def __post_init__(self) -> None:
        if self.initial_s < 0 or self.maximum_s < self.initial_s:
            raise ValueError("need 0 <= initial_s <= maximum_s")
        if self.multiplier < 1:
            raise ValueError("multiplier must be at least 1")
        if not 0 <= self.jitter <= 1:
            raise ValueError("jitter must be between 0 and 1")
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if self.connect_timeout_s <= 0:
            raise ValueError("connect_timeout_s must be positive")

    def delay(self, attempt: int, rng: random.Random) -> float:
        """The wait before attempt number ``attempt`` (1-based), jitter included."""
        if attempt < 1:
            raise ValueError("attempt numbers start at 1")
        base = min(self.maximum_s, self.initial_s * self.multiplier ** (attempt - 1))
        spread = base * self.jitter
        return max(0.0, base + rng.uniform(-spread, spread))
