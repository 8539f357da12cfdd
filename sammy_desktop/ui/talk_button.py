"""The large round push-to-talk button whose ring follows the voice level.

While the person talks the ring grows with the microphone level; while the assistant
speaks it follows the output level in the "speaking" colour. The button only reports
presses and releases; whether a press means "hold" or "toggle" is the window's business.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QAbstractButton, QSizePolicy, QWidget

from sammy_desktop.ui.assets import Assets
from sammy_desktop.ui.focus_frame import has_keyboard_focus, track_keyboard_focus
from sammy_desktop.ui.painted import _color_property, level_from_dbfs
from sammy_desktop.ui.talk_view import TalkLook

__all__ = ["TalkButton", "TalkLook"]

FACE_DIAMETER = 80
RING_ROOM = 24


class TalkButton(QAbstractButton):
    """An 80 px round button with a mic icon and a level ring.

    Args:
        assets: where the mic icon comes from.
        parent: the Qt parent.
    """

    faceColor = _color_property("_face")
    borderColor = _color_property("_border")
    iconColor = _color_property("_icon")
    activeColor = _color_property("_active")
    activeIconColor = _color_property("_active_icon")
    speakingColor = _color_property("_speaking")
    focusColor = _color_property("_focus")

    def __init__(self, assets: Assets, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._assets = assets
        self._face = QColor("#ffffff")
        self._border = QColor("#e1e4e9")
        self._icon = QColor("#1c2027")
        self._active = QColor("#4f6bed")
        self._active_icon = QColor("#ffffff")
        self._speaking = QColor("#1f9d55")
        self._focus = QColor("#4f6bed")
        self._look = TalkLook.IDLE
        self._level = 0.0
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        # The focus ring only for focus that came by the keyboard (not a click, not start-up).
        track_keyboard_focus(self)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.setAccessibleName("Talk")
        self.setAccessibleDescription("Hold to talk to the assistant; release when done.")

    @property
    def look(self) -> TalkLook:
        """The current look."""
        return self._look

    @property
    def level(self) -> float:
        """The level the ring shows, 0..1."""
        return self._level

    def set_look(self, look: TalkLook) -> None:
        """Change the look; the ring rests until a level arrives."""
        if look is not self._look:
            self._look = look
            self._level = 0.0
            self.update()

    def set_level_dbfs(self, dbfs: float) -> None:
        """Feed a level; it only shows while listening or speaking."""
        if self._look not in (TalkLook.LISTENING, TalkLook.SPEAKING):
            return
        target = level_from_dbfs(dbfs)
        shown = self._ring_steps()
        # Rise at once, fall gently: the ring breathes instead of flickering.
        self._level = target if target >= self._level else max(target, self._level * 0.8)
        # Levels arrive 30 times a second: repaint only when the ring visibly moves.
        if self._ring_steps() != shown:
            self.update()

    def _ring_steps(self) -> int:
        """The ring's growth in half pixels: what a repaint would change."""
        return round(self._level * (RING_ROOM - 6) * 2)

    def sizeHint(self) -> QSize:
        """The face plus room for the ring."""
        side = FACE_DIAMETER + 2 * RING_ROOM
        return QSize(side, side)

    def minimumSizeHint(self) -> QSize:
        """As large as the size hint: the button never shrinks."""
        return self.sizeHint()

    def hitButton(self, pos: QPoint) -> bool:
        """Only the round face reacts to the mouse, not the ring's square corners."""
        dx = pos.x() - self.width() / 2
        dy = pos.y() - self.height() / 2
        return bool((dx**2 + dy**2) ** 0.5 <= FACE_DIAMETER / 2 + 4)

    def paintEvent(self, event: QPaintEvent) -> None:
        """Draw the ring, the face, the icon and (with keyboard focus) the focus ring."""
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        center = QPointF(self.width() / 2, self.height() / 2)
        radius = FACE_DIAMETER / 2
        active = self._look in (TalkLook.LISTENING, TalkLook.SPEAKING) or self.isDown()
        tone = self._speaking if self._look is TalkLook.SPEAKING else self._active

        if active:
            ring = radius + 4 + self._level * (RING_ROOM - 6)
            halo = QColor(tone)
            halo.setAlpha(60)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(halo)
            painter.drawEllipse(center, ring, ring)

        painter.setPen(QPen(tone if active else self._border, 1.5))
        face = QColor(tone if active else self._face)
        if self._look is TalkLook.UNAVAILABLE:
            face.setAlpha(140)
        painter.setBrush(face)
        painter.drawEllipse(center, radius, radius)

        if has_keyboard_focus(self):
            painter.setPen(QPen(self._focus, 2))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawEllipse(center, radius + 3, radius + 3)

        icon_color = self._active_icon if active else self._icon
        name = "mic-off" if self._look is TalkLook.UNAVAILABLE else "mic"
        pixmap = self._assets.pixmap(name, icon_color.name(), 30)
        painter.drawPixmap(QPointF(center.x() - 15, center.y() - 15), pixmap)
