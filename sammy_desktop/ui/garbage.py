"""Python's cyclic garbage collection, run on the Qt thread only.

The collector normally runs wherever an allocation happens to cross its threshold, which
in this app can be a PortAudio callback, the hotkey listener's thread or an executor worker.
If a cycle it frees holds a Qt object, that object is destroyed on the wrong thread, and its
timers are then left pointing at freed memory: a crash minutes later in Qt's timer code
(seen in the UI tests). :class:`QtThreadGarbageCollector` switches automatic collection off
and runs the same generational collection from a timer on the Qt thread instead.

Once the app's long-lived objects are loaded (the Live SDK and its pydantic models among
them, about 170,000 objects in all), :meth:`QtThreadGarbageCollector.freeze` moves them to
the permanent generation, which collections never scan. Without it every full collection
walked them all, about 100 ms with the GIL held in the bench: far longer than the speaker's
15 ms device buffer, so an answer playing would underrun (docs/benchmarks.md).
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

    def freeze(self) -> None:
        """Leave every object alive now out of all later collections.

        Call it once the objects that live as long as the app are loaded: they are never
        garbage, and scanning them is most of what a collection would cost. Reference
        counting still frees what is frozen; only a frozen object caught in a cycle (one
        already garbage, or one that becomes so later) stays until :meth:`stop`.
        """
        gc.freeze()

    def stop(self) -> None:
        """Stop the timer, collect once, and give collection back to Python."""
        self._timer.stop()
        gc.unfreeze()
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
