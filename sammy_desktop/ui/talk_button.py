"""The large round push-to-talk button whose ring follows the voice level.

While the person talks the ring grows with the microphone level; while the assistant
speaks it follows the output level in the "speaking" colour. The button only reports
presses and releases; whether a press means "hold" or "toggle" is the window's business.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QPoint, QPointF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen, QPixmap
from PySide6.QtWidgets import QAbstractButton, QSizePolicy, QWidget

from sammy_desktop.ui.assets import Assets
from sammy_desktop.ui.focus_frame import has_keyboard_focus, track_keyboard_focus
from sammy_desktop.ui.painted import _color_property, level_from_dbfs
from sammy_desktop.ui.talk_view import TalkLook

__all__ = ["TalkButton", "TalkLook"]

FACE_DIAMETER = 80
RING_ROOM = 24
# The colours whose halos are kept: listening's and speaking's (TalkButton._halo_pixmap).
_HALO_SETS = 2
_FACE_SIDE = FACE_DIAMETER + 8
"""The face's cached square: the face and its focus ring (radius + 3, a 2 px pen)."""


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
        self._face_cache: tuple[tuple[object, ...], QPixmap] | None = None
        # The halos by colour and pixel ratio, oldest first (see _halo_pixmap).
        self._halo_sets: dict[tuple[int, float], dict[int, QPixmap]] = {}
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
        """Draw the ring, then the face (each from a pixmap drawn once, see below)."""
        painter = QPainter(self)
        center = QPointF(self.width() / 2, self.height() / 2)
        active = self._is_active()
        if active:
            halo = self._halo_pixmap(self._ring_steps())
            side = halo.width() / halo.devicePixelRatio()
            painter.drawPixmap(QPointF(center.x() - side / 2, center.y() - side / 2), halo)
        face = self._face_pixmap(active)
        corner = QPointF(center.x() - _FACE_SIDE / 2, center.y() - _FACE_SIDE / 2)
        painter.drawPixmap(corner, face)

    def _halo_pixmap(self, steps: int) -> QPixmap:
        """The translucent disc of the ring at ``steps`` half pixels of growth.

        Antialiasing a disc this size took ~0.2 ms of the button's ~0.27 ms repaint (and
        Qt hands fills that large to its thread pool: two thread wake-ups each), while the
        ring repaints 20-30 times a second as anyone speaks; copying a pixmap of it costs
        ~0.02 ms. There are ``(RING_ROOM - 6) * 2 + 1`` sizes per colour, under 2 MB at a
        pixel ratio of 1 (7 MB at 2). Every turn shows two colours, listening then
        speaking, so the sizes of both are kept (:data:`_HALO_SETS`): with one, each turn
        drew its sizes afresh twice. A third colour or pixel ratio (the theme changed, a
        screen of another scale) takes the place of the one kept longest.
        """
        key = (self._tone().rgba(), self.devicePixelRatioF())
        halos = self._halo_sets.get(key)
        if halos is None:
            while len(self._halo_sets) >= _HALO_SETS:
                del self._halo_sets[next(iter(self._halo_sets))]  # the oldest
            halos = self._halo_sets[key] = {}
        halo = halos.get(steps)
        if halo is not None:
            return halo
        ratio = key[1]
        radius = FACE_DIAMETER / 2 + 4 + steps / 2
        side = 2 * math.ceil(radius) + 2  # even: the disc's centre falls on a pixel corner
        halo = QPixmap(QSize(round(side * ratio), round(side * ratio)))
        halo.setDevicePixelRatio(ratio)
        halo.fill(Qt.GlobalColor.transparent)
        painter = QPainter(halo)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        color = QColor(self._tone())
        color.setAlpha(60)
        painter.setBrush(color)
        painter.drawEllipse(QPointF(side / 2, side / 2), radius, radius)
        painter.end()
        halos[steps] = halo
        return halo

    def _is_active(self) -> bool:
        return self._look in (TalkLook.LISTENING, TalkLook.SPEAKING) or self.isDown()

    def _tone(self) -> QColor:
        return self._speaking if self._look is TalkLook.SPEAKING else self._active

    def _face_pixmap(self, active: bool) -> QPixmap:
        """The face as it looks now, drawn once per look.

        The ring repaints 20-30 times a second while anyone speaks; the face and its icon
        were most of each repaint's work.
        """
        focused = has_keyboard_focus(self)
        ratio = self.devicePixelRatioF()
        tone = self._tone()
        key = (
            self._look,
            active,
            focused,
            ratio,
            tone.rgba(),
            *(color.rgba() for color in (self._face, self._border, self._icon)),
            *(color.rgba() for color in (self._active_icon, self._focus)),
        )
        if self._face_cache is not None and self._face_cache[0] == key:
            return self._face_cache[1]
        pixmap = QPixmap(QSize(round(_FACE_SIDE * ratio), round(_FACE_SIDE * ratio)))
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        center = QPointF(_FACE_SIDE / 2, _FACE_SIDE / 2)
        radius = FACE_DIAMETER / 2
        painter.setPen(QPen(tone if active else self._border, 1.5))
        face = QColor(tone if active else self._face)
        if self._look is TalkLook.UNAVAILABLE:
            face.setAlpha(140)
        painter.setBrush(face)
        painter.drawEllipse(center, radius, radius)
        if focused:
            painter.setPen(QPen(self._focus, 2))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawEllipse(center, radius + 3, radius + 3)
        icon_color = self._active_icon if active else self._icon
        name = "mic-off" if self._look is TalkLook.UNAVAILABLE else "mic"
        icon = self._assets.pixmap(name, icon_color.name(), 30)
        painter.drawPixmap(QPointF(center.x() - 15, center.y() - 15), icon)
        painter.end()
        self._face_cache = (key, pixmap)
        return pixmap
