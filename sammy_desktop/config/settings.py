"""The settings model: everything a person can change, with a title and a description each.

The settings pane is generated from the field metadata (``title``, ``description`` and the
``json_schema_extra`` section name), so every field carries them. The model is versioned by
``schema_version``; :func:`migrate` brings an older dict up to date before validation. Keys
written by a newer version of the app are kept (``extra="allow"``) and written back.
"""

from __future__ import annotations

import enum
from typing import Annotated, Any, Final
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic_core import PydanticCustomError

from sammy_desktop.config.prices import TokenPrices

__all__ = [
    "KEEP_READY_S",
    "SCHEMA_VERSION",
    "SECRET_IN_VALUE",
    "TAP_MAX_S",
    "HistoryRetention",
    "MediaResolution",
    "MicBetweenTurns",
    "PrivacySettings",
    "ScreenImageSize",
    "ScreenSendPolicy",
    "Settings",
    "TalkKey",
    "TalkMode",
    "Theme",
    "VadSensitivity",
    "migrate",
]

SCHEMA_VERSION: Final = 2

DEFAULT_MODEL: Final = "gemini-3.8-live"

DEFAULT_SYSTEM_PROMPT: Final = (
    "You are Sammy, a friendly voice assistant on the person's desktop computer. "
    "Answer briefly and naturally, as in a spoken conversation. Use the tools you are "
    "given when they help, and say plainly when you cannot do something."
)


class TalkMode(enum.StrEnum):
    """How the person takes turns."""

    PUSH_TO_TALK = "push_to_talk"
    HANDS_FREE = "hands_free"


class TalkKey(enum.StrEnum):
    """What a press of the talk button, Space or a shortcut does in push-to-talk."""

    AUTO = "auto"
    """A short tap starts talking and the next press sends; a longer hold talks while held."""
    HOLD_TO_TALK = "hold_to_talk"
    """Talking lasts while the key or the button is held."""
    TAP_TO_TOGGLE = "tap_to_toggle"
    """One press starts talking, the next sends."""


TAP_MAX_S: Final = 0.3
"""In :attr:`TalkKey.AUTO`, a press let go sooner than this is a tap: talking goes on."""


KEEP_READY_S: Final = 30.0
"""How long "keep ready" keeps the microphone open after a push-to-talk turn."""


class MicBetweenTurns(enum.StrEnum):
    """What the microphone does between push-to-talk turns (hands-free keeps it open)."""

    CLOSE = "close"
    """Closed at once when the turn has been sent; opened again on the next press."""
    KEEP_READY = "keep_ready"
    """Kept open for :data:`KEEP_READY_S` after a turn, with the pre-roll, then closed."""
    ALWAYS_READY = "always_ready"
    """Always open: an instant start with the pre-roll."""


class ScreenImageSize(enum.StrEnum):
    """The long edge, in pixels, of a shared screen's frames."""

    PX_768 = "768"
    PX_1024 = "1024"
    PX_1536 = "1536"

    @property
    def pixels(self) -> int:
        """The long edge as a number."""
        return int(self.value)


class MediaResolution(enum.StrEnum):
    """How finely the model looks at each frame (the Live setup's ``media_resolution``)."""

    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


class ScreenSendPolicy(enum.StrEnum):
    """When a shared screen's frames are sent."""

    WHILE_TALKING = "while_talking"
    """At each talk press, then at most one a second while you talk and Sammy answers."""
    ALWAYS = "always"
    """At most one a second the whole time the screen is shared."""


class VadSensitivity(enum.StrEnum):
    """Sensitivity of the service's voice activity detection (hands-free mode)."""

    LOW = "low"
    HIGH = "high"


class Theme(enum.StrEnum):
    """The window's colour scheme."""

    SYSTEM = "system"
    LIGHT = "light"
    DARK = "dark"


def _section(name: str, *, format_hint: str | None = None) -> dict[str, Any]:
    """The settings page a field is on, and what to say when its text has the wrong form."""
    extra: dict[str, Any] = {"section": name}
    if format_hint is not None:
        extra["format_hint"] = format_hint
    return extra


