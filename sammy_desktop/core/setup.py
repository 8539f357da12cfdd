"""The session setup: what a Live connection is configured with, and when it goes stale.

:func:`build_live_config` turns the settings, the talk mode and the tool declarations into
the ``LiveConnectConfig`` the setup message carries. :class:`SessionSetup` builds each
connection's config from the current settings and tools, remembers what it was built from,
and says what a change of settings means: fields only the setup carries need a new
connection (resumed at a quiet moment), tools can be sent to the running session, the rest
is read live.

The earlier conversation of a fresh session is never part of the setup: it follows as quoted
turns (:mod:`sammy_desktop.core.replay`); the setup only declares it, on the families that
take history that way (docs/live-service.md S7).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sammy_desktop.config import Settings, TalkMode
from sammy_desktop.core.ports import ToolRunner
from sammy_desktop.core.screen import live_media_resolution
from sammy_desktop.live_sdk import types
from sammy_desktop.tools.capabilities import capabilities_for, is_known_model
from sammy_desktop.tools.registry import declaration_names

__all__ = [
    "CONTEXT_TARGET_TOKENS",
    "CONTEXT_TRIGGER_TOKENS",
    "SETUP_FIELDS",
    "SessionSetup",
    "build_live_config",
]

# Sliding-window compression keeps long audio sessions under the context limit, which is
# what lets them outlive the service's 15-minute cap on uncompressed audio sessions.
CONTEXT_TRIGGER_TOKENS = 25_600
CONTEXT_TARGET_TOKENS = 12_800

SETUP_FIELDS = (
    "model",
    "voice",
    "language",
    "system_prompt",
    "vad_start_sensitivity",
    "vad_end_sensitivity",
    "silence_duration_ms",
    "media_resolution",
)
"""Settings only the session setup carries: a change needs a new connection."""


def build_live_config(
    settings: Settings,
    tools: Sequence[types.Tool],
    *,
    talk_mode: TalkMode,
    resume_handle: str | None,
    declare_history: bool = False,
) -> types.LiveConnectConfig:
    """The session setup for the current settings.

    Args:
        settings: voice, language, system prompt and VAD tuning come from here.
        tools: the declarations of the enabled tools, built for the model.
        talk_mode: push-to-talk turns off the service's VAD (the app sends activityStart /
            activityEnd); hands-free uses it with the settings' sensitivities.
        resume_handle: the newest resumable handle, or None for a new conversation.
        declare_history: earlier turns follow the setup as history
            (``historyConfig.initialHistoryInClientContent``, S7). They are never pasted
            into the system instruction: there, an earlier answer would be an instruction.

    Returns:
        A ``LiveConnectConfig`` with audio answers, both transcriptions, sliding-window
        context compression and session resumption switched on, and the detail the model
        sees of the shared screen (``generationConfig.mediaResolution``, S6) for the known
        model families. Compression is always on: audio+video sessions end after about
        two minutes without it (L2), and a sharing may begin at any moment.
    """
    if talk_mode is TalkMode.PUSH_TO_TALK:
        detection = types.AutomaticActivityDetection(disabled=True)
    else:
        detection = types.AutomaticActivityDetection(
            disabled=False,
            start_of_speech_sensitivity=types.StartSensitivity(
                f"START_SENSITIVITY_{settings.vad_start_sensitivity.name}"
            ),
            end_of_speech_sensitivity=types.EndSensitivity(
                f"END_SENSITIVITY_{settings.vad_end_sensitivity.name}"
            ),
            silence_duration_ms=settings.silence_duration_ms,
        )
    prompt = settings.system_prompt
    if not capabilities_for(settings.model).honours_language_code and settings.language:
        # Native-audio models choose the language themselves and ignore language_code
        # (docs/live-service.md M4): the instruction is what pins it.
        prompt = (
            f"{prompt}\n\nSpeak in the language with the code {settings.language}, and expect "
            "the person to speak it, unless they ask for another language."
        ).strip()
    return types.LiveConnectConfig(
        response_modalities=[types.Modality.AUDIO],
        media_resolution=(
            live_media_resolution(settings.media_resolution)
            if is_known_model(settings.model)
            else None
        ),
        speech_config=types.SpeechConfig(
            voice_config=types.VoiceConfig(
                prebuilt_voice_config=types.PrebuiltVoiceConfig(voice_name=settings.voice)
            ),
            language_code=settings.language,
        ),
        system_instruction=types.Content(parts=[types.Part(text=prompt)]) if prompt else None,
        tools=list(tools) or None,
        input_audio_transcription=types.AudioTranscriptionConfig(),
        output_audio_transcription=types.AudioTranscriptionConfig(),
        realtime_input_config=types.RealtimeInputConfig(automatic_activity_detection=detection),
        context_window_compression=types.ContextWindowCompressionConfig(
            trigger_tokens=CONTEXT_TRIGGER_TOKENS,
            sliding_window=types.SlidingWindow(target_tokens=CONTEXT_TARGET_TOKENS),
        ),
        session_resumption=types.SessionResumptionConfig(handle=resume_handle),
        history_config=(
            types.HistoryConfig(initial_history_in_client_content=True) if declare_history else None
        ),
    )


def _no_extra_tools(settings: Settings) -> list[types.Tool]:
    return []


def _tool_dump(tools: Sequence[types.Tool]) -> list[dict[str, Any]]:
    """Tools as plain data, to tell whether two tool lists differ."""
    return [tool.model_dump(mode="json", exclude_none=True) for tool in tools]


class SessionSetup:
    """Builds each connection's setup and tells when the running one has gone stale.

    Args:
        tools: the tool runner, for the function declarations of the enabled tools.
        extra_tools: tools beside the function declarations for the settings given (Google
            Search); in the setup and in every context update.
    """

    def __init__(
        self,
        tools: ToolRunner,
        extra_tools: Callable[[Settings], Sequence[types.Tool]] = _no_extra_tools,
    ) -> None:
        self._tools = tools
        self._extra_tools = extra_tools
        self._built_from: tuple[object, ...] = ()

    def tools_for(self, settings: Settings) -> list[types.Tool]:
        """``LiveConnectConfig.tools``: the enabled functions, then the extra tools."""
        return [*self._tools.declarations(settings.model), *self._extra_tools(settings)]

    def enabled_names(self, settings: Settings) -> tuple[str, ...]:
        """The function names the model may call with these settings."""
        return declaration_names(self._tools.declarations(settings.model))

    def config(
        self,
        settings: Settings,
        talk_mode: TalkMode,
        *,
        resume_handle: str | None,
        declare_history: bool = False,
    ) -> types.LiveConnectConfig:
        """The setup for a new connection; remembers what it was built from."""
        tools = self.tools_for(settings)
        self._built_from = self._fingerprint(settings, talk_mode, tools)
        return build_live_config(
            settings,
            tools,
            talk_mode=talk_mode,
            resume_handle=resume_handle,
            declare_history=declare_history,
        )

    def applied_live(self, settings: Settings, talk_mode: TalkMode) -> None:
        """The running session took the current tools in place (a context update)."""
        self._built_from = self._fingerprint(settings, talk_mode, self.tools_for(settings))

    def is_stale(self, settings: Settings, talk_mode: TalkMode) -> bool:
        """True when the last setup built no longer matches the settings, mode and tools."""
        return self._built_from != self._fingerprint(settings, talk_mode, self.tools_for(settings))

    def extra_tools_changed(self, old: Settings, new: Settings) -> bool:
        """Whether the tools beside the functions (Google Search) differ between the two."""
        return _tool_dump(self._extra_tools(old)) != _tool_dump(self._extra_tools(new))

    @staticmethod
    def changed_setup_fields(old: Settings, new: Settings) -> list[str]:
        """The :data:`SETUP_FIELDS` that differ between ``old`` and ``new``."""
        return [field for field in SETUP_FIELDS if getattr(old, field) != getattr(new, field)]

    @staticmethod
    def _fingerprint(
        settings: Settings, talk_mode: TalkMode, tools: Sequence[types.Tool]
    ) -> tuple[object, ...]:
        return (
            *(getattr(settings, field) for field in SETUP_FIELDS),
            talk_mode,
            _tool_dump(tools),
        )
