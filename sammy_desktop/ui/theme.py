"""Light and dark themes from one stylesheet template, following the OS by default.

The palette is the only place colours are chosen. :class:`ThemeController` fills the
template's ``${name}`` placeholders with a :class:`Palette`, applies the result to the whole
application and re-applies it when the OS switches between light and dark (for the
``system`` theme setting). Custom-painted widgets take their colours from the same
stylesheet through ``qproperty-`` entries, so they follow along without extra wiring.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from string import Template

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from sammy_desktop.config import Theme
from sammy_desktop.ui.assets import Assets

__all__ = ["DARK", "LIGHT", "Palette", "ThemeController", "render_stylesheet"]


@dataclass(frozen=True, slots=True)
class Palette:
    """The colours of one theme; each field fills ``${field}`` in the stylesheet."""

    name: str
    bg: str
    surface: str
    surface_alt: str
    border: str
    text: str
    text_muted: str
    text_faint: str
    accent: str
    accent_hover: str
    accent_text: str
    accent_soft: str
    accent_border: str
    focus: str
    focus_on_accent: str
    idle: str
    amber: str
    amber_soft: str
    amber_border: str
    amber_text: str
    green: str
    green_soft: str
    green_border: str
    red: str
    red_soft: str
    red_border: str
    user_bubble: str
    switch_off: str
    backdrop: str
    scrollbar: str

    @property
    def is_dark(self) -> bool:
        """Whether this is a dark theme."""
        return self.name == "dark"


LIGHT = Palette(
    name="light",
    bg="#f6f7f9",
    surface="#ffffff",
    surface_alt="#f0f2f5",
    border="#e1e4e9",
    text="#1c2027",
    text_muted="#5f6672",
    text_faint="#8a919c",
    accent="#4f6bed",
    accent_hover="#435ed8",
    accent_text="#ffffff",
    accent_soft="#e8ecfd",
    accent_border="#c9d2fa",
    focus="#4f6bed",
    focus_on_accent="#1c2a7a",
    idle="#9aa1ac",
    amber="#c98304",
    amber_soft="#fdf3dc",
    amber_border="#f2dba5",
    amber_text="#7a4f00",
    green="#1f9d55",
    green_soft="#e3f5ea",
    green_border="#b6e2c7",
    red="#d14343",
    red_soft="#fcebeb",
    red_border="#f3c4c4",
    user_bubble="#e8ecfd",
    switch_off="#cfd4dc",
    backdrop="rgba(20, 24, 32, 0.28)",
    scrollbar="#cfd4dc",
)

DARK = Palette(
    name="dark",
    bg="#15171c",
    surface="#1e2127",
    surface_alt="#262a31",
    border="#30353e",
    text="#e8eaef",
    text_muted="#a0a7b3",
    text_faint="#747b87",
    accent="#7b91ff",
    accent_hover="#8fa2ff",
    accent_text="#0f1115",
    accent_soft="#262d4d",
    accent_border="#36406b",
    focus="#9aabff",
    focus_on_accent="#ffffff",
    idle="#7c838f",
    amber="#f0b03f",
    amber_soft="#3a2f17",
    amber_border="#5a4620",
    amber_text="#f6cf86",
    green="#4cc37f",
    green_soft="#1a3326",
    green_border="#285039",
    red="#f07171",
    red_soft="#3a1e21",
    red_border="#5e2c30",
    user_bubble="#262d4d",
    switch_off="#454b56",
    backdrop="rgba(0, 0, 0, 0.45)",
    scrollbar="#3a404a",
)


def render_stylesheet(template: str, palette: Palette, icons_dir: Path) -> str:
    """Fill ``template``'s ``${name}`` placeholders from ``palette``.

    ``${icons_dir}`` is the folder of the icons the stylesheet itself uses (arrows).

    Raises:
        KeyError: the template names a colour the palette does not have.
    """
    values = {key: str(value) for key, value in asdict(palette).items()}
    values["icons_dir"] = icons_dir.as_posix()
    return Template(template).substitute(values)


class ThemeController(QObject):
    """Applies the chosen theme to the application and follows the OS when asked to.

    It also sets the Fusion style, on which the stylesheet is designed.

    Args:
        app: the application to style.
        assets: where the stylesheet template is.
        theme: the initial setting (``system`` follows the OS).
    """

    palette_changed = Signal(object)
    """Emitted with the new :class:`Palette` after it was applied."""

    def __init__(self, app: QApplication, assets: Assets, theme: Theme = Theme.SYSTEM) -> None:
        super().__init__(app)
        self._app = app
        # Fusion draws the same everywhere, so the stylesheet looks alike on every OS.
        app.setStyle("Fusion")
        self._assets = assets
        self._template = assets.stylesheet_template()
        self._theme = theme
        self._palette = self._resolve()
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._on_color_scheme_changed)
        self._apply()

    @property
    def palette(self) -> Palette:
        """The palette in use."""
        return self._palette

    @property
    def assets(self) -> Assets:
        """The resources the theme was built from (icons are drawn in its colours)."""
        return self._assets

    def set_theme(self, theme: Theme) -> None:
        """Switch to ``theme`` (light, dark or system) at once."""
        self._theme = theme
        new = self._resolve()
        if new != self._palette:
            self._palette = new
            self._apply()

    def icon_color(self, muted: bool = False) -> str:
        """The colour icons are drawn in on ordinary surfaces."""
        return self._palette.text_muted if muted else self._palette.text

    def _resolve(self) -> Palette:
        if self._theme is Theme.LIGHT:
            return LIGHT
        if self._theme is Theme.DARK:
            return DARK
        scheme = QGuiApplication.styleHints().colorScheme()
        return DARK if scheme == Qt.ColorScheme.Dark else LIGHT

    def _apply(self) -> None:
        icons = self._assets.root / "icons"
        self._app.setStyleSheet(render_stylesheet(self._template, self._palette, icons))
        # Rich-text links (the sources under an answer) take their colour from QPalette.
        qt_palette = self._app.palette()
        qt_palette.setColor(QPalette.ColorRole.Link, QColor(self._palette.accent))
        qt_palette.setColor(QPalette.ColorRole.LinkVisited, QColor(self._palette.accent))
        self._app.setPalette(qt_palette)
        self.palette_changed.emit(self._palette)

    def _on_color_scheme_changed(self, _scheme: Qt.ColorScheme) -> None:
        if self._theme is Theme.SYSTEM:
            self.set_theme(Theme.SYSTEM)
