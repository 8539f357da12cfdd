"""What the person sees and touches of screen sharing: the Share button, the red banner.

:class:`ScreenSharing` is the window's part for it. It starts sharing from the Share button
beside the talk button, Ctrl+Shift+S and the tray (asking what to share with
:class:`~sammy_desktop.ui.screen_chooser.ScreenChooser`, or at once when there is only one
screen and no window), and follows the
:class:`~sammy_desktop.ui.screen.share.ScreenShare`'s signals, whoever started or stopped
it (a remote ``--toggle-share``, the end of the conversation, a window that closed):

* while sharing, :class:`SharingBanner`, red, under the header: "Sharing your screen" (or
  the window's title), the last picture sent as a small thumbnail, how many were sent and
  about how many tokens a minute they cost, and Stop; the Share button looks pressed;
* a stop the person did not ask for leaves a notice banner with the reason; a problem
  (Wayland's one frame per press, no portal, no permission) a banner with its sentence;
* :attr:`ScreenSharing.shared_context_changed` says what is shared in the words the
  privacy view lists ("Your screen (Screen 1, 1920x1080)"), "" once nothing is.

Sharing is never restored at start: the :class:`ScreenShare` starts off, and this part
only ever starts it when the person asks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final

from PySide6.QtCore import QObject, QPointF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QImage, QPainter, QPixmap
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

from sammy_desktop.ui.screen_chooser import ScreenChooser, same_source
from sammy_desktop.ui.theme import Palette, ThemeController
from sammy_desktop.ui.wrapping import ElidedLabel

if TYPE_CHECKING:
    from sammy_desktop.ui.banners import BannerArea
    from sammy_desktop.ui.screen.share import ScreenShare
    from sammy_desktop.ui.screen.sources import ShareSource

__all__ = [
    "SHARE_SHORTCUT",
    "ScreenSharing",
    "SharingBanner",
    "shared_words",
    "sharing_title",
    "with_sharing_dot",
]

SHARE_SHORTCUT: Final = "Ctrl+Shift+S"
THUMBNAIL_WIDTH: Final = 96
THUMBNAIL_MAX_HEIGHT: Final = 72
STOPPED_KEY: Final = "screen-share-stopped"
PROBLEM_KEY: Final = "screen-share-problem"


def sharing_title(source: ShareSource | None) -> str:
    """The banner's words: "Sharing your screen", or "Sharing “<the window's title>”"."""
    if source is None or source.kind == "screen":
        return "Sharing your screen"
    return f"Sharing “{source.title}”"


def shared_words(source: ShareSource) -> str:
    """How the privacy view lists what is shared: "Your screen (<which>)"."""
    if source.kind == "window":
        return f"Your screen (the window “{source.title}”)"
    title = source.title
    if title.endswith(")") and " (" in title:  # "Screen 1 (1920x1080)": no nested brackets
        name, _, size = title[:-1].partition(" (")
        title = f"{name}, {size}"
    return f"Your screen ({title})"


def _sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else f"{text}."


def _frames_words(frames: int, tokens_per_minute: float) -> tuple[str, str]:
    """("3 pictures sent", "≈ 774 tokens/min"); no cost before the first picture."""
    if frames <= 0:
        return "No picture sent yet", ""
    pictures = "1 picture sent" if frames == 1 else f"{frames:,} pictures sent"
    return pictures, f"≈ {round(tokens_per_minute):,} tokens/min"


def with_sharing_dot(icon: QIcon, color: str, sizes: Sequence[int] = (16, 24, 32, 48, 64)) -> QIcon:
    """``icon`` with a dot in ``color`` at its lower right: the tray's "sharing" look."""
    marked = QIcon()
    for size in sizes:
        pixmap = icon.pixmap(QSize(size, size))
        if pixmap.isNull():
            continue
        pixmap = QPixmap(pixmap)
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        side = pixmap.width() / pixmap.devicePixelRatio()
        radius = side * 0.22
        centre = QPointF(side - radius - side * 0.02, side - radius - side * 0.02)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor("#ffffff"))
        painter.drawEllipse(centre, radius + side * 0.06, radius + side * 0.06)
        painter.setBrush(QColor(color))
        painter.drawEllipse(centre, radius, radius)
        painter.end()
        marked.addPixmap(pixmap)
    return marked


