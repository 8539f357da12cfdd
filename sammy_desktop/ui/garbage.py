"""Python's cyclic garbage collection, run on the Qt thread only.

The collector normally runs wherever an allocation happens to cross its threshold, which
in this app can be a PortAudio callback, the hotkey listener's thread or an executor worker.
If a cycle it frees holds a Qt object, that object is destroyed on the wrong thread, and its
timers are then left pointing at freed memory: a crash minutes later in Qt's timer code
(seen in the UI tests). :class:`QtThreadGarbageCollector` switches automatic collection off
and runs the same generational collection from a timer on the Qt thread instead.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

__all__ = ["QtThreadGarbageCollector"]


class QtThreadGarbageCollector(QObject):
    """Collects garbage on the Qt thread, at most every ``interval_ms``.

    It follows the collector's own thresholds: a generation is collected when its count
    passes the threshold, so the work done is what automatic collection would do.

    Args:
        interval_ms: how often to look at the counts.
        parent: the Qt parent (the application).
    """

    def __init__(self, interval_ms: int = 500, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thresholds = gc.get_threshold()
        self._was_enabled = gc.isenabled()
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.check)

    def start(self) -> None:
        """Switch automatic collection off and start collecting from the timer."""
        gc.disable()
        self._timer.start()

    def stop(self) -> None:
        """Stop the timer, collect once, and give collection back to Python."""
        self._timer.stop()
        gc.collect()
        if self._was_enabled:
            gc.enable()

    def check(self) -> int:
        """Collect the oldest generation whose count passed its threshold.

        Returns:
            The generation collected, or -1 when none was due.
        """
        counts = gc.get_count()
        for generation in (2, 1, 0):
            if counts[generation] > self._thresholds[generation]:
                gc.collect(generation)
                return generation
        return -1
