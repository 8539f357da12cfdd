"""The one-time offer of a pip install (``make run``) to add Sammy to the applications menu.

On Linux, when no ``sammy-desktop.desktop`` is in the menus yet and the person has not
answered before (:func:`~sammy_desktop.integration.desktop_entry.should_offer`), the window
shows a banner: "Add Sammy to your applications menu?" with Add and No thanks. Add writes
the menu entry (Exec: :func:`~sammy_desktop.integration.launch.program_path`) and its icon,
rendered here from ``resources/icons/app.svg``; either answer is remembered in the settings
(``desktop_entry_offered``). The frozen app's installer writes its own entry, so the frozen
app never asks; nor does a ``--config-dir`` profile, whose entry would start another Sammy.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QObject, Qt, Signal
from PySide6.QtGui import QImage, QImageWriter, QPainter
from PySide6.QtSvg import QSvgRenderer

from sammy_desktop.config.store import SettingsError
from sammy_desktop.integration import IntegrationError
from sammy_desktop.integration.desktop_entry import install, should_offer
from sammy_desktop.integration.launch import program_path

if TYPE_CHECKING:
    from sammy_desktop.ui.assets import Assets
    from sammy_desktop.ui.banners import BannerArea
    from sammy_desktop.ui.controls import UiTasks
    from sammy_desktop.ui.settings_state import SettingsState

__all__ = ["BANNER_KEY", "DesktopEntryOffer", "render_app_icon_png"]

_log = logging.getLogger(__name__)

BANNER_KEY: Final = "desktop-entry"
ICON_SIZE: Final = 256


def render_app_icon_png(assets: Assets, size: int = ICON_SIZE) -> bytes:
    """The app icon (``icons/app.svg``) as a PNG of ``size`` pixels square.

    Raises:
        AssetMissingError: the SVG is not in the resources folder.
        ValueError: it could not be drawn.
    """
    renderer = QSvgRenderer(str(assets.path("icons/app.svg")))
    if not renderer.isValid():
        raise ValueError("the app icon is not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    # QImageWriter: the one way to a buffer that PySide6 and its type stubs agree on (its
    # QImage.save wants a str format at run time, bytes in the stubs).
    if not QImageWriter(buffer, QByteArray(b"PNG")).write(image):
        raise ValueError("the app icon could not be written as PNG")
    buffer.close()
    return bytes(data.data())


class DesktopEntryOffer(QObject):
    """The banner that offers the menu entry, and what its buttons do.

    Args:
        banners: the main window's banner area.
        settings_state: where the answer is remembered.
        tasks: where the file work runs from (on a worker thread).
        assets: the app icon.
        is_profile: the app runs with ``--config-dir`` (no offer then).
        program: how this installation is started (:func:`program_path` by default).
        parent: the Qt parent.
    """

    offered = Signal()
    """The banner is showing."""
    finished = Signal(bool)
    """The person answered: True once the entry was written, False for No thanks."""

    def __init__(
        self,
        banners: BannerArea,
        settings_state: SettingsState,
        tasks: UiTasks,
        assets: Assets,
        *,
        is_profile: bool,
        program: Callable[[], str] = program_path,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._banners = banners
        self._state = settings_state
        self._tasks = tasks
        self._assets = assets
        self._is_profile = is_profile
        self._program = program

    def start(self) -> None:
        """Look (on a worker thread) whether to offer, and show the banner if so."""
        self._tasks.run(self._offer_if_wanted(), name="desktop-entry-offer")

    async def _offer_if_wanted(self) -> None:
        offered = self._state.settings.desktop_entry_offered
        if offered or self._is_profile:
            return
        if not await asyncio.to_thread(should_offer, offered=offered, is_profile=False):
            return
        self._banners.show_banner(
            BANNER_KEY,
            "info",
            "Add Sammy to your applications menu? Then you can start it from there like "
            "your other apps, and right-click it to talk, show or quit Sammy.",
            actions=[("Add", self.add), ("No thanks", self.decline)],
            dismissible=False,
        )
        self.offered.emit()

    def add(self) -> None:
        """Add: write the entry and the icon, then say where."""
        self._banners.remove(BANNER_KEY)
        self._tasks.run(self._add(), name="desktop-entry-add")

    async def _add(self) -> None:
        try:
            icon = render_app_icon_png(self._assets)
            written = await asyncio.to_thread(install, self._program(), icon)
        except (IntegrationError, OSError, ValueError) as exc:
            _log.warning("the applications menu entry: %s", exc)
            sentence = (
                exc.sentence
                if isinstance(exc, IntegrationError)
                else "Sammy could not add itself to the applications menu: its icon is "
                "missing from this installation."
            )
            self._banners.show_banner(BANNER_KEY, "warning", sentence)
            return
        _log.info("applications menu entry written: %s", written.entry)
        self._remember()
        self._banners.show_banner(
            BANNER_KEY,
            "success",
            f"Sammy is in your applications menu now (the entry is {written.entry}).",
        )
        self.finished.emit(True)

    def decline(self) -> None:
        """No thanks: remember it, and do not ask again."""
        self._banners.remove(BANNER_KEY)
        self._remember()
        self.finished.emit(False)

    def _remember(self) -> None:
        try:
            self._state.update(desktop_entry_offered=True)
        except SettingsError as exc:
            _log.warning("could not remember the applications menu answer: %s", exc)
