"""A helper process for the screen-sharing end-to-end test: four coloured quadrants in a
window at the right of the tests' Xvfb screen (clear of Sammy's window at the top left:
without a compositor, X11 gives a window's picture with whatever covers it), until it is
terminated. It prints "shown" once painted.

    python -m tests.e2e.show_picture
"""

from __future__ import annotations

import sys

from PySide6.QtCore import QRect, Qt, QTimer
from PySide6.QtGui import QColor, QPainter, QPaintEvent
from PySide6.QtWidgets import QApplication, QWidget

QUADRANTS = (QColor(220, 30, 30), QColor(30, 200, 40), QColor(30, 60, 220), QColor(240, 220, 30))
"""Top left red, top right green, bottom left blue, bottom right yellow."""


class Quadrants(QWidget):
    painted = False

    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QPainter(self)
        w, h = self.width(), self.height()
        rects = (
            QRect(0, 0, w // 2, h // 2),
            QRect(w // 2, 0, w - w // 2, h // 2),
            QRect(0, h // 2, w // 2, h - h // 2),
            QRect(w // 2, h // 2, w - w // 2, h - h // 2),
        )
        for rect, colour in zip(rects, QUADRANTS, strict=True):
            painter.fillRect(rect, colour)
        painter.end()
        if not self.painted:
            self.painted = True
            QTimer.singleShot(0, lambda: print("shown", flush=True))  # once it is on screen


def main() -> int:
    app = QApplication(sys.argv[:1])
    picture = Quadrants(None, Qt.WindowType.FramelessWindowHint)
    picture.setWindowTitle("Quadrants picture")
    screen = app.primaryScreen().geometry()
    picture.setGeometry(screen.width() - 560, 0, 560, 420)
    picture.show()
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
