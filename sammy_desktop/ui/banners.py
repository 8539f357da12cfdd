"""Banners under the header for what needs the person, each saying what to do.

A banner has a kind (error, warning, info, success) that sets its colour and icon, a
sentence, optional actions ("Open settings", "Choose a device") and optional details that
a "What exactly" link unfolds. Banners are keyed: showing a banner with a key already in
use replaces it, so "Reconnecting (attempt 2)" replaces attempt 1 instead of stacking.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from PySide6.QtCore import QEasingCurve, QPropertyAnimation, Qt
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from sammy_desktop.ui.theme import Palette, ThemeController

__all__ = ["Banner", "BannerAction", "BannerArea"]

BannerAction = tuple[str, Callable[[], None]]
"""A button on a banner: its label and what it does."""

_ICONS: Final = {"error": "alert", "warning": "alert", "info": "info", "success": "check"}
_SLIDE_MS: Final = 180
_NO_LIMIT: Final = 16_777_215  # QWIDGETSIZE_MAX


class Banner(QFrame):
    """One banner. Build it through :meth:`BannerArea.show_banner`."""

    def __init__(
        self,
        key: str,
        kind: str,
        text: str,
        *,
        theme: ThemeController,
        actions: Sequence[BannerAction] = (),
        details: str | None = None,
        dismissible: bool = True,
        on_dismiss: Callable[[Banner], None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.key = key
        self.kind = kind
        self.setObjectName("banner")
        self.setProperty("kind", kind)
        self.setAccessibleName(f"{kind.capitalize()}: {text}")
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)

        outer = QVBoxLayout(self)
        outer.setContentsMargins(12, 8, 8, 8)
        outer.setSpacing(4)
        row = QHBoxLayout()
        row.setSpacing(8)
        self._theme = theme
        self.icon_label = QLabel(self)
        self.icon_label.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.icon_label.setContentsMargins(0, 2, 0, 0)
        row.addWidget(self.icon_label)
        self.text_label = QLabel(text, self)
        self.text_label.setObjectName("bannerText")
        # The sentence may quote the service, a tool or a device name: never markup.
        self.text_label.setTextFormat(Qt.TextFormat.PlainText)
        self.text_label.setWordWrap(True)
        self.text_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        row.addWidget(self.text_label, 1)
        self.close_button: QToolButton | None = None
        if dismissible:
            close = QToolButton(self)
            self.close_button = close
            close.setAccessibleName("Dismiss")
            close.setToolTip("Dismiss")
            close.clicked.connect(lambda: on_dismiss(self))
            row.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        outer.addLayout(row)

        self.details_label: QLabel | None = None
        self.action_buttons: list[QPushButton] = []
        if actions or details:
            buttons = QHBoxLayout()
            buttons.setContentsMargins(26, 0, 0, 0)
            buttons.setSpacing(4)
            for label, callback in actions:
                button = QPushButton(label, self)
                button.setObjectName("linkButton")
                button.setAccessibleName(label)
                button.setCursor(Qt.CursorShape.PointingHandCursor)
                button.clicked.connect(callback)
                buttons.addWidget(button)
                self.action_buttons.append(button)
            if details:
                self.details_label = QLabel(details, self)
                self.details_label.setObjectName("bannerDetails")
                self.details_label.setTextFormat(Qt.TextFormat.PlainText)
                self.details_label.setWordWrap(True)
                self.details_label.setTextInteractionFlags(
                    Qt.TextInteractionFlag.TextSelectableByMouse
                )
                self.details_label.setContentsMargins(26, 0, 0, 0)
                self.details_label.hide()
                toggle = QPushButton("What exactly", self)
                toggle.setObjectName("linkButton")
                toggle.setAccessibleName("Show exactly what")
                toggle.setCursor(Qt.CursorShape.PointingHandCursor)
                toggle.clicked.connect(self.toggle_details)
                buttons.addWidget(toggle)
                self.action_buttons.append(toggle)
            buttons.addStretch(1)
            outer.addLayout(buttons)
            if self.details_label is not None:
                outer.addWidget(self.details_label)
        self._apply_palette(theme.palette)
        theme.palette_changed.connect(self._apply_palette)

    def _apply_palette(self, palette: Palette) -> None:
        tone = {"error": palette.red, "warning": palette.amber, "success": palette.green}
        color = tone.get(self.kind, palette.accent)
        assets = self._theme.assets
        self.icon_label.setPixmap(assets.pixmap(_ICONS.get(self.kind, "info"), color, 18))
        if self.close_button is not None:
            self.close_button.setIcon(assets.icon("close", palette.text_muted, 14))

    @property
    def text(self) -> str:
        """The banner's sentence."""
        return self.text_label.text()

    def toggle_details(self) -> None:
        """Show or hide the details."""
        if self.details_label is not None:
            self.details_label.setVisible(not self.details_label.isVisible())
            self.setMaximumHeight(_NO_LIMIT)


class BannerArea(QWidget):
    """The column of banners under the header.

    Args:
        theme: colours and icons for the banners.
        parent: the Qt parent.
    """

    def __init__(self, theme: ThemeController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._theme = theme
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(8)
        self._banners: dict[str, Banner] = {}
        self._animations: dict[str, QPropertyAnimation] = {}
        self.setAccessibleName("Notices")
        self.hide()

    def show_banner(
        self,
        key: str,
        kind: str,
        text: str,
        *,
        actions: Sequence[BannerAction] = (),
        details: str | None = None,
        dismissible: bool = True,
    ) -> Banner:
        """Show a banner (replacing the one with the same ``key``) and return it."""
        old = self._banners.pop(key, None)
        replacing = old is not None
        if old is not None:
            self._drop(old)
        banner = Banner(
            key,
            kind,
            text,
            theme=self._theme,
            actions=actions,
            details=details,
            dismissible=dismissible,
            on_dismiss=lambda b: self.remove(b.key),
            parent=self,
        )
        self._banners[key] = banner
        self._layout.addWidget(banner)
        self.show()
        if not replacing:
            self._slide_in(banner)
        return banner

    def remove(self, key: str) -> None:
        """Remove the banner ``key`` if it is shown."""
        banner = self._banners.pop(key, None)
        if banner is not None:
            self._drop(banner)
        if not self._banners:
            self.hide()

    def banner(self, key: str) -> Banner | None:
        """The banner shown under ``key``, if any."""
        return self._banners.get(key)

    def banners(self) -> list[Banner]:
        """The banners shown, oldest first."""
        return list(self._banners.values())

    def _drop(self, banner: Banner) -> None:
        animation = self._animations.pop(banner.key, None)
        if animation is not None:
            animation.stop()
        self._layout.removeWidget(banner)
        banner.hide()
        banner.deleteLater()

    def _slide_in(self, banner: Banner) -> None:
        # The banner grows from nothing to its natural height: motion that says "new".
        target = banner.sizeHint().height()
        animation = QPropertyAnimation(banner, b"maximumHeight", banner)
        animation.setDuration(_SLIDE_MS)
        animation.setStartValue(0)
        animation.setEndValue(target)
        animation.setEasingCurve(QEasingCurve.Type.OutCubic)
        animation.finished.connect(lambda: banner.setMaximumHeight(_NO_LIMIT))
        self._animations[banner.key] = animation
        animation.start()