class PrivacySettings(BaseModel):
    """What the assistant may learn about this computer through getCurrentContext."""

    model_config = ConfigDict(extra="allow", validate_assignment=True)

    share_time: bool = Field(
        True,
        title="Date and time",
        description="Let the assistant see the local date and time.",
    )
    share_timezone: bool = Field(
        True,
        title="Time zone",
        description="Let the assistant see your time zone.",
    )
    share_platform: bool = Field(
        True,
        title="Operating system",
        description="Let the assistant see which operating system this is.",
    )
    share_app_state: bool = Field(
        True,
        title="App state",
        description="Let the assistant see the talk mode, session length and enabled tools.",
    )
    share_preferences: bool = Field(
        True,
        title="Your preferences",
        description="Let the assistant read what you wrote under 'About you'.",
    )
    share_custom_context: bool = Field(
        True,
        title="Custom context",
        description="Let the assistant read the custom context text.",
    )


class HistoryRetention(enum.StrEnum):
    """How long the conversation history and escalation records are kept."""

    DAYS_7 = "7_days"
    DAYS_30 = "30_days"
    DAYS_90 = "90_days"
    DAYS_365 = "365_days"
    FOREVER = "forever"

    @property
    def days(self) -> int | None:
        """The number of days, or None for forever."""
        if self is HistoryRetention.FOREVER:
            return None
        return int(self.value.split("_", 1)[0])


SECRET_IN_VALUE: Final = "secret_in_value"  # noqa: S105 - an error type, not a secret
"""The pydantic error type of a value refused because it carries a secret: error messages
(:func:`~sammy_desktop.config.store.describe_validation_error`) do not repeat it."""


def _refuse_credentials_in_url(value: str) -> None:
    """Refuse a user name, a password or a query in a URL that is saved in plain text.

    A ``?key=`` or ``user:password@`` would sit in the settings file for anyone who reads
    it; the API key belongs in the keyring (Settings > Account). The value is not repeated
    in the message, so the secret does not travel on into a notice or a log line either.
    """
    try:
        parts = urlsplit(value.strip())
    except ValueError:
        return  # not a URL at all: the ordinary checks say what is wrong
    if "@" in parts.netloc:
        raise PydanticCustomError(
            SECRET_IN_VALUE,
            "The address may not contain a user name or password (user:password@): it would "
            "be saved in the settings file in plain text. Enter it without them; Sammy sends "
            "the API key saved under Account",
        )
    if parts.query or parts.fragment or value.strip().endswith(("?", "#")):
        raise PydanticCustomError(
            SECRET_IN_VALUE,
            "The address may not end in a query or fragment (such as ?key=...): a key there "
            "would be saved in the settings file in plain text, and the service's paths are "
            "added to this address. Enter it without that part; Sammy sends the API key saved "
            "under Account",
        )


def _check_url(value: str, schemes: tuple[str, ...]) -> str:
    """The address as saved; refused (with what to do) unless it starts with ``schemes``."""
    value = value.strip()
    if not value:
        return value
    parts = urlsplit(value)
    if parts.scheme not in schemes:
        starts = [f"{s}://" if s != "mailto" else "mailto:" for s in schemes]
        allowed = ", ".join(starts[:-1]) + " or " + starts[-1]
        raise ValueError(f"use an address that starts with {allowed}")
    if parts.scheme != "mailto" and not parts.netloc:
        raise ValueError(f"put the site's name after {parts.scheme}://")
    if parts.scheme == "mailto" and "@" not in parts.path:
        raise ValueError("put an e-mail address after mailto:")
    return value


_HOTKEY_MODIFIERS: Final = {
    "ctrl": "Ctrl",
    "control": "Ctrl",
    "alt": "Alt",
    "option": "Alt",
    "shift": "Shift",
    "super": "Super",
    "meta": "Super",
    "win": "Super",
    "cmd": "Super",
}
# Keys that make a hotkey on their own; typing keys (letters, Space...) need a modifier.
_HOTKEY_NAMED_KEYS: Final = {
    **{f"f{n}": f"F{n}" for n in range(1, 21)},
    "insert": "Insert",
    "pause": "Pause",
    "scrolllock": "ScrollLock",
    "printscreen": "PrintScreen",
    "menu": "Menu",
}
_HOTKEY_TYPING_KEYS: Final = {
    "space": "Space",
    "tab": "Tab",
    "enter": "Enter",
    "return": "Enter",
    "delete": "Delete",
    "home": "Home",
    "end": "End",
    "pageup": "PageUp",
    "pagedown": "PageDown",
    "up": "Up",
    "down": "Down",
    "left": "Left",
    "right": "Right",
}


