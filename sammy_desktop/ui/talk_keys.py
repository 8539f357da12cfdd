"""The keyboard's talk key: Space held in the window, and the global hotkey, as one key.

Space held anywhere in the main window talks, unless a text field has the focus (there it
types a space) or a confirmation question is open (there Space does nothing: a tap meant for
talking must not answer the question). A Space held before the question appeared still ends
the talk when it comes up.
The watch is on the window's native :class:`QWindow`, which sees every key event for the
window before the focused widget does (a focused button would take Space as a click), and
not on the application: an application-wide filter ran Python for every event in the app,
some hundreds a second (each qasync ``call_soon`` is a Qt timer event), for a key press.

A held key repeats. Qt marks repeats, except on X servers without detectable auto-repeat
(and on busy machines), where a held key arrives as unmarked release/press pairs; a
:class:`~sammy_desktop.ui.key_state.KeyState` then says whether the key is really up.

The global hotkey (:class:`~sammy_desktop.ui.global_hotkey.GlobalHotkey`) hands its presses
over here too. Both can be down at once (Ctrl+Alt+Space typed into this window reaches both):
:class:`TalkKeys` emits one press for the first key down and one release for the last key
up, or click-to-toggle mode would flip twice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent, QWindow
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

from sammy_desktop.ui.key_state import KeyState

__all__ = ["TalkKeys", "types_space"]

_SPACE: Final = "space"
_HOTKEY: Final = "hotkey"
_TEXT_INPUTS: Final = (QLineEdit, QTextEdit, QPlainTextEdit, QAbstractSpinBox)


def types_space(widget: QWidget | None) -> bool:
    """Whether Space pressed in ``widget`` types a space (a text field), instead of talking."""
    if isinstance(widget, _TEXT_INPUTS):
        return True
    return isinstance(widget, QComboBox) and widget.isEditable()


class TalkKeys(QObject):
    """Space and the global hotkey, merged into one press and one release.

    Args:
        question_open: whether a confirmation question is open (Space is then the sheet's).
        key_state: asks the window system whether Space is still held when a release
            arrives unmarked (X11 without detectable auto-repeat); None trusts Qt.
        parent: the Qt parent.
    """

    pressed = Signal()
    """The first talk key went down."""

    released = Signal()
    """The last talk key came up."""

    def __init__(
        self,
        *,
        question_open: Callable[[], bool],
        key_state: KeyState | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._question_open = question_open
        self._key_state = key_state
        self._held: set[str] = set()
        self._watched: QWindow | None = None

    @property
    def held(self) -> bool:
        """Whether a talk key is down."""
        return bool(self._held)

    def watch(self, window: QWindow | None) -> None:
        """Take Space from ``window``'s key events (the main window's native window).

        Called on every show: the native window exists from the first show on, and a new
        one replaces the old.
        """
        if window is None or window is self._watched:
            return
        self.unwatch()
        window.installEventFilter(self)
        self._watched = window

    def unwatch(self) -> None:
        """Stop watching the window's keys (at quit)."""
        if self._watched is not None:
            self._watched.removeEventFilter(self)
            self._watched = None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Space pressed and released in the watched window is the talk key."""
        kind = event.type()
        if kind not in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
            return False
        assert isinstance(event, QKeyEvent)
        if event.key() != Qt.Key.Key_Space:
            return False
        ending_talk = kind == QEvent.Type.KeyRelease and _SPACE in self._held
        if not ending_talk and not self._space_is_ours():
            return False
        if event.isAutoRepeat():
            return True
        if kind == QEvent.Type.KeyPress:
            self._hold(_SPACE)
        elif self._key_state is not None and self._key_state.is_down(event.nativeScanCode()):
            pass  # an auto-repeat Qt did not mark: the key is still held
        else:
            self._let_go(_SPACE)
        return True

    def on_window_deactivated(self) -> None:
        """The window lost the focus: let go of Space, whose key-up may go elsewhere."""
        self._let_go(_SPACE)

    def on_hotkey_pressed(self) -> None:
        """The global hotkey went down (in any window)."""
        self._hold(_HOTKEY)

    def on_hotkey_released(self) -> None:
        """The global hotkey came up."""
        self._let_go(_HOTKEY)

    def _hold(self, key: str) -> None:
        if key in self._held:
            return
        self._held.add(key)
        if len(self._held) == 1:
            self.pressed.emit()

    def _let_go(self, key: str) -> None:
        if key not in self._held:
            return
        self._held.discard(key)
        if not self._held:
            self.released.emit()

    def _space_is_ours(self) -> bool:
        if self._question_open():
            return False  # the sheet keeps Space from its buttons
        return not types_space(QApplication.focusWidget())
