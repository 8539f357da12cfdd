"""The Qt binding in use must keep Python's reference counts right.

PySide6 6.12.0 on Python 3.11 drops a reference to ``None`` on every call of a Qt method
that returns nothing (``QWidget.update()``, ``setText()``...). ``None`` starts with a few
thousand references, so a running app aborts within minutes with "Fatal Python error:
none_dealloc" (seen here after a short demo conversation). pyproject.toml pins
PySide6-Essentials below 6.12 for that reason; this test fails on any binding with the
fault, so a future pin change cannot bring it back unnoticed.
"""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QApplication, QWidget


def test_void_qt_calls_keep_the_reference_count_of_none(qapp: QApplication) -> None:
    widget = QWidget()
    before = sys.getrefcount(None)
    for _ in range(200):
        widget.update()
    after = sys.getrefcount(None)
    widget.deleteLater()
    assert after - before >= -5, f"None lost {before - after} references in 200 calls"
