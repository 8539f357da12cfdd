"""Small custom-painted widgets whose colours come from the stylesheet.

Each exposes its colours as Qt properties, which the stylesheet sets with ``qproperty-``
entries (see ``resources/style/app.qss``); that keeps every colour in the one palette.
They are drawn with QPainter because the stock widgets cannot show a level ring, a
switch or a spinner in the calm, flat look the app aims for.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Property, QRectF, QSize, Qt, QTimer
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QAbstractButton, QSizePolicy, QWidget

from sammy_desktop.ui.focus_frame import has_keyboard_focus, track_keyboard_focus

__all__ = [
    "METER_FLOOR_DBFS",
    "METER_QUIET_MS",
    "LevelMeter",
    "Spinner",
    "StateDot",
    "ToggleSwitch",
    "level_from_dbfs",
]

METER_FLOOR_DBFS = -60.0
"""The level the meters show as empty: quieter than this reads as no sound at all."""

METER_QUIET_MS = 250
"""A meter that gets no level for this long falls to the floor: nothing plays or listens.

Levels come 20-30 times a second while a stream runs, so this is several missed ones.
"""

_FALL_STEP_MS = 33
"""How often a falling meter takes its next step down (the rate levels come at)."""


def level_from_dbfs(dbfs: float) -> float:
    """Map a level in dBFS to 0..1 for display (-60 dBFS and below is 0)."""
    if math.isnan(dbfs):
        return 0.0
    return max(0.0, min(1.0, (dbfs - METER_FLOOR_DBFS) / -METER_FLOOR_DBFS))


def _color_property(attr: str) -> Property:
    def getter(self: QWidget) -> QColor:
        return QColor(getattr(self, attr))

    def setter(self: QWidget, value: QColor) -> None:
        setattr(self, attr, QColor(value))
        self.update()

    return Property(QColor, getter, setter)


class StateDot(QWidget):
    """The coloured dot of the state pill; the colour follows ``tone``."""

    idleColor = _color_property("_idle")
    accentColor = _color_property("_accent")
    thinkingColor = _color_property("_thinking")
    speakingColor = _color_property("_speaking")
    errorColor = _color_property("_error")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._idle = QColor("#9aa1ac")
        self._accent = QColor("#4f6bed")
        self._thinking = QColor("#c98304")
        self._speaking = QColor("#1f9d55")
        self._error = QColor("#d14343")
        self._tone = "idle"
        self.setFixedSize(10, 10)

    @property
    def tone(self) -> str:
        """``idle``, ``accent``, ``thinking``, ``speaking`` or ``error``."""
        return self._tone

    def set_tone(self, tone: str) -> None:
        """Pick the colour by meaning."""
        self._tone = tone
        self.update()

    def current_color(self) -> QColor:
        """The colour drawn now."""
        return {
            "accent": self._accent,
            "thinking": self._thinking,
            "speaking": self._speaking,
            "error": self._error,
        }.get(self._tone, self._idle)

    def paintEvent(self, event: QPaintEvent) -> None:
        """Draw the dot."""
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(self.current_color())
        painter.drawEllipse(QRectF(1, 1, self.width() - 2, self.height() - 2))


class LevelMeter(QWidget):
    """A thin rounded bar showing an audio level; decays smoothly between updates.

    It never shows a level nobody is producing: when the stream stops or pauses
    (:meth:`fall_to_floor`), or no level came for :data:`METER_QUIET_MS`, the bar falls to
    the floor as it does in silence.
    """

    trackColor = _color_property("_track")
    fillColor = _color_property("_fill")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._track = QColor("#f0f2f5")
        self._fill = QColor("#4f6bed")
        self._level = 0.0
        self._quiet = QTimer(self)
        self._quiet.setSingleShot(True)
        self._quiet.setInterval(METER_QUIET_MS)
        self._quiet.timeout.connect(self.fall_to_floor)
        self._falling = QTimer(self)
        self._falling.setInterval(_FALL_STEP_MS)
        self._falling.timeout.connect(self._fall_step)
        self.setFixedHeight(6)
        self.setMinimumWidth(48)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    @property
    def level(self) -> float:
        """The level shown, 0..1."""
        return self._level

    @property
    def falling(self) -> bool:
        """Whether the bar is on its way down to the floor with no level coming."""
        return self._falling.isActive()

    def set_dbfs(self, dbfs: float) -> None:
        """Show a new level; a drop is eased so the bar does not flicker.

        Repaints (and updates the accessible description) only when what is shown
        changes: levels arrive 20-30 times a second, and most of them, in a quiet room or
        at a steady level, would redraw the same pixels.
        """
        self._falling.stop()
        self._show(dbfs)
        if self._level > 0.0:
            self._quiet.start()  # no next level in time: the stream went quiet
        else:
            self._quiet.stop()

    def fall_to_floor(self) -> None:
        """The stream stopped or paused: the bar eases down to empty, as in silence."""
        self._quiet.stop()
        if self._level > 0.0:
            self._falling.start()

    def _fall_step(self) -> None:
        self._show(METER_FLOOR_DBFS)
        if self._level <= 0.0:
            self._falling.stop()

    def _show(self, dbfs: float) -> None:
        target = level_from_dbfs(dbfs)
        shown = self._fill_width(), round(self._level * 100)
        level = target if target >= self._level else max(target, self._level * 0.75)
        # Below what can be drawn the bar is empty: rest at 0 instead of dividing for ever.
        self._level = level if level > 0.005 else 0.0
        percent = round(self._level * 100)
        if percent != shown[1]:
            self.setAccessibleDescription(f"{percent} percent")
        if self._fill_width() != shown[0]:
            self.update()

    def _fill_width(self) -> int:
        """The filled width in whole pixels (0: no fill is drawn)."""
        if self._level <= 0.005:
            return 0
        return round(max(self.height(), self.width() * self._level))

    def paintEvent(self, event: QPaintEvent) -> None:
        """Draw the track and the fill."""
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        radius = self.height() / 2
        painter.setBrush(self._track)
        painter.drawRoundedRect(QRectF(self.rect()), radius, radius)
        if self._level > 0.005:
            width = max(self.height(), self.width() * self._level)
            painter.setBrush(self._fill)
            painter.drawRoundedRect(QRectF(0, 0, width, self.height()), radius, radius)


class Spinner(QWidget):
    """A small turning arc that says "working"; it only animates while visible."""

    color = _color_property("_color")

    def __init__(self, parent: QWidget | None = None, size: int = 14) -> None:
        super().__init__(parent)
        self._color = QColor("#c98304")
        self._angle = 0
        self._timer = QTimer(self)
        self._timer.setInterval(50)
        self._timer.timeout.connect(self._advance)
        self.setFixedSize(size, size)

    def start(self) -> None:
        """Start turning."""
        self._timer.start()
        self.show()

    def stop(self) -> None:
        """Stop turning and hide."""
        self._timer.stop()
        self.hide()

    def is_spinning(self) -> bool:
        """Whether the spinner is turning."""
        return self._timer.isActive()

    def _advance(self) -> None:
        self._angle = (self._angle + 30) % 360
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        """Draw a 270-degree arc at the current angle."""
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        pen = QPen(self._color, 2)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        painter.setPen(pen)
        rect = QRectF(self.rect()).adjusted(1.5, 1.5, -1.5, -1.5)
        painter.drawArc(rect, -self._angle * 16, 270 * 16)


class ToggleSwitch(QAbstractButton):
    """An on/off switch (a checkable button) drawn as a pill with a knob."""

    trackOffColor = _color_property("_off")
    trackOnColor = _color_property("_on")
    knobColor = _color_property("_knob")
    focusColor = _color_property("_focus")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._off = QColor("#cfd4dc")
        self._on = QColor("#4f6bed")
        self._knob = QColor("#ffffff")
        self._focus = QColor("#4f6bed")
        self.setCheckable(True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        track_keyboard_focus(self)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:
        """Room for the pill and a focus ring."""
        return QSize(44, 28)

    def paintEvent(self, event: QPaintEvent) -> None:
        """Draw the track, the knob and (with keyboard focus) a ring."""
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        track = QRectF(4, 5, 36, 18)
        if has_keyboard_focus(self):
            pen = QPen(self._focus, 2)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(track.adjusted(-3, -3, 3, 3), 12, 12)
        painter.setPen(Qt.PenStyle.NoPen)
        color = self._on if self.isChecked() else self._off
        if not self.isEnabled():
            color.setAlpha(110)
        painter.setBrush(color)
        painter.drawRoundedRect(track, 9, 9)
        knob_x = track.right() - 16 if self.isChecked() else track.left() + 2
        painter.setBrush(self._knob)
        painter.drawEllipse(QRectF(knob_x, track.top() + 2, 14, 14))