def _normalize_hotkey(value: str) -> str:
    """``ctrl + alt + space`` -> ``Ctrl+Alt+Space``; refuses what cannot be a hotkey."""
    parts = [part.strip() for part in value.strip().split("+")]
    if any(not part for part in parts):
        raise ValueError(
            "write the keys joined with +, such as Ctrl+Alt+Space (the + key itself cannot be used)"
        )
    modifiers: list[str] = []
    keys: list[str] = []
    for part in parts:
        lowered = part.lower().replace(" ", "").replace("_", "")
        if lowered in _HOTKEY_MODIFIERS:
            modifier = _HOTKEY_MODIFIERS[lowered]
            if modifier in modifiers:
                raise ValueError(f"{modifier} appears twice: name each key once")
            modifiers.append(modifier)
        elif lowered in _HOTKEY_NAMED_KEYS or lowered in _HOTKEY_TYPING_KEYS:
            keys.append(_HOTKEY_NAMED_KEYS.get(lowered) or _HOTKEY_TYPING_KEYS[lowered])
        elif len(part) == 1 and part.isprintable() and not part.isspace():
            keys.append(part.upper())
        else:
            raise ValueError(
                f"{part!r} is not a key Sammy knows; use Ctrl, Alt, Shift, Super and one key "
                "such as Space, a letter, a digit or F1 to F20"
            )
    if len(keys) != 1:
        raise ValueError(
            "a hotkey needs exactly one key besides the modifiers (Ctrl, Alt, Shift, Super), "
            "such as Ctrl+Alt+Space"
        )
    key = keys[0]
    # Without Ctrl, Alt or Super the hotkey would fire while the person types elsewhere.
    if key not in _HOTKEY_NAMED_KEYS.values() and not set(modifiers) - {"Shift"}:
        raise ValueError(
            f"{key} is used for typing: add Ctrl, Alt or Super (e.g. Ctrl+Alt+{key}), or "
            "pick a key such as F9"
        )
    order = ("Ctrl", "Alt", "Shift", "Super")
    return "+".join([m for m in order if m in modifiers] + [key])


