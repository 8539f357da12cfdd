"""The settings window, one module per page.

Sections follow UI.md, each page in its own module:

* ``account_page``: the API key (in the keyring, never shown again) and the connection;
* ``voice_page``: the model, its voice, and the language;
* ``talking_page``: talk mode, sensitivity, pre-roll, echo cancellation, the global hotkey;
* ``devices_page``: microphone and speaker, with a live mic meter and a test tone;
* ``tools_page``: a switch per tool, grouped by category, "asks first" on risky ones
  (``tool_switch_card``: one tool's card), and the MCP servers (``mcp_servers``: a group
  per server with its status, switches and policy; ``mcp_add_dialog``: Add server;
  ``mcp_import``: Import from Claude Desktop);
* ``privacy_page``: what context may be shared;
* ``appearance_page``: the theme and closing to the tray;
* ``about_page``: the version and the app's folders.

``window`` holds them (the list of sections and the stack of pages); ``page`` is what every
page is built from, ``fields`` the editors generated from the Settings model,
``applications`` the applications list read as text, and ``sections`` the section names
the main window opens. Every change applies at once through
:class:`~sammy_desktop.ui.settings_state.SettingsState`; a refused value is marked on its
field with a sentence naming it, and nothing is changed.
"""

from sammy_desktop.ui.settings.about_page import AboutInfo
from sammy_desktop.ui.settings.sections import SettingsSection
from sammy_desktop.ui.settings.tools_page import ToolCatalog, ToolInfo
from sammy_desktop.ui.settings.window import SettingsWindow

__all__ = ["AboutInfo", "SettingsSection", "SettingsWindow", "ToolCatalog", "ToolInfo"]
