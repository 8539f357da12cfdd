"""The settings window: sections on the left, generated pages on the right.

Pages follow UI.md: Account (the API key and the connection), Voice & language, Talking,
Audio devices (with refresh, a live mic meter and a test tone), Tools (grouped by
category, a switch each, "asks first" on risky ones), Privacy, Appearance, About. Every
change applies at once through :class:`SettingsState`; a refused value is marked on its
field with a sentence naming it, and nothing is changed.

The key is written to the keyring and never read back into a widget. Keyring and
device calls can block (D-Bus, PortAudio), so they run in a worker thread.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol

from PySide6.QtCore import Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QCloseEvent, QDesktopServices, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from sammy_desktop.audio.devices import AudioDevice
from sammy_desktop.config import PrivacySettings, Settings
from sammy_desktop.config.secrets import (
    KeySource,
    SecretStore,
    SecretStoreError,
)
from sammy_desktop.config.settings import DEFAULT_MODEL
from sammy_desktop.config.store import SettingsError
from sammy_desktop.core.events import ToolsChanged
from sammy_desktop.tools.capabilities import capabilities_for
from sammy_desktop.tools.kinds import ToolCategory
from sammy_desktop.ui.bridge import EventBridge
from sammy_desktop.ui.controls import AgentControls, UiTasks
from sammy_desktop.ui.painted import LevelMeter, ToggleSwitch
from sammy_desktop.ui.settings.sections import SettingsSection
from sammy_desktop.ui.settings_fields import (
    ApplicationListError,
    FieldCard,
    build_editor,
    can_edit,
    format_applications,
    parse_applications,
)
from sammy_desktop.ui.settings_state import SettingsState
from sammy_desktop.ui.theme import Palette, ThemeController

__all__ = [
    "AboutInfo",
    "SettingsWindow",
    "ToolCatalog",
    "ToolInfo",
    "open_folder_on_desktop",
]

_log = logging.getLogger(__name__)

VOICES: Final = ("Puck", "Charon", "Kore", "Fenrir", "Aoede", "Leda", "Orus", "Zephyr")
_SECTION_ICONS: Final = {
    SettingsSection.ACCOUNT: "key",
    SettingsSection.VOICE: "voice",
    SettingsSection.TALKING: "sliders",
    SettingsSection.DEVICES: "speaker",
    SettingsSection.TOOLS: "tool",
    SettingsSection.PRIVACY: "shield",
    SettingsSection.APPEARANCE: "palette",
    SettingsSection.ABOUT: "info",
}
_CATEGORY_TITLES: Final = {
    ToolCategory.ACTION: "Actions",
    ToolCategory.CONTEXT: "Context",
    ToolCategory.SYSTEM: "System",
}
# Fields with a hand-made editor (or no editor) instead of the generated one.
_CUSTOM_FIELDS: Final = frozenset(
    {
        "schema_version",
        "model",
        "voice",
        "input_device",
        "output_device",
        "enabled_tools",
        "privacy",
    }
)


class ToolInfo(Protocol):
    """What the tools page shows of a tool (``ToolDefinition`` satisfies it)."""

    @property
    def name(self) -> str:
        """The function name."""
        ...

    @property
    def description(self) -> str:
        """What it does."""
        ...

    @property
    def category(self) -> ToolCategory:
        """Action, context or system."""
        ...

    @property
    def asks_first(self) -> bool:
        """Whether the person is asked before it acts."""
        ...


class ToolCatalog(Protocol):
    """The registered tools (``ToolManager`` satisfies it)."""

    @property
    def tools(self) -> Sequence[ToolInfo]:
        """Every registered tool."""
        ...

    def is_enabled(self, name: str) -> bool:
        """Whether the model may use ``name`` now."""
        ...


@dataclass(frozen=True, slots=True)
class AboutInfo:
    """What the About page shows, and the folders other pages open.

    Attributes:
        notes_folder: where the notes tools keep their file (``AppPaths.notes_dir``); the
            Tools page has an "Open notes folder" button when it is given.
    """

    version: str
    log_folder: Path
    data_folder: Path
    config_folder: Path
    keyring_backend: str = ""
    notes_folder: Path | None = None


def open_folder_on_desktop(folder: Path) -> bool:
    """Show ``folder`` in the desktop's file manager; False when the desktop refused."""
    return bool(QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder))))


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


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
        bridge: feeds the mic meter on the devices page.
        on_test_tone: plays the test tone through the chosen speaker.
        on_key_changed: called after the key was saved or removed (reconnect, hide the
            welcome panel...).
        about: what the About page shows (and the notes folder for the Tools page).
        open_folder: shows a folder in the file manager; :func:`open_folder_on_desktop`
            by default (tests pass a recorder).
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
        about: AboutInfo | None = None,
        open_folder: Callable[[Path], bool] = open_folder_on_desktop,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self._state = settings_state
        self._secrets = secrets
        self._theme = theme
        self._tasks = tasks
        self._tools = tools
        self._controls = controls
        self._list_devices = list_devices
        self._bridge = bridge
        self._on_test_tone = on_test_tone
        self._on_key_changed = on_key_changed
        self._about = about
        self._open_folder = open_folder
        self.cards: dict[str, FieldCard] = {}
        self.tool_switches: dict[str, ToggleSwitch] = {}
        self._pages: dict[str, QWidget] = {}

        self.setObjectName("settingsWindow")
        self.setWindowTitle("Sammy settings")
        self.setAccessibleName("Settings")
        self.resize(760, 560)
        self.setMinimumSize(600, 420)
        self._build()
        self._apply_palette(theme.palette)
        self._connect_signals()
        self.show_section(SettingsSection.ACCOUNT)

    # ------------------------------------------------------------------ building

    def _build(self) -> None:
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.section_list = QListWidget(self)
        self.section_list.setObjectName("sectionList")
        self.section_list.setAccessibleName("Sections")
        self.section_list.setFixedWidth(212)
        self.section_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.pages = QStackedWidget(self)
        layout.addWidget(self.section_list)
        layout.addWidget(self.pages, 1)

        builders: dict[str, Callable[[QVBoxLayout], None]] = {
            SettingsSection.ACCOUNT: self._build_account,
            SettingsSection.VOICE: self._build_voice,
            SettingsSection.TALKING: lambda page: self._add_generated(page, "Talking"),
            SettingsSection.DEVICES: self._build_devices,
            SettingsSection.TOOLS: self._build_tools,
            SettingsSection.PRIVACY: self._build_privacy,
            SettingsSection.APPEARANCE: lambda page: self._add_generated(page, "Appearance"),
            SettingsSection.ABOUT: self._build_about,
        }
        for title, build in builders.items():
            item = QListWidgetItem(title)
            self.section_list.addItem(item)
            scroll = QScrollArea(self.pages)
            scroll.setObjectName("settingsPage")
            scroll.setWidgetResizable(True)
            scroll.setFrameShape(QFrame.Shape.NoFrame)
            content = QWidget(scroll)
            content.setObjectName("settingsPageContent")
            page = QVBoxLayout(content)
            page.setContentsMargins(24, 20, 24, 24)
            page.setSpacing(10)
            heading = QLabel(title, content)
            heading.setObjectName("pageTitle")
            page.addWidget(heading)
            build(page)
            page.addStretch(1)
            scroll.setWidget(content)
            self.pages.addWidget(scroll)
            self._pages[title] = scroll

        # Where the platform refuses a global hotkey, the switch says so, calmly.
        self.hotkey_status = QLabel("")
        self.hotkey_status.setObjectName("fieldDescription")
        self.hotkey_status.setWordWrap(True)
        self.hotkey_status.setAccessibleName("Global hotkey status")
        self.hotkey_status.hide()
        self.cards["global_hotkey"].add_below(self.hotkey_status)

    def _settings(self) -> Settings:
        return self._state.settings

    def _add_card(self, page: QVBoxLayout, name: str, editor: QWidget, inline: bool) -> FieldCard:
        info = Settings.model_fields[name]
        card = FieldCard(name, info.title or name, info.description or "", editor, inline=inline)
        page.addWidget(card)
        self.cards[name] = card
        return card

    def _add_field(self, page: QVBoxLayout, name: str) -> FieldCard:
        info = Settings.model_fields[name]

        def apply(value: Any) -> None:
            self.apply(name, value)

        editor, inline = build_editor(info, getattr(self._settings(), name), apply)
        return self._add_card(page, name, editor, inline)

    def _add_generated(self, page: QVBoxLayout, section: str) -> None:
        for name, info in Settings.model_fields.items():
            extra = info.json_schema_extra
            in_section = isinstance(extra, dict) and extra.get("section") == section
            # Fields without a generated editor (maps, lists) are edited in the JSON file.
            if in_section and name not in _CUSTOM_FIELDS and can_edit(info):
                self._add_field(page, name)

    def _group_title(self, page: QVBoxLayout, text: str) -> None:
        label = QLabel(text)
        label.setObjectName("groupTitle")
        page.addSpacing(6)
        page.addWidget(label)

    def _build_account(self, page: QVBoxLayout) -> None:
        card = QFrame()
        card.setObjectName("fieldCard")
        layout = QVBoxLayout(card)
        layout.setContentsMargins(14, 12, 14, 12)
        layout.setSpacing(6)
        title = QLabel("Gemini API key")
        title.setObjectName("fieldTitle")
        self.key_status = QLabel("")
        self.key_status.setObjectName("fieldDescription")
        self.key_status.setWordWrap(True)
        self.key_input = QLineEdit()
        self.key_input.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_input.setPlaceholderText("Paste a new key")
        self.key_input.setAccessibleName("New API key")
        self.key_input.setAccessibleDescription(
            "The key is saved in the system keyring and never shown again."
        )
        title.setBuddy(self.key_input)
        buttons = QHBoxLayout()
        self.save_key_button = QPushButton("Save key")
        self.save_key_button.setObjectName("primaryButton")
        self.remove_key_button = QPushButton("Remove key")
        self.remove_key_button.setObjectName("dangerButton")
        self.remove_key_button.setEnabled(False)  # until the keyring says a key is there
        buttons.addWidget(self.save_key_button)
        buttons.addWidget(self.remove_key_button)
        buttons.addStretch(1)
        self.key_error = QLabel("")
        self.key_error.setObjectName("fieldError")
        self.key_error.setWordWrap(True)
        self.key_error.hide()
        for widget in (title, self.key_status, self.key_input):
            layout.addWidget(widget)
        layout.addLayout(buttons)
        layout.addWidget(self.key_error)
        page.addWidget(card)
        self._refresh_key_status()
        self._group_title(page, "Connection")
        self._add_generated(page, "Account")

    def _build_voice(self, page: QVBoxLayout) -> None:
        settings = self._settings()
        model = QComboBox()
        model.setEditable(True)
        for name in dict.fromkeys((settings.model, DEFAULT_MODEL)):
            model.addItem(name)
        model.setCurrentText(settings.model)
        line = model.lineEdit()
        assert line is not None
        line.editingFinished.connect(lambda: self.apply("model", model.currentText().strip()))
        model.activated.connect(lambda _index: self.apply("model", model.currentText().strip()))
        card = self._add_card(page, "model", model, False)
        self.model_support = QLabel("")
        self.model_support.setObjectName("fieldDescription")
        self.model_support.setWordWrap(True)
        card.add_below(self.model_support)
        self._show_model_support(settings.model)

        voice = QComboBox()
        voice.setEditable(True)
        for name in dict.fromkeys((settings.voice, *VOICES)):
            voice.addItem(name)
        voice.setCurrentText(settings.voice)
        voice_line = voice.lineEdit()
        assert voice_line is not None
        voice_line.editingFinished.connect(lambda: self.apply("voice", voice.currentText().strip()))
        voice.activated.connect(lambda _index: self.apply("voice", voice.currentText().strip()))
        self._add_card(page, "voice", voice, False)
        self._add_generated(page, "Voice & language")

    def _show_model_support(self, model: str) -> None:
        caps = capabilities_for(model)
        parts = [
            "tools that run while it keeps talking"
            if caps.async_function_calling
            else "tools that answer before it goes on (no background tools)"
        ]
        if caps.affective_dialog:
            parts.append("affective dialog")
        if caps.thinking_config:
            parts.append("thinking settings")
        family = caps.family or "unknown model: treated conservatively"
        self.model_support.setText(f"Supports: {', '.join(parts)} ({family}).")

    def _build_devices(self, page: QVBoxLayout) -> None:
        self.input_combo = QComboBox()
        self.output_combo = QComboBox()
        self.input_combo.activated.connect(
            lambda _i: self.apply("input_device", self.input_combo.currentData() or "")
        )
        self.output_combo.activated.connect(
            lambda _i: self.apply("output_device", self.output_combo.currentData() or "")
        )
        self._add_card(page, "input_device", self.input_combo, False)
        self.mic_meter = LevelMeter()
        self.mic_meter.setAccessibleName("Microphone level")
        meter_row = QWidget()
        meter_layout = QHBoxLayout(meter_row)
        meter_layout.setContentsMargins(2, 4, 2, 0)
        meter_label = QLabel("Level")
        meter_label.setObjectName("meterLabel")
        meter_layout.addWidget(meter_label)
        meter_layout.addWidget(self.mic_meter, 1)
        self.cards["input_device"].add_below(meter_row)
        self._add_card(page, "output_device", self.output_combo, False)
        row = QHBoxLayout()
        self.refresh_button = QPushButton("Refresh devices")
        self.test_tone_button = QPushButton("Play a test tone")
        self.test_tone_button.setEnabled(self._on_test_tone is not None)
        row.addWidget(self.refresh_button)
        row.addWidget(self.test_tone_button)
        row.addStretch(1)
        page.addLayout(row)
        self.devices_note = QLabel("")
        self.devices_note.setObjectName("fieldDescription")
        self.devices_note.setWordWrap(True)
        page.addWidget(self.devices_note)
        self._fill_devices([])
        self._group_title(page, "Sound")
        for name in ("echo_cancellation", "earcons"):
            self._add_field(page, name)

    def _build_tools(self, page: QVBoxLayout) -> None:
        if self._tools is None or not self._tools.tools:
            note = QLabel("No tools are registered.")
            note.setObjectName("fieldDescription")
            page.addWidget(note)
            self._add_notes_folder(page)
            self._add_generated(page, "Tools")
            self._add_applications(page)
            return
        intro = QLabel(
            "Switch a tool off and the assistant stops using it at once, even mid-"
            "conversation. Tools marked “asks first” wait for your approval each time."
        )
        intro.setObjectName("fieldDescription")
        intro.setWordWrap(True)
        page.addWidget(intro)
        self.tools_status = QLabel("")
        self.tools_status.setObjectName("fieldDescription")
        self.tools_status.setAccessibleName("Tool changes")
        self.tools_status.hide()
        page.addWidget(self.tools_status)
        by_category: dict[ToolCategory, list[ToolInfo]] = {}
        for tool in self._tools.tools:
            by_category.setdefault(tool.category, []).append(tool)
        for category in sorted(by_category, key=list(ToolCategory).index):
            self._group_title(page, _CATEGORY_TITLES.get(category, str(category).capitalize()))
            for tool in by_category[category]:
                page.addWidget(self._tool_card(tool))
        self._add_notes_folder(page)
        self._group_title(page, "More")
        self._add_generated(page, "Tools")
        self._add_applications(page)

    def _tool_card(self, tool: ToolInfo) -> QFrame:
        card = QFrame()
        card.setObjectName("settingsToolCard")
        row = QHBoxLayout(card)
        row.setContentsMargins(14, 12, 14, 12)
        text = QVBoxLayout()
        text.setSpacing(4)
        top = QHBoxLayout()
        top.setSpacing(8)
        name = QLabel(tool.name)
        name.setObjectName("fieldTitle")
        top.addWidget(name)
        if tool.asks_first:
            badge = QLabel("asks first")
            badge.setObjectName("badge")
            badge.setToolTip("The assistant needs your approval every time it uses this tool.")
            top.addWidget(badge)
        top.addStretch(1)
        text.addLayout(top)
        description = QLabel(_first_line(tool.description))
        description.setObjectName("fieldDescription")
        description.setWordWrap(True)
        description.setToolTip(tool.description)
        text.addWidget(description)
        row.addLayout(text, 1)
        switch = ToggleSwitch()
        assert self._tools is not None
        switch.setChecked(self._tools.is_enabled(tool.name))
        confirm = ", asks first" if tool.asks_first else ""
        switch.setAccessibleName(f"{tool.name} ({tool.category}{confirm})")
        switch.setAccessibleDescription(_first_line(tool.description))
        switch.toggled.connect(lambda on, n=tool.name: self.set_tool_enabled(n, on))
        row.addWidget(switch, 0, Qt.AlignmentFlag.AlignVCenter)
        self.tool_switches[tool.name] = switch
        return card

    def _add_notes_folder(self, page: QVBoxLayout) -> None:
        folder = self._about.notes_folder if self._about is not None else None
        if folder is None:
            return
        self._group_title(page, "Notes")
        card = QFrame()
        card.setObjectName("fieldCard")
        layout = QVBoxLayout(card)
        layout.setContentsMargins(14, 12, 14, 12)
        layout.setSpacing(6)
        row = QHBoxLayout()
        text = QLabel(f"The notes Sammy keeps for you are in {folder}")
        text.setObjectName("fieldDescription")
        text.setWordWrap(True)
        text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.notes_folder_button = QPushButton("Open notes folder")
        self.notes_folder_button.setAccessibleName("Open the notes folder")
        self.notes_folder_button.setAccessibleDescription(str(folder))
        self.notes_folder_button.clicked.connect(lambda: self.open_notes_folder())
        row.addWidget(text, 1)
        row.addWidget(self.notes_folder_button, 0, Qt.AlignmentFlag.AlignVCenter)
        layout.addLayout(row)
        self.notes_folder_error = QLabel("")
        self.notes_folder_error.setObjectName("fieldError")
        self.notes_folder_error.setWordWrap(True)
        self.notes_folder_error.hide()
        layout.addWidget(self.notes_folder_error)
        page.addWidget(card)

    def open_notes_folder(self) -> bool:
        """Show the notes folder in the file manager, creating it first if missing.

        Returns:
            True when the desktop opened it; otherwise the page says why.
        """
        folder = self._about.notes_folder if self._about is not None else None
        if folder is None:
            return False
        try:
            # Before the first note there is no folder, and file managers refuse a missing one.
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            return self._show_notes_folder_error(
                f"The notes folder {folder} could not be created: {exc.strerror or exc}."
            )
        if not self._open_folder(folder):
            return self._show_notes_folder_error(
                f"The desktop could not open {folder}; open it in your file manager."
            )
        self.notes_folder_error.hide()
        return True

    def _show_notes_folder_error(self, message: str) -> bool:
        _log.info("notes folder: %s", message)
        self.notes_folder_error.setText(message)
        self.notes_folder_error.show()
        return False

    def _add_applications(self, page: QVBoxLayout) -> None:
        box = QPlainTextEdit()
        box.setPlainText(format_applications(self._settings().allowed_applications))
        box.setPlaceholderText("Calculator = gnome-calculator\nText editor = gedit --new-window")
        box.setFixedHeight(96)
        timer = QTimer(box)
        timer.setSingleShot(True)
        timer.setInterval(700)
        box.textChanged.connect(timer.start)
        timer.timeout.connect(lambda: self.apply_applications(box.toPlainText()))
        self._add_card(page, "allowed_applications", box, False)

    def apply_applications(self, text: str) -> bool:
        """Read the applications list (``Name = command`` lines) and apply it."""
        card = self.cards["allowed_applications"]
        try:
            applications = parse_applications(text)
        except ApplicationListError as exc:
            card.show_error(f"{card.title} was not changed: {exc}")
            return False
        return self.apply("allowed_applications", applications)

    def _build_privacy(self, page: QVBoxLayout) -> None:
        intro = QLabel(
            "When the assistant asks for context, it learns only what is switched on here. "
            "Each time, a banner in the main window shows exactly what was shared."
        )
        intro.setObjectName("fieldDescription")
        intro.setWordWrap(True)
        page.addWidget(intro)
        for name, info in PrivacySettings.model_fields.items():
            switch = ToggleSwitch()
            switch.setChecked(bool(getattr(self._settings().privacy, name)))
            switch.toggled.connect(lambda on, n=name: self._apply_privacy(n, on))
            card = FieldCard(
                f"privacy.{name}", info.title or name, info.description or "", switch, inline=True
            )
            page.addWidget(card)
            self.cards[f"privacy.{name}"] = card
        self._group_title(page, "What the assistant may read")
        self._add_generated(page, "Privacy")

    def _build_about(self, page: QVBoxLayout) -> None:
        about = self._about
        if about is None:
            return
        version = QLabel(f"Sammy Desktop {about.version}")
        version.setObjectName("fieldTitle")
        page.addWidget(version)
        for label, folder in (
            ("Log folder", about.log_folder),
            ("Data folder (history, escalations)", about.data_folder),
            ("Settings folder", about.config_folder),
        ):
            row = QHBoxLayout()
            text = QLabel(f"{label}: {folder}")
            text.setObjectName("fieldDescription")
            text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            text.setWordWrap(True)
            button = QPushButton("Open")
            button.setAccessibleName(f"Open the {label.lower()}")
            button.clicked.connect(lambda _c=False, f=folder: self._open_folder(f))
            row.addWidget(text, 1)
            row.addWidget(button)
            page.addLayout(row)
        if about.keyring_backend:
            backend = QLabel(f"Password store: {about.keyring_backend}")
            backend.setObjectName("fieldDescription")
            page.addWidget(backend)

    def _apply_palette(self, palette: Palette) -> None:
        assets = self._theme.assets
        for row in range(self.section_list.count()):
            item = self.section_list.item(row)
            item.setIcon(assets.icon(_SECTION_ICONS[item.text()], palette.text_muted, 18))
        self.refresh_button.setIcon(assets.icon("refresh", palette.text, 16))
        self.test_tone_button.setIcon(assets.icon("speaker", palette.text, 16))

    def _connect_signals(self) -> None:
        self._theme.palette_changed.connect(self._apply_palette)
        self.section_list.currentRowChanged.connect(self.pages.setCurrentIndex)
        self.save_key_button.clicked.connect(self.on_save_key)
        self.key_input.returnPressed.connect(self.on_save_key)
        self.remove_key_button.clicked.connect(self.on_remove_key)
        self.refresh_button.clicked.connect(self.refresh_devices)
        if self._on_test_tone is not None:
            self.test_tone_button.clicked.connect(self._on_test_tone)
        if self._bridge is not None:
            self._bridge.input_level.connect(self.mic_meter.set_dbfs)
            self._bridge.tools_changed.connect(self.on_tools_changed)
        close = QShortcut(QKeySequence(QKeySequence.StandardKey.Close), self)
        close.activated.connect(self.close)
        escape = QShortcut(QKeySequence("Esc"), self)
        escape.activated.connect(self.close)

    # ------------------------------------------------------------------ public API

    def show_section(self, section: str = "") -> None:
        """Show the window at ``section`` (a :class:`SettingsSection` name; "" keeps it)."""
        titles = [self.section_list.item(i).text() for i in range(self.section_list.count())]
        if section in titles:
            self.section_list.setCurrentRow(titles.index(section))
        elif self.section_list.currentRow() < 0:
            self.section_list.setCurrentRow(0)

    def open_section(self, section: str = "") -> None:
        """Show the section and bring the window to the front (the main window's slot)."""
        self.show_section(section)
        if section == SettingsSection.DEVICES or not self._device_names_loaded():
            self.refresh_devices()
        self.show()
        self.raise_()
        self.activateWindow()

    @property
    def current_section(self) -> str:
        """The section shown."""
        item = self.section_list.currentItem()
        return item.text() if item is not None else ""

    def apply(self, name: str, value: Any) -> bool:
        """Validate, save and apply one setting; mark its field if refused.

        Returns:
            True when the value was accepted.
        """
        card = self.cards.get(name)
        try:
            self._state.update(**{name: value})
        except SettingsError as exc:
            title = card.title if card is not None else name
            message = f"{title} was not changed: {exc}"
            _log.info("setting refused: %s", message)
            if card is not None:
                card.show_error(message)
            return False
        if card is not None:
            card.clear_error()
        if name == "model":
            self._show_model_support(str(value))
        return True

    def show_hotkey_status(self, text: str) -> None:
        """Say under the global hotkey switch whether it works here, and why not ("" hides)."""
        self.hotkey_status.setText(text)
        self.hotkey_status.setVisible(bool(text))

    def set_tool_enabled(self, name: str, on: bool) -> None:
        """Save a tool switch and apply it to the running session at once."""
        enabled = dict(self._settings().enabled_tools)
        enabled[name] = on
        if not self.apply("enabled_tools", enabled):
            return
        if self._controls is not None:
            self._tasks.run(self._controls.set_tool_enabled(name, on), f"ui-tool-{name}")

    def refresh_devices(self) -> None:
        """List the audio devices again (in a worker thread: PortAudio can be slow)."""
        if self._list_devices is None:
            self.devices_note.setText("Device listing is not available.")
            return
        self.refresh_button.setEnabled(False)
        self.devices_note.setText("Looking for devices…")
        self._tasks.run(self._load_devices(self._list_devices), "ui-list-devices")

    def on_tools_changed(self, event: ToolsChanged) -> None:
        """Say whether the last switch reached the running conversation."""
        if not hasattr(self, "tools_status"):
            return
        if event.applied_live:
            self.tools_status.setText("Applied to the running conversation.")
        else:
            self.tools_status.setText("Saved; applies when the assistant next connects.")
        self.tools_status.show()

    # ------------------------------------------------------------------ internals

    async def _load_devices(self, list_devices: Callable[[], Sequence[AudioDevice]]) -> None:
        try:
            devices = await asyncio.to_thread(list_devices)
        except Exception as exc:  # noqa: BLE001 - a broken audio stack must not break settings
            _log.warning("could not list audio devices: %s", exc)
            self.devices_note.setText(f"Could not list the audio devices: {exc}")
            devices = []
        else:
            self.devices_note.setText(f"{len(devices)} devices found.")
        finally:
            self.refresh_button.setEnabled(True)
        self._fill_devices(devices)

    def _device_names_loaded(self) -> bool:
        return self.input_combo.count() > 1 or self.output_combo.count() > 1

    def _fill_devices(self, devices: Sequence[AudioDevice]) -> None:
        settings = self._settings()
        for combo, direction, current in (
            (self.input_combo, "input", settings.input_device),
            (self.output_combo, "output", settings.output_device),
        ):
            combo.clear()
            combo.addItem("System default", "")
            names = [d.name for d in devices if d.supports(direction)]  # type: ignore[arg-type]
            for name in dict.fromkeys(names):
                combo.addItem(name, name)
            if current and current not in names:
                combo.addItem(f"{current} (not found)", current)
            combo.setCurrentIndex(max(0, combo.findData(current)))

    def _apply_privacy(self, name: str, on: bool) -> None:
        privacy = self._settings().privacy.model_dump()
        privacy[name] = on
        self.apply("privacy", privacy)

    def _refresh_key_status(self) -> None:
        self._tasks.run(self._read_key_status(), "ui-key-status")

    async def _read_key_status(self) -> None:
        stored = await asyncio.to_thread(self._secrets.has_stored_key)
        in_use = await asyncio.to_thread(self._secrets.get_api_key)
        if in_use is not None and in_use.source is KeySource.ENVIRONMENT:
            text = "The GEMINI_API_KEY environment variable is in use for this session."
            if stored:
                text += " A key is also saved in the system keyring."
        elif stored:
            text = "A key is saved in the system keyring. It is never shown again."
        else:
            text = "No key is saved yet. Get one at aistudio.google.com, then paste it here."
        self.key_status.setText(text)
        self.remove_key_button.setEnabled(stored)

    def on_save_key(self) -> None:
        """Save the pasted key to the keyring and clear the field."""
        value = self.key_input.text()
        if not value.strip():
            self._show_key_error("Paste a key first.")
            return
        self.save_key_button.setEnabled(False)
        self._tasks.run(self._save_key(value), "ui-save-key")

    async def _save_key(self, value: str) -> None:
        try:
            await asyncio.to_thread(self._secrets.set_api_key, value)
        except (ValueError, SecretStoreError) as exc:
            self._show_key_error(str(exc))
            return
        finally:
            self.save_key_button.setEnabled(True)
        self.key_input.clear()
        self.key_error.hide()
        await self._read_key_status()
        self.key_changed.emit(True)
        if self._on_key_changed is not None:
            self._on_key_changed(True)

    def on_remove_key(self) -> None:
        """Remove the saved key from the keyring."""
        self.remove_key_button.setEnabled(False)
        self._tasks.run(self._remove_key(), "ui-remove-key")

    async def _remove_key(self) -> None:
        try:
            await asyncio.to_thread(self._secrets.delete_api_key)
        except SecretStoreError as exc:
            self._show_key_error(str(exc))
            return
        self.key_error.hide()
        await self._read_key_status()
        self.key_changed.emit(False)
        if self._on_key_changed is not None:
            self._on_key_changed(False)

    def _show_key_error(self, message: str) -> None:
        self.key_error.setText(message)
        self.key_error.show()

    def closeEvent(self, event: QCloseEvent) -> None:
        """Closing only hides the settings; they were applied already."""
        self.key_input.clear()
        event.accept()