class Settings(BaseModel):
    """Everything a person can set. Saved as JSON by :class:`~.store.SettingsStore`."""

    model_config = ConfigDict(extra="allow", validate_assignment=True, use_enum_values=False)

    schema_version: int = Field(
        SCHEMA_VERSION,
        title="Schema version",
        description="Version of this settings format; used to migrate older files.",
        json_schema_extra={"section": "hidden"},
    )

    # -- Voice & language ------------------------------------------------------------------
    model: Annotated[str, Field(min_length=1, max_length=200)] = Field(
        DEFAULT_MODEL,
        title="Model",
        description="The Gemini Live model that answers. Models differ in which tool features "
        "they support.",
        json_schema_extra=_section("Voice & language"),
    )
    voice: Annotated[str, Field(min_length=1, max_length=64)] = Field(
        "Puck",
        title="Voice",
        description="The prebuilt voice the assistant speaks with.",
        json_schema_extra=_section("Voice & language"),
    )
    language: Annotated[str, Field(pattern=r"^[a-z]{2,3}(-[A-Z]{2})?$")] = Field(
        "en-US",
        title="Language",
        description="The language you speak and want answers in, as a BCP-47 code (en-US).",
        json_schema_extra=_section(
            "Voice & language", format_hint="Use a language code like en-US, or just en."
        ),
    )
    system_prompt: Annotated[str, Field(max_length=20_000)] = Field(
        DEFAULT_SYSTEM_PROMPT,
        title="System prompt",
        description="Instructions the assistant follows in every conversation.",
        json_schema_extra=_section("Voice & language"),
    )

    # -- Talking ---------------------------------------------------------------------------
    talk_mode: TalkMode = Field(
        TalkMode.PUSH_TO_TALK,
        title="Talk mode",
        description="Push to talk: hold the button or Space while you speak. Hands-free: the "
        "assistant listens all the time and notices when you stop.",
        json_schema_extra=_section("Talking"),
    )
    talk_key: TalkKey = Field(
        TalkKey.AUTO,
        title="Talk key",
        description="Auto: hold the button, Space or your shortcut to talk while you hold it, "
        "or tap it to start and tap again to send. Hold to talk: only while held. Tap to "
        "toggle: each press starts or sends.",
        json_schema_extra=_section("Talking"),
    )
    vad_start_sensitivity: VadSensitivity = Field(
        VadSensitivity.HIGH,
        title="Start-of-speech sensitivity",
        description="Hands-free: how readily a sound counts as you starting to speak. Low "
        "ignores more coughs and noise.",
        json_schema_extra=_section("Talking"),
    )
    vad_end_sensitivity: VadSensitivity = Field(
        VadSensitivity.HIGH,
        title="End-of-speech sensitivity",
        description="Hands-free: how quickly a pause counts as the end of what you said.",
        json_schema_extra=_section("Talking"),
    )
    silence_duration_ms: Annotated[int, Field(ge=100, le=5000)] = Field(
        700,
        title="Pause before answering (ms)",
        description="Hands-free: how long you must be silent before the assistant answers.",
        json_schema_extra=_section("Talking"),
    )
    mic_between_turns: MicBetweenTurns = Field(
        MicBetweenTurns.CLOSE,
        title="Microphone between turns",
        description="Push to talk: close the microphone as soon as your turn is sent (the "
        "default), keep it ready for 30 s after a turn, or keep it always ready (an instant "
        "start, with the pre-roll). Kept ready, it keeps your system's microphone indicator "
        "on.",
        json_schema_extra=_section("Talking"),
    )
    pre_roll_ms: Annotated[int, Field(ge=0, le=2000)] = Field(
        300,
        title="Pre-roll (ms)",
        description="Audio kept from just before you press talk, so your first syllable "
        "is not cut off. Only while the microphone is kept ready between turns.",
        json_schema_extra=_section("Talking"),
    )
    echo_cancellation: bool = Field(
        True,
        title="Echo cancellation",
        description="Remove the assistant's own voice from the microphone, so you can use "
        "speakers and talk over it. When off, hands-free mode mutes the microphone while "
        "the assistant speaks.",
        json_schema_extra=_section("Talking"),
    )
    earcons: bool = Field(
        True,
        title="Listening sounds",
        description="Play a short sound when listening starts and stops.",
        json_schema_extra=_section("Talking"),
    )
    idle_rest_minutes: Annotated[int, Field(ge=0, le=1440)] = Field(
        15,
        title="Rest the connection after (minutes)",
        description="Push to talk: after this many minutes with nobody talking, Sammy "
        "closes its connection quietly and reconnects the moment you talk, type or a timer "
        "ends; what you say meanwhile is kept. 0 never rests.",
        json_schema_extra=_section("Talking"),
    )
    bluetooth_mic_hint: bool = Field(
        True,
        title="Bluetooth microphone hint",
        description="Say once that a Bluetooth headset's microphone lowers its sound.",
        json_schema_extra={"section": "hidden"},
    )

    # -- Audio devices -----------------------------------------------------------------------
    input_device: Annotated[str, Field(max_length=512)] = Field(
        "",
        title="Microphone",
        description="The microphone Sammy listens with. System default follows your "
        "computer's sound settings.",
        json_schema_extra=_section("Audio devices"),
    )
    output_device: Annotated[str, Field(max_length=512)] = Field(
        "",
        title="Speaker",
        description="The speakers or headphones Sammy answers through. System default "
        "follows your computer's sound settings.",
        json_schema_extra=_section("Audio devices"),
    )

    # -- Usage -------------------------------------------------------------------------------
    token_prices: dict[str, TokenPrices] = Field(
        default_factory=dict,
        title="Your token prices",
        description="Model id -> your rates in US$ per million tokens (text and audio, input "
        "and output), for the cost estimate; a model not listed uses Sammy's price table, "
        "and has no estimate when the table has no row for it.",
        json_schema_extra=_section("Account"),
    )

    # -- Tools -------------------------------------------------------------------------------
    enabled_tools: dict[str, bool] = Field(
        default_factory=dict,
        title="Enabled tools",
        description="Tool name -> whether the assistant may use it. Tools not listed use "
        "their own default.",
        json_schema_extra=_section("Tools"),
    )

    google_search: bool = Field(
        False,
        title="Web search (Google)",
        description="Let the assistant search the web with Google Search while it answers. "
        "The sources it used are shown in the transcript. Your questions are sent to "
        "Google Search.",
        json_schema_extra=_section("Tools"),
    )
    code_execution: bool = Field(
        False,
        title="Code execution",
        description="Let the model run Python on Google's side for calculations. No Live model "
        "offers it today; the switch takes effect on a model that does.",
        json_schema_extra=_section("Tools"),
    )
    allowed_applications: dict[str, list[str]] = Field(
        default_factory=dict,
        title="Applications the assistant may open",
        description="Name -> the command that starts it, as a list of arguments (program "
        'first), e.g. Calculator -> ["gnome-calculator"]. The assistant can open only '
        "these, and asks you first. Commands run without a shell.",
        json_schema_extra=_section("Tools"),
    )

    # -- Privacy -----------------------------------------------------------------------------
    privacy: PrivacySettings = Field(
        default_factory=PrivacySettings,
        title="Context sharing",
        description="What the assistant may learn about this computer when it asks for context.",
        json_schema_extra=_section("Privacy"),
    )
    user_preferences: Annotated[str, Field(max_length=5000)] = Field(
        "",
        title="About you",
        description="Anything the assistant should know about you and how you like answers "
        "(shared only if allowed under Privacy).",
        json_schema_extra=_section("Privacy"),
    )
    custom_context: Annotated[str, Field(max_length=5000)] = Field(
        "",
        title="Custom context",
        description="Extra context the assistant may read when it asks for it.",
        json_schema_extra=_section("Privacy"),
    )
    history_retention: HistoryRetention = Field(
        HistoryRetention.DAYS_90,
        title="Keep the conversation history",
        description="How long the history of your conversations and the escalation records "
        "are kept on this computer. Older ones are deleted when Sammy starts.",
        json_schema_extra=_section("Privacy"),
    )

    # -- Connection --------------------------------------------------------------------------
    api_base_url: Annotated[str, Field(max_length=2000)] = Field(
        "",
        title="API endpoint",
        description="Base URL of the Live API, for proxies and gateways. Empty means Google's.",
        json_schema_extra=_section("Account"),
    )
    api_version: Annotated[str, Field(pattern=r"^v[0-9]+(alpha|beta)?[0-9]*$")] = Field(
        "v1beta",
        title="API version",
        description="The Live API version to connect with. Google serves Live on v1beta; "
        "change it only for a gateway that needs another.",
        json_schema_extra=_section("Account", format_hint="Use an API version like v1beta."),
    )
    connect_on_start: bool = Field(
        True,
        title="Connect on start",
        description="Connect to the assistant as soon as the app starts, when a key is set.",
        json_schema_extra=_section("Account"),
    )
    support_url: Annotated[str, Field(max_length=2000)] = Field(
        "",
        title="Support contact",
        description="Where escalations go: an https:// page or a mailto: address. Empty "
        "means escalations are only saved on this computer.",
        json_schema_extra=_section("Account"),
    )

    # -- Screen ------------------------------------------------------------------------------
    screen_image_size: ScreenImageSize = Field(
        ScreenImageSize.PX_1024,
        title="Image size",
        description="The long edge of each picture of your screen, in pixels. Larger is "
        "easier to read and costs more tokens.",
        json_schema_extra=_section("Screen"),
    )
    media_resolution: MediaResolution = Field(
        MediaResolution.MEDIUM,
        title="Detail the model sees",
        description="How finely the model looks at each picture: low costs about a quarter "
        "of the tokens; small text needs high. A change applies at the next quiet moment.",
        json_schema_extra=_section("Screen"),
    )
    screen_send_policy: ScreenSendPolicy = Field(
        ScreenSendPolicy.WHILE_TALKING,
        title="When to send",
        description="While talking: a picture when you press talk, then at most one a "
        "second while you talk and Sammy answers. Always: at most one a second the whole "
        "time you share. Nothing is sent while the screen does not change.",
        json_schema_extra=_section("Screen"),
    )

    # -- Appearance --------------------------------------------------------------------------
    theme: Theme = Field(
        Theme.SYSTEM,
        title="Theme",
        description="Light, dark, or follow the system.",
        json_schema_extra=_section("Appearance"),
    )
    close_to_tray: bool = Field(
        False,
        title="Close to tray",
        description="Closing the window hides it in the system tray instead of quitting.",
        json_schema_extra=_section("Appearance"),
    )
    # Start at login (ui/autostart_switch.py writes the platform's entry, integration/).
    start_at_login: bool = Field(
        False,
        title="Start at login",
        description="Start Sammy when you log in to this computer.",
        json_schema_extra=_section("Appearance"),
    )
    start_hidden: bool = Field(
        True,
        title="Start hidden in the tray",
        description="At login, Sammy starts with only its tray icon; click the icon to open "
        "the window. Where the desktop has no system tray, the window opens anyway.",
        json_schema_extra=_section("Appearance"),
    )
    desktop_entry_offered: bool = Field(
        False,
        title="Applications menu offered",
        description="Whether Sammy has asked once to add itself to the applications menu.",
        json_schema_extra={"section": "hidden"},
    )
    global_hotkey: bool = Field(
        False,
        title="Global talk hotkey",
        description="Also talk with the hotkey when the window is not focused, where the "
        "platform allows it.",
        json_schema_extra=_section("Talking"),
    )
    # Appended for the global hotkey (ui/global_hotkey.py); written like "Ctrl+Alt+Space".
    global_hotkey_keys: Annotated[str, Field(min_length=1, max_length=64)] = Field(
        "Ctrl+Alt+Space",
        title="Global hotkey keys",
        description="The keys held to talk from any window, joined with +: modifiers (Ctrl, "
        "Alt, Shift, Super) and one key, e.g. Ctrl+Alt+Space or F9.",
        json_schema_extra=_section("Talking"),
    )

    @field_validator("global_hotkey_keys")
    @classmethod
    def _check_global_hotkey_keys(cls, value: str) -> str:
        return _normalize_hotkey(value)

    @field_validator("api_base_url")
    @classmethod
    def _check_api_base_url(cls, value: str) -> str:
        _refuse_credentials_in_url(value)
        return _check_url(value, ("https", "http", "wss", "ws")).rstrip("/")

    @field_validator("allowed_applications")
    @classmethod
    def _check_allowed_applications(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        cleaned: dict[str, list[str]] = {}
        seen: dict[str, str] = {}
        for raw_name, command in value.items():
            name = raw_name.strip()
            if not name or len(name) > 100:
                raise ValueError("an application's name must be 1 to 100 characters")
            if name.casefold() in seen:
                raise ValueError(
                    f"“{seen[name.casefold()]}” and “{raw_name}” have the same name: give each "
                    "application its own"
                )
            if not command or any(not part.strip() for part in command):
                raise ValueError(
                    f"“{name}” needs a command: the program, then its arguments, none of them empty"
                )
            seen[name.casefold()] = raw_name
            cleaned[name] = list(command)
        return cleaned

    @field_validator("support_url")
    @classmethod
    def _check_support_url(cls, value: str) -> str:
        return _check_url(value, ("https", "http", "mailto"))

    def is_tool_enabled(self, name: str, default: bool = True) -> bool:
        """Whether the tool ``name`` is switched on, falling back to the tool's default."""
        return self.enabled_tools.get(name, default)


def migrate(data: dict[str, Any]) -> dict[str, Any]:
    """Bring a settings dict written by an older version up to :data:`SCHEMA_VERSION`.

    Version 1 is the first; each later version is one step here. A file from a newer version
    is left as it is: its unknown keys are kept.

    * 1 -> 2: ``push_to_talk_toggle`` (a switch) became ``talk_key``: on is tap to toggle,
      off is hold to talk, so a person's way of talking does not change under them; a new
      settings file gets the new default, Auto.
    """
    data = dict(data)
    version = _schema_version(data.get("schema_version", SCHEMA_VERSION))
    if version < 2:
        toggle = data.pop("push_to_talk_toggle", None)
        if isinstance(toggle, bool) and "talk_key" not in data:
            data["talk_key"] = (TalkKey.TAP_TO_TOGGLE if toggle else TalkKey.HOLD_TO_TALK).value
        version = 2
    data["schema_version"] = version
    return data


def _schema_version(value: object) -> int:
    """The version a file says it has, as a whole number; the current one when it says none.

    Read the way the model would coerce it ("1" and 1.0 are 1), so that what loads is what
    was migrated: a version left for the model to coerce (false -> 0) would be migrated only
    at the next load, and a saved file would not load back the same. A version that is not
    a whole number (true, "abc") says nothing: the file is taken as the current version.
    """
    if isinstance(value, bool):
        return SCHEMA_VERSION
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return SCHEMA_VERSION
