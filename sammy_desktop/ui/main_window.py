"""The main window: header with the app's state, notices, and the conversation area."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QMainWindow, QVBoxLayout, QWidget

from sammy_desktop.config import Settings

__all__ = ["MainWindow"]


class MainWindow(QMainWindow):
    """The app's one window.

    Args:
        settings: the settings in use.
        notices: messages for the person shown as banners under the header (a settings
            file that could not be read, for one).
        on_quit: called when the person closes the window or presses Ctrl+Q.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        notices: Sequence[str] = (),
        on_quit: Callable[[], None],
    ) -> None:
        super().__init__()
        self._settings = settings
        self._on_quit = on_quit
        self._quitting = False
        self.setWindowTitle("Sammy")
        self.resize(420, 680)
        self.setAccessibleName("Sammy Desktop")

        central = QWidget(self)
        layout = QVBoxLayout(central)
        layout.setContentsMargins(16, 12, 16, 16)
        layout.setSpacing(8)

        header = QHBoxLayout()
        title = QLabel("Sammy", central)
        title.setObjectName("appTitle")
        title.setStyleSheet("font-size: 18px; font-weight: 600;")
        self.state_label = QLabel("Disconnected", central)
        self.state_label.setObjectName("statePill")
        self.state_label.setAccessibleName("Connection state")
        header.addWidget(title)
        header.addStretch(1)
        header.addWidget(self.state_label)
        layout.addLayout(header)

        self.notice_labels: list[QLabel] = []
        for text in notices:
            banner = QLabel(text, central)
            banner.setObjectName("noticeBanner")
            banner.setWordWrap(True)
            banner.setFrameShape(QFrame.Shape.StyledPanel)
            banner.setAccessibleName("Notice")
            banner.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            layout.addWidget(banner)
            self.notice_labels.append(banner)

        self.empty_label = QLabel("Not connected yet.", central)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addWidget(self.empty_label, 1)
        self.setCentralWidget(central)

        quit_shortcut = QShortcut(QKeySequence.StandardKey.Quit, self)
        quit_shortcut.activated.connect(self._on_quit)
        if quit_shortcut.key().isEmpty():
            quit_shortcut.setKey(QKeySequence("Ctrl+Q"))

    def close_for_quit(self) -> None:
        """Close the window as part of quitting (does not ask to quit again)."""
        self._quitting = True
        self.close()

    def closeEvent(self, event: QCloseEvent) -> None:
        """Closing the window quits the app."""
        if not self._quitting:
            self._on_quit()
        event.accept()