class SharingBanner(QFrame):
    """The red banner while sharing: the title, the thumbnail, what it costs, Stop.

    Args:
        theme: its colours and the icon's.
        parent: the Qt parent.
    """

    stop_requested = Signal()
    """The person pressed Stop."""

    def __init__(self, theme: ThemeController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._theme = theme
        self.setObjectName("sharingBanner")
        self.setAccessibleName("Sharing your screen")
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        row = QHBoxLayout(self)
        row.setContentsMargins(10, 8, 8, 8)
        row.setSpacing(10)
        self.thumbnail = QLabel(self)
        self.thumbnail.setObjectName("shareThumbnail")
        self.thumbnail.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.thumbnail.setFixedSize(THUMBNAIL_WIDTH, THUMBNAIL_WIDTH * 9 // 16)
        self.thumbnail.setAccessibleName("The last picture sent")
        row.addWidget(self.thumbnail, 0, Qt.AlignmentFlag.AlignVCenter)

        words = QVBoxLayout()
        words.setSpacing(2)
        title_row = QHBoxLayout()
        title_row.setSpacing(6)
        self.icon_label = QLabel(self)
        title_row.addWidget(self.icon_label, 0, Qt.AlignmentFlag.AlignVCenter)
        # One line, plain text (a window's title is no markup), cut with "…" when narrow.
        self.title_label = ElidedLabel("Sharing your screen", self)
        self.title_label.setObjectName("sharingTitle")
        title_row.addWidget(self.title_label, 1)
        words.addLayout(title_row)
        # Two lines, each whole: "≈ 258 tokens/" and "min" on two lines read badly.
        self.frames_label = QLabel("", self)
        self.frames_label.setObjectName("sharingStats")
        words.addWidget(self.frames_label)
        self.cost_label = QLabel("", self)
        self.cost_label.setObjectName("sharingStats")
        self.cost_label.setToolTip(
            "An estimate: the pictures sent so far, at the tokens each costs at the detail "
            "chosen in Settings > Screen, per minute of sharing."
        )
        words.addWidget(self.cost_label)
        row.addLayout(words, 1)

        self.stop_button = QPushButton("Stop", self)
        self.stop_button.setObjectName("sharingStop")
        self.stop_button.setAccessibleName("Stop sharing")
        self.stop_button.setToolTip(f"Stop sharing ({SHARE_SHORTCUT})")
        self.stop_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.stop_button.clicked.connect(self.stop_requested)
        row.addWidget(self.stop_button, 0, Qt.AlignmentFlag.AlignVCenter)
        self.show_frames(0, 0.0)
        self.clear_thumbnail()
        self._apply_palette(theme.palette)
        theme.palette_changed.connect(self._apply_palette)

    def _apply_palette(self, palette: Palette) -> None:
        self.icon_label.setPixmap(self._theme.assets.pixmap("share-screen", palette.red, 16))

    @property
    def title(self) -> str:
        """The banner's title ("Sharing your screen")."""
        return self.title_label.text()

    @property
    def stats(self) -> str:
        """The frames sent and their cost, in words ("2 pictures sent · ≈ 516 tokens/min")."""
        return " · ".join(
            label.text() for label in (self.frames_label, self.cost_label) if label.text()
        )

    def show_source(self, source: ShareSource | None) -> None:
        """Name what is shared, and start again with no picture."""
        title = sharing_title(source)
        self.title_label.setText(title)
        self.setAccessibleName(title)
        self.clear_thumbnail()
        self.show_frames(0, 0.0)

    def clear_thumbnail(self) -> None:
        """No picture sent yet."""
        self.thumbnail.setPixmap(QPixmap())
        self.thumbnail.setText("No picture\nyet")
        self.thumbnail.setToolTip("")

    def show_thumbnail(self, image: QImage, width: int, height: int) -> None:
        """The last picture sent, small; its size in the tooltip."""
        if image.isNull():
            return
        ratio = self.devicePixelRatioF()
        scaled = image.scaled(
            round(THUMBNAIL_WIDTH * ratio),
            round(THUMBNAIL_MAX_HEIGHT * ratio),
            Qt.AspectRatioMode.KeepAspectRatio,
            Qt.TransformationMode.SmoothTransformation,
        )
        pixmap = QPixmap.fromImage(scaled)
        pixmap.setDevicePixelRatio(ratio)
        self.thumbnail.setText("")
        self.thumbnail.setFixedHeight(max(24, round(scaled.height() / ratio)))
        self.thumbnail.setPixmap(pixmap)
        tip = f"The last picture sent to Gemini, {width}x{height} px"
        self.thumbnail.setToolTip(tip)
        self.thumbnail.setAccessibleDescription(tip)

    def show_frames(self, frames: int, tokens_per_minute: float) -> None:
        """How many pictures went, and about what they cost a minute."""
        pictures, cost = _frames_words(frames, tokens_per_minute)
        self.frames_label.setText(pictures)
        self.cost_label.setText(cost)
        self.cost_label.setVisible(bool(cost))


class ScreenSharing(QObject):
    """The window's screen sharing: the Share button, the chooser, the banner, the notices.

    Args:
        share: the capture engine; its signals drive everything shown.
        button: the Share button beside the talk button (checkable).
        banner: the red banner shown while sharing.
        banners: where the notices go (a stop with a reason, a problem).
        theme: the colours of the button's icon and the tray's dot.
        list_sources: what can be shared now.
        dialog_parent: the window the chooser belongs to.
        parent: the Qt parent.
    """

    sharing_changed = Signal(bool)
    """Sharing started (True) or stopped (False); the tray follows."""

    shared_context_changed = Signal(str)
    """What is shared, as the privacy view lists it ("Your screen (…)"); "" for nothing."""

    def __init__(
        self,
        share: ScreenShare,
        *,
        button: QToolButton,
        banner: SharingBanner,
        banners: BannerArea,
        theme: ThemeController,
        list_sources: Callable[[], Sequence[ShareSource]],
        dialog_parent: QWidget | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.share = share
        self._button = button
        self._banner = banner
        self._banners = banners
        self._theme = theme
        self._list_sources = list_sources
        self._dialog_parent = dialog_parent
        self.last_choice: ShareSource | None = None
        """What the person chose last (the chooser selects it; Ctrl+Shift+S shares it)."""
        self.chooser: ScreenChooser | None = None
        """The chooser while it is open."""

        button.setCheckable(True)
        button.setAccessibleName("Share screen")
        button.clicked.connect(self._on_button_clicked)
        banner.stop_requested.connect(self.stop)
        banner.hide()
        share.sharing_changed.connect(self.on_sharing_changed)
        share.frame_sent.connect(self.on_frame_sent)
        share.stopped.connect(self.on_stopped)
        share.problem.connect(self.on_problem)
        theme.palette_changed.connect(self._show_button)
        self._show_button()

    @property
    def sharing(self) -> bool:
        """Whether the screen (or a window) is shared now."""
        return bool(self.share.sharing)

    # ------------------------------------------------------------------ asked by the person

    def choose(self) -> None:
        """The Share button, the tray's "Share screen…": stop, or ask what to share.

        With one screen and no window there is nothing to ask: it is shared at once.
        """
        if self.sharing:
            self.stop()
            return
        self._ask()

    def toggle(self) -> None:
        """Ctrl+Shift+S: stop, or share the last choice again (ask when there is none)."""
        if self.sharing:
            self.stop()
            return
        if self.last_choice is not None:
            for source in self._list_sources():
                if same_source(source, self.last_choice):
                    self.start(source)
                    return
        self._ask()

    def stop(self) -> None:
        """Stop sharing (the banner's Stop, the button, the shortcut)."""
        self.share.stop()

    def start(self, source: ShareSource) -> None:
        """Share ``source``, remembered as the last choice."""
        self.last_choice = source
        self._banners.remove(STOPPED_KEY)
        self._banners.remove(PROBLEM_KEY)
        self.share.start(source)

    def _ask(self) -> None:
        if self.chooser is not None:
            self.chooser.raise_()
            self.chooser.activateWindow()
            return
        sources = list(self._list_sources())
        if len(sources) == 1 and sources[0].kind == "screen":
            self.start(sources[0])
            return
        chooser = ScreenChooser(sources, last=self.last_choice, parent=self._dialog_parent)
        chooser.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        chooser.source_chosen.connect(self.start)
        chooser.finished.connect(lambda _result: self._forget_chooser(chooser))
        self.chooser = chooser
        chooser.open()
        self._show_button()

    def _forget_chooser(self, chooser: ScreenChooser) -> None:
        if self.chooser is chooser:
            self.chooser = None
        self._show_button()

    def _on_button_clicked(self) -> None:
        self.choose()
        self._show_button()  # a click checks the button; the sharing decides

    # ------------------------------------------------------------------ the engine's signals

    def on_sharing_changed(self, sharing: bool) -> None:
        """Show the banner and the pressed button while sharing; take them away after."""
        if sharing:
            source = self.share.source
            self._banner.show_source(source)
            self._banner.show()
            self.shared_context_changed.emit(shared_words(source) if source is not None else "")
        else:
            self._banner.hide()
            self.shared_context_changed.emit("")
        self._show_button()
        self.sharing_changed.emit(sharing)

    def on_frame_sent(self, thumbnail: QImage, width: int, height: int) -> None:
        """A picture went: the thumbnail, the count and the cost a minute."""
        self._banner.show_thumbnail(thumbnail, width, height)
        self._banner.show_frames(int(self.share.frames_sent), float(self.share.tokens_per_minute))

    def on_stopped(self, reason: str) -> None:
        """Sharing stopped; when the person did not ask for it, a notice says why."""
        if not reason:
            return
        self._banners.show_banner(STOPPED_KEY, "warning", _sentence(reason))

    def on_problem(self, text: str) -> None:
        """What keeps sharing from working as asked, in a sentence."""
        self._banners.show_banner(PROBLEM_KEY, "warning", _sentence(text))

    # ------------------------------------------------------------------ showing

    def mark_icon(self, icon: QIcon) -> QIcon:
        """``icon`` with the red "sharing" dot while sharing (the tray's icon)."""
        return with_sharing_dot(icon, self._theme.palette.red) if self.sharing else icon

    def _show_button(self, _palette: Palette | None = None) -> None:
        palette = self._theme.palette
        sharing = self.sharing
        button = self._button
        button.setChecked(sharing)
        color = palette.red if sharing else palette.text_muted
        button.setIcon(self._theme.assets.icon("share-screen", color, 20))
        if sharing:
            tip = f"Stop sharing your screen ({SHARE_SHORTCUT})"
        else:
            tip = f"Share your screen or a window with Sammy ({SHARE_SHORTCUT})"
        button.setToolTip(tip)
        button.setAccessibleDescription(tip)
