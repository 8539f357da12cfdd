"""The settings window: the list of sections on the left, the page it names on the right.

The pages are their own modules (one per section, see the package's docstring); this
window only holds them, switches between them, and connects them to the rest of the app:
the bridge feeds the devices page's mic meter and tells the tools page whether a switch
reached the running conversation and how each MCP server is doing, and a saved or removed
key is passed on to the app (and to Voice & language, whose list of the key's models is
then out of date).
Closing only hides the window: every change was applied already.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import QHBoxLayout, QListWidget, QListWidgetItem, QStackedWidget, QWidget

from sammy_desktop.ui.focus_frame import track_keyboard_focus
from sammy_desktop.ui.settings.about_page import AboutInfo, AboutPage
from sammy_desktop.ui.settings.account_page import AccountPage
from sammy_desktop.ui.settings.appearance_page import AppearancePage
from sammy_desktop.ui.settings.devices_page import DevicesPage
from sammy_desktop.ui.settings.page import FieldsPage, SettingsPage
from sammy_desktop.ui.settings.privacy_page import PrivacyPage
from sammy_desktop.ui.settings.screen_page import ScreenPage
from sammy_desktop.ui.settings.sections import SettingsSection
from sammy_desktop.ui.settings.talking_page import TalkingPage
from sammy_desktop.ui.settings.tools_page import ToolCatalog, ToolsPage
from sammy_desktop.ui.settings.voice_page import VoicePage
from sammy_desktop.ui.url_opener import open_folder_on_desktop

if TYPE_CHECKING:
    from sammy_desktop.audio.devices import AudioDevice
    from sammy_desktop.config import AppPaths
    from sammy_desktop.config.secrets import SecretStore
    from sammy_desktop.core.ports import ClientFactory
    from sammy_desktop.tools.mcp.servers import McpServers
    from sammy_desktop.ui.api_key import KeyChecker
    from sammy_desktop.ui.bridge import EventBridge
    from sammy_desktop.ui.confirmation import QtConfirmationPort
    from sammy_desktop.ui.controls import AgentControls, UiTasks
    from sammy_desktop.ui.settings.fields import FieldCard
    from sammy_desktop.ui.settings_state import SettingsState
    from sammy_desktop.ui.theme import Palette, ThemeController

__all__ = ["SettingsWindow"]

_SECTION_ICONS: Final = {
    SettingsSection.ACCOUNT: "key",
    SettingsSection.VOICE: "voice",
    SettingsSection.TALKING: "sliders",
    SettingsSection.DEVICES: "speaker",
    SettingsSection.TOOLS: "tool",
    SettingsSection.SCREEN: "monitor",
    SettingsSection.PRIVACY: "shield",
    SettingsSection.APPEARANCE: "palette",
    SettingsSection.ABOUT: "info",
}


class SettingsWindow(QWidget):
    """The settings, applied as they change.

    Args:
        settings_state: the live settings.
        secrets: the API key store.
        theme: colours and icons.
        tasks: runs blocking calls in threads and the agent's coroutines.
        tools: the registered tools; the Tools page is empty without it.
        controls: the agent, to switch tools mid-session.
        list_devices: lists audio devices (``sammy_desktop.audio.devices.list_devices``).
        bridge: feeds the devices page's meters, and tells it when devices come or go.
        on_test_tone: plays the test tone through the chosen speaker.
        on_key_changed: called after the key was saved or removed (reconnect, hide the
            welcome panel...).
        check_key: asks the service whether a pasted key works before Account saves it.
        on_try_demo: starts the offline demo (Account's "Try the offline demo").
        on_leave_demo: leaves the demo for the saved key (the same button, in the demo).
        about: what the About page shows (and the notes folder for the Tools page).
        paths: the app's folders; Privacy offers to delete the history in them.
        open_folder: shows a folder in the file manager;
            :func:`~sammy_desktop.ui.url_opener.open_folder_on_desktop` by default (tests
            pass a recorder).
        client_factory: builds the genai client for the key and endpoint in use (the
            app's ``Backend``), so Voice & language can list the models the key can use;
            without it the page offers only the models the app knows.
        code_execution_unavailable: why the code execution switch does nothing with a
            model (the tool pack's ``code_execution_unavailable_reason``), for the Tools
            page.
        confirmations: the confirmation port; the Tools page lists its "always" answers,
            each revocable.
        mcp: the person's MCP servers, a group each on the Tools page (their status comes
            through the bridge); None when MCP is unavailable.
        parent: the Qt parent.
    """

    key_changed = Signal(bool)
    """The key was saved (True) or removed (False)."""

    def __init__(
        self,
        settings_state: SettingsState,
        secrets: SecretStore,
        theme: ThemeController,
        tasks: UiTasks,
        *,
        tools: ToolCatalog | None = None,
        controls: AgentControls | None = None,
        list_devices: Callable[[], Sequence[AudioDevice]] | None = None,
        bridge: EventBridge | None = None,
        on_test_tone: Callable[[], None] | None = None,
        on_key_changed: Callable[[bool], None] | None = None,
        check_key: KeyChecker | None = None,
        on_try_demo: Callable[[], None] | None = None,
        on_leave_demo: Callable[[], None] | None = None,
        about: AboutInfo | None = None,
        paths: AppPaths | None = None,
        open_folder: Callable[[Path], bool] = open_folder_on_desktop,
        client_factory: ClientFactory | None = None,
        code_execution_unavailable: Callable[[str], str | None] | None = None,
        confirmations: QtConfirmationPort | None = None,
        mcp: McpServers | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self._theme = theme
        self._bridge = bridge
        self._on_key_changed = on_key_changed
        self.setObjectName("settingsWindow")
        self.setWindowTitle("Sammy settings")
        self.setAccessibleName("Settings")
        self.resize(760, 560)
        self.setMinimumSize(600, 420)

        self._on_leave_demo = on_leave_demo
        self.account_page = AccountPage(
            settings_state, secrets, tasks, check_key=check_key, on_try_demo=on_try_demo
        )
        self.voice_page = VoicePage(settings_state, tasks, client_factory=client_factory)
        self.talking_page = TalkingPage(
            settings_state, config_dir=paths.profile_dir if paths is not None else None
        )
        self.devices_page = DevicesPage(
            settings_state,
            tasks,
            theme.assets,
            list_devices=list_devices,
            on_test_tone=on_test_tone,
        )
        self.tools_page = ToolsPage(
            settings_state,
            tasks,
            tools=tools,
            controls=controls,
            notes_folder=about.notes_folder if about is not None else None,
            open_folder=open_folder,
            code_execution_unavailable=code_execution_unavailable,
            confirmations=confirmations,
            mcp=mcp,
            secrets=secrets,
        )
        self.screen_page = ScreenPage(settings_state)
        self.privacy_page = PrivacyPage(settings_state, paths=paths)
        self.appearance_page = AppearancePage(settings_state)
        self.about_page = AboutPage(about, open_folder)
        self._build()
        self.on_palette_changed(theme.palette)
        self._connect_signals()
        self.show_section(SettingsSection.ACCOUNT)

    def _build(self) -> None:
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.section_list = QListWidget(self)
        self.section_list.setObjectName("sectionList")
        self.section_list.setAccessibleName("Sections")
        self.section_list.setFixedWidth(212)
        self.section_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        track_keyboard_focus(self.section_list)  # its focus border only for the keyboard
        self.pages = QStackedWidget(self)
        layout.addWidget(self.section_list)
        layout.addWidget(self.pages, 1)
        for page in self.all_pages:
            self.section_list.addItem(QListWidgetItem(page.title))
            self.pages.addWidget(page)

    def _connect_signals(self) -> None:
        self._theme.palette_changed.connect(self.on_palette_changed)
        self.section_list.currentRowChanged.connect(self.pages.setCurrentIndex)
        self.account_page.key_changed.connect(self.on_key_changed)
        self.account_page.leave_demo_requested.connect(self.on_leave_demo_requested)
        if self._bridge is not None:
            self._bridge.input_level.connect(self.devices_page.mic_meter.set_dbfs)
            self._bridge.output_level.connect(self.devices_page.speaker_meter.set_dbfs)
            self._bridge.audio_devices_changed.connect(self.devices_page.on_devices_changed)
            self._bridge.tools_changed.connect(self.tools_page.on_tools_changed)
            self._bridge.mcp_server_status_changed.connect(self.tools_page.on_mcp_status)
            self._bridge.mcp_config_read.connect(self.tools_page.on_mcp_config_read)
        close = QShortcut(QKeySequence(QKeySequence.StandardKey.Close), self)
        close.activated.connect(self.close)
        escape = QShortcut(QKeySequence("Esc"), self)
        escape.activated.connect(self.close)

    # ------------------------------------------------------------------ public API

    @property
    def all_pages(self) -> tuple[SettingsPage, ...]:
        """The pages, in the order the section list shows them."""
        return (
            self.account_page,
            self.voice_page,
            self.talking_page,
            self.devices_page,
            self.tools_page,
            self.screen_page,
            self.privacy_page,
            self.appearance_page,
            self.about_page,
        )

    @property
    def cards(self) -> dict[str, FieldCard]:
        """Every page's field cards, by setting name (``privacy.<name>`` for privacy)."""
        return {
            name: card
            for page in self.all_pages
            if isinstance(page, FieldsPage)
            for name, card in page.cards.items()
        }

    @property
    def current_section(self) -> str:
        """The section shown."""
        item = self.section_list.currentItem()
        return item.text() if item is not None else ""

    def show_section(self, section: str = "") -> None:
        """Show the window at ``section`` (a :class:`SettingsSection` name; "" keeps it)."""
        titles = [page.title for page in self.all_pages]
        if section in titles:
            self.section_list.setCurrentRow(titles.index(section))
        elif self.section_list.currentRow() < 0:
            self.section_list.setCurrentRow(0)

    def open_section(self, section: str = "") -> None:
        """Show the section and bring the window to the front (the main window's slot)."""
        self.show_section(section)
        if section == SettingsSection.DEVICES or not self.devices_page.device_names_loaded:
            self.devices_page.refresh_devices()
        self.show()
        self.raise_()
        self.activateWindow()

    def show_hotkey_status(self, text: str) -> None:
        """Say under the global hotkey switch whether it works here, and why not ("" hides)."""
        self.talking_page.show_hotkey_status(text)

    def show_hotkey_commands(self, shown: bool) -> None:
        """Offer the command lines to bind where the hotkey cannot work (True), or not."""
        self.talking_page.show_hotkey_commands(shown)

    # ------------------------------------------------------------------ slots

    def on_key_changed(self, saved: bool) -> None:
        """The key was saved (True) or removed (False) on the Account page: tell the app."""
        self.key_changed.emit(saved)
        self.voice_page.on_key_changed(saved)
        if self._on_key_changed is not None:
            self._on_key_changed(saved)

    def on_leave_demo_requested(self) -> None:
        """Account's button asked to leave the offline demo for the saved key."""
        if self._on_leave_demo is not None:
            self._on_leave_demo()

    def on_palette_changed(self, palette: Palette) -> None:
        """The section icons, and the devices page's buttons, in the theme's colours."""
        assets = self._theme.assets
        for row in range(self.section_list.count()):
            item = self.section_list.item(row)
            item.setIcon(assets.icon(_SECTION_ICONS[item.text()], palette.text_muted, 18))
        self.devices_page.on_palette_changed(palette)

    def closeEvent(self, event: QCloseEvent) -> None:
        """Closing only hides the settings; they were applied already."""
        self.account_page.forget_typed_key()
        event.accept()
