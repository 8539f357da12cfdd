"""The level meter and the talk button's ring repaint only when what they show changes."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from sammy_desktop.ui.assets import Assets
from sammy_desktop.ui.painted import LevelMeter
from sammy_desktop.ui.talk_button import TalkButton, TalkLook


class PaintCounter(QObject):
    """Counts the paint events a widget receives."""

    def __init__(self, widget: QWidget) -> None:
        super().__init__(widget)
        self.paints = 0
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.paints += 1
        return False

    def settle(self) -> int:
        """Deliver the pending repaints (until a pass adds none); the paint count after."""
        while True:
            before = self.paints
            for _ in range(3):
                QApplication.processEvents()
            if self.paints == before:
                return self.paints


def test_the_meter_repaints_on_a_change_and_not_for_the_same_level(qtbot: QtBot) -> None:
    meter = LevelMeter()
    qtbot.addWidget(meter)
    meter.resize(200, 6)
    meter.show()
    qtbot.waitExposed(meter)
    counter = PaintCounter(meter)
    start = counter.settle()
    for _ in range(10):
        meter.set_dbfs(-100.0)  # silence on an empty meter: nothing to draw
    assert counter.settle() == start
    meter.set_dbfs(-20.0)
    after_rise = counter.settle()
    assert after_rise > start
    assert meter.accessibleDescription() == "67 percent"
    for _ in range(10):
        meter.set_dbfs(-20.0)
    assert counter.settle() == after_rise
    # A drop still eases down over several readings, repainting as it goes, then rests.
    for _ in range(40):
        meter.set_dbfs(-100.0)
    assert counter.settle() > after_rise
    assert meter.level < 0.005
    assert meter.accessibleDescription() == "0 percent"


def test_the_ring_repaints_only_while_it_moves(qtbot: QtBot) -> None:
    button = TalkButton(Assets())
    qtbot.addWidget(button)
    button.show()
    qtbot.waitExposed(button)
    button.set_look(TalkLook.LISTENING)
    counter = PaintCounter(button)
    start = counter.settle()
    for _ in range(10):
        button.set_level_dbfs(-100.0)
    assert counter.settle() == start
    button.set_level_dbfs(-10.0)
    moved = counter.settle()
    assert moved > start
    assert button.level > 0.8
    for _ in range(10):
        button.set_level_dbfs(-10.0)
    assert counter.settle() == moved
