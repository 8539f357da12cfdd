"""The settings pane's notes folder button (Tools page) and the global hotkey's note (Talking)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QApplication, QPushButton, QScrollArea
from pytestqt.qtbot import QtBot

from sammy_desktop.ui.settings import SettingsSection, SettingsWindow
from sammy_desktop.ui.settings.tools_page import NotesFolderCard

from .conftest import MakeSettingsWindow


class FolderOpener:
    """Records the folders the pane asked the desktop to open; answers like the desktop."""

    def __init__(self, *, works: bool = True) -> None:
        self.opened: list[Path] = []
        self.existed: list[bool] = []
        self.works = works

    def __call__(self, folder: Path) -> bool:
        self.opened.append(folder)
        self.existed.append(folder.is_dir())
        return self.works


def _notes(window: SettingsWindow) -> NotesFolderCard:
    card = window.tools_page.notes_folder
    assert card is not None, "the Tools page has no notes folder card"
    return card


def test_open_notes_folder_creates_the_folder_then_opens_it(
    make_settings_window: MakeSettingsWindow,
    tmp_path: Path,
) -> None:
    notes = tmp_path / "data" / "notes"
    opener = FolderOpener()
    window = make_settings_window(open_folder=opener, notes_folder=notes)
    window.show_section(SettingsSection.TOOLS)
    button = _notes(window).button
    assert button.text() == "Open notes folder"
    assert button.isVisibleTo(window)
    assert not notes.exists()
    button.click()
    assert opener.opened == [notes]
    assert opener.existed == [True]  # made before the desktop was asked
    assert _notes(window).error_label.isHidden()


def test_a_desktop_that_cannot_open_it_gets_a_sentence_not_silence(
    make_settings_window: MakeSettingsWindow,
    tmp_path: Path,
) -> None:
    notes = tmp_path / "notes"
    window = make_settings_window(open_folder=FolderOpener(works=False), notes_folder=notes)
    window.show_section(SettingsSection.TOOLS)
    assert window.tools_page.open_notes_folder() is False
    error = _notes(window).error_label
    assert not error.isHidden()
    assert str(notes) in error.text()
    assert "file manager" in error.text()


def test_a_notes_folder_that_cannot_be_made_is_said_and_not_opened(
    make_settings_window: MakeSettingsWindow,
    tmp_path: Path,
) -> None:
    blocker = tmp_path / "data"
    blocker.write_text("a file where the data folder should be")
    opener = FolderOpener()
    window = make_settings_window(open_folder=opener, notes_folder=blocker / "notes")
    _notes(window).button.click()
    assert opener.opened == []
    said = _notes(window).error_label.text()
    assert said == (
        f"The notes folder {blocker / 'notes'} could not be made: a part of its path is a "
        "file, not a folder. Make it yourself, then try again."
    )
    assert "Errno" not in said and "Not a directory" not in said  # no errno text


def test_without_a_notes_folder_there_is_no_button(
    make_settings_window: MakeSettingsWindow,
) -> None:
    window = make_settings_window(open_folder=FolderOpener())
    assert window.tools_page.notes_folder is None
    assert window.tools_page.open_notes_folder() is False


def test_the_about_page_opens_its_folders_through_the_same_opener(
    make_settings_window: MakeSettingsWindow,
    tmp_path: Path,
) -> None:
    opener = FolderOpener()
    window = make_settings_window(open_folder=opener)
    window.show_section(SettingsSection.ABOUT)
    buttons = [
        b for b in window.findChildren(QPushButton) if b.accessibleName() == "Open the log folder"
    ]
    assert len(buttons) == 1
    buttons[0].click()
    assert opener.opened == [tmp_path / "logs"]


def test_the_hotkey_note_sits_under_its_switch_and_hides_when_empty(
    make_settings_window: MakeSettingsWindow,
) -> None:
    window = make_settings_window(open_folder=FolderOpener())
    window.show_section(SettingsSection.TALKING)
    card = window.cards["global_hotkey"]
    status = window.talking_page.hotkey_status
    assert status.parent() is card
    assert status.isHidden()
    assert "global_hotkey_keys" in window.cards  # the combination is editable beside it
    window.show_hotkey_status("Not available on this desktop: Wayland.")
    assert status.isVisibleTo(window)
    assert status.text() == "Not available on this desktop: Wayland."
    window.show_hotkey_status("")
    assert status.isHidden()


def test_screenshots_of_the_notes_button_and_the_hotkey_note(
    qtbot: QtBot,
    make_settings_window: MakeSettingsWindow,
    tmp_path: Path,
    test_output_dir: Path,
) -> None:
    window = make_settings_window(open_folder=FolderOpener(), notes_folder=tmp_path / "notes")
    window.show_hotkey_status(
        "Not available on this desktop: this desktop runs Wayland, which does not let apps "
        "see keys pressed in other windows. Hold Space in Sammy's window to talk instead."
    )
    window.show()
    qtbot.waitExposed(window)
    folder = test_output_dir / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    window.show_section(SettingsSection.TOOLS)
    QApplication.processEvents()  # lay the page out at its size before the picture
    assert window.grab().save(str(folder / "settings-tools-notes-folder.png"))
    window.show_section(SettingsSection.TALKING)
    QApplication.processEvents()
    page = window.pages.currentWidget()
    assert isinstance(page, QScrollArea)
    page.ensureWidgetVisible(window.talking_page.hotkey_status)
    assert not page.horizontalScrollBar().isVisible()
    assert window.talking_page.hotkey_status.isVisible()
    assert window.grab().save(str(folder / "settings-talking-hotkey-note.png"))
