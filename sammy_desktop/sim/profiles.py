"""Service profiles: how strictly the simulator imitates each family of Live models.

Each :class:`ServiceProfile` field is one behaviour of the real Gemini Live service, and its
comment names the entry of ``docs/live-service.md`` (``C1``, ``T1``...) that gives the
evidence. The strict profiles are:

* ``gemini-3.8-live`` (``gemini-3.8-live``),
* ``gemini-3.1-flash-live`` (``gemini-3.1-flash-live-preview``),
* ``gemini-2.5-flash-native-audio`` (``gemini-2.5-flash-native-audio-preview-12-2025`` and
  ``gemini-2.5-flash-native-audio-latest``),

and ``service``, which serves all three at once and picks the profile of the model each setup
asks for, as the real endpoint does. ``lenient`` is the simulator as it was before the
profiles: any key is 1008, any model, any API version, and none of the strict behaviours.

:data:`DEFAULT_PROFILE` is what ``LiveSimulator(profile=None)`` uses; the environment variable
``SAMMY_SIM_PROFILE`` overrides it for a test run.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, Literal

__all__ = [
    "BAD_KEY_REASON",
    "DEFAULT_PROFILE",
    "GEMINI_25_FLASH_NATIVE_AUDIO",
    "GEMINI_31_FLASH_LIVE",
    "GEMINI_38_LIVE",
    "INVALID_ARGUMENT_REASON",
    "LENIENT",
    "NOT_SUPPORTED_REASON",
    "PROFILES",
    "PROFILE_ENV",
    "QUOTA_REASON",
    "RETIRED_MODEL_IDS",
    "SERVICE",
    "Pacing",
    "ProfileSet",
    "ServiceProfile",
    "SetupRule",
    "not_found_reason",
    "resolve_profiles",
    "text_modality_reason",
    "usage_estimate",
    "video_frame_tokens",
]

# C5: the reasons the service sends with its close codes.
BAD_KEY_REASON: Final = "API key not valid. Please pass a valid API key."
INVALID_ARGUMENT_REASON: Final = "Request contains an invalid argument."
NOT_SUPPORTED_REASON: Final = "Operation is not implemented, or supported, or enabled"
QUOTA_REASON: Final = (
    "You exceeded your current quota, please check your plan and billing details. For more "
    "information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits."
)

# C6: shut down on 2025-12-09; a setup naming them is refused like any unknown model.
RETIRED_MODEL_IDS: Final = frozenset(
    {
        "gemini-2.0-flash-live-001",
        "gemini-live-2.5-flash-preview",
    }
)

PROFILE_ENV: Final = "SAMMY_SIM_PROFILE"

DEFAULT_PROFILE: str = "service"
"""The profile of ``LiveSimulator(profile=None)``: strict, as the real service is.

Every app test runs against it (each connection served by the profile of the model it asks
for). ``lenient`` is the old, forgiving simulator, for clients that want it.
"""

Pacing = Literal["burst", "realtime", "fast"]


def not_found_reason(model: str, api_version: str) -> str:
    """The service's refusal of a model it does not serve on ``api_version`` (C1, C6)."""
    name = model if model.startswith("models/") else f"models/{model}"
    return (
        f"{name} is not found for API version {api_version}, or is not supported for "
        "bidiGenerateContent. Call ListModels to see the list of available models and their "
        "supported methods."
    )


def text_modality_reason(modalities: Sequence[str]) -> str:
    """The refusal of a TEXT response modality by an audio-native model (M1)."""
    return (
        f"The requested combination of response modalities ({', '.join(modalities)}) is not "
        "supported by the model"
    )


def usage_estimate(
    *, input_audio_s: float, text_chars: int, output_audio_s: float
) -> tuple[int, int]:
    """Token counts for a turn whose scenario gave none (R4).

    Gemini counts 32 tokens a second of audio; text is counted at about 4 characters a
    token. Not the service's numbers, only never zero, as the service's are not.

    Returns:
        ``(prompt_tokens, response_tokens)``.
    """
    prompt = max(1, math.ceil(input_audio_s * 32) + math.ceil(text_chars / 4))
    response = max(1, math.ceil(output_audio_s * 32))
    return prompt, response


_VIDEO_FRAME_TOKENS: Final = {
    "MEDIA_RESOLUTION_LOW": 66,
    "MEDIA_RESOLUTION_MEDIUM": 258,
    "MEDIA_RESOLUTION_HIGH": 258,
}


def video_frame_tokens(media_resolution: str | None) -> int:
    """The input tokens one video frame counts at the setup's ``mediaResolution`` (S6).

    Google's figures: 258 a picture at the default resolution, 66 at LOW (the SDK's enum
    docs: 64 and 256 tokens, plus the picture's framing); HIGH spends its 256 on a zoomed
    crop. No setting (or UNSPECIFIED): the default's 258.
    """
    return _VIDEO_FRAME_TOKENS.get((media_resolution or "").upper(), 258)


@dataclass(frozen=True, slots=True)
class SetupRule:
    """A setup field a model family refuses or never answers (M3).

    Attributes:
        path: Keys from the setup object down to the field, in snake_case (camelCase is
            matched too), e.g. ``("generation_config", "thinking_config")``.
        value: Only this value of the field triggers the rule (None: any value).
        why: What the docs say, for logs and the refusal record.
    """

    path: tuple[str, ...]
    value: Any = None
    why: str = ""

    def matches(self, setup: Mapping[str, Any]) -> bool:
        """Return True when ``setup`` contains the field (with the value, if one is set)."""
        node: Any = setup
        for key in self.path:
            if not isinstance(node, Mapping):
                return False
            camel = _camel(key)
            if key in node:
                node = node[key]
            elif camel in node:
                node = node[camel]
            else:
                return False
        return self.value is None or node == self.value


def _camel(snake: str) -> str:
    head, *rest = snake.split("_")
    return head + "".join(word.title() for word in rest)


@dataclass(frozen=True, slots=True, kw_only=True)
class ServiceProfile:
    """One family of Live models, as strict as the evidence allows.

    The default values are the lenient simulator's (the behaviour before profiles); the
    strict profiles below set every field. Each field names its docs/live-service.md entry.
    """

    name: str
    display_name: str = ""
    # C6: the ids this family serves (without "models/"); empty serves any model.
    model_ids: tuple[str, ...] = ()
    # C1: API versions the Live websocket is served on; None serves any.
    served_api_versions: frozenset[str] | None = None
    # C5: the close code of a bad key (the service: 1007; the old simulator said 1008).
    bad_key_code: int = 1008
    # T1: "ignored" calls tools declared with parameters_json_schema with args={}.
    json_schema_parameters: Literal["ignored", "honoured"] = "honoured"
    # T2: additionalProperties inside `parameters` closes the setup with 1007.
    refuse_additional_properties: bool = False
    # T9: the longest function name let in (the v1beta reference: 64; the SDK says 128).
    max_function_name_chars: int | None = None
    # T4: how calls behave when the declaration says nothing, and what can be changed.
    default_behavior: Literal["BLOCKING", "NON_BLOCKING"] = "BLOCKING"
    nonblocking_supported: bool = True
    scheduling_supported: bool = True
    # T7: what realtime input does while a (blocking) tool call is unanswered.
    realtime_input_during_tool_call: Literal["accepted", "close_1008", "cancel"] = "accepted"
    # M3: setup fields closed with 1007, and setup fields that are never answered.
    refused_setup_fields: tuple[SetupRule, ...] = ()
    unanswered_setup_fields: tuple[SetupRule, ...] = ()
    # M1: a TEXT response modality is refused.
    audio_only: bool = False
    # R11: the codeExecution tool: "refused" closes with 1008 "not supported".
    code_execution: Literal["refused", "accepted"] = "accepted"
    # R1: after `interrupted`, send turnComplete for the interrupted turn.
    turn_complete_after_interrupted: bool = False
    # R2: False drops `finished` from input transcriptions; late holds pieces back until
    # the answer's audio has started.
    input_transcription_finished: bool = True
    input_transcription_late: bool = False
    # R4: usageMetadata rides in the turnComplete frame (and is never missing).
    usage_with_turn_complete: bool = False
    # S6: the modality a video frame's tokens are reported under in promptTokensDetails
    # (a field report shows IMAGE for realtimeInput.video; VIDEO is the other name).
    video_usage_modality: Literal["IMAGE", "VIDEO"] = "IMAGE"
    # S6: a video frame that is not a JPEG: "ignored" (recorded, the model sees nothing);
    # "refused" closes 1007. No source says which; every profile ignores it.
    non_jpeg_video: Literal["ignored", "refused"] = "ignored"
    # R5: generationComplete after the audio, turnComplete once it has had time to play.
    turn_complete_after_playback: bool = False
    # R6: answer audio pacing when the simulator is not told otherwise; None follows the
    # simulator's `realtime` flag (real time, or as fast as possible).
    audio_pacing: Pacing | None = None
    burst_ms: int = 500
    burst_speed: float = 3.0
    # S2: bare realtime text counts only while automatic activity detection is on.
    realtime_text_needs_aad: bool = False
    # S3: activityStart/End only with AAD off, audioStreamEnd only with AAD on.
    activity_signals_need_aad_off: bool = False
    # S4: contextUpdate: "refused" closes 1007, "ignored" records it, "applied" uses it.
    context_update: Literal["refused", "ignored", "applied"] = "applied"
    # R9: resumption updates say resumable=false (no handle) while a tool call is pending.
    resumable_only_when_idle: bool = False
    # S7: historyConfig.initialHistoryInClientContent: "honoured" makes the client_content
    # before the first turn_complete history (no model call, realtime input ignored until
    # turn_complete closes it); "ignored" accepts the field and changes nothing.
    history_config: Literal["honoured", "ignored"] = "ignored"
    # S7: client_content with a `model` turn: "accepted"; "history_config" only as declared
    # history, else 1007; "ends_with_user" only when its last turn is the person's, else 1007.
    client_content_model_turns: Literal["accepted", "history_config", "ends_with_user"] = "accepted"
    # Model list entry (C6).
    input_token_limit: int = 131_072
    output_token_limit: int = 65_536
    version: str = ""
    description: str = ""

    @property
    def strict(self) -> bool:
        """False for the lenient profile, which serves any model and version."""
        return bool(self.model_ids)

    def serves(self, model: str) -> bool:
        """Whether this family serves ``model`` (with or without ``models/``)."""
        if not self.model_ids:
            return True
        return model.removeprefix("models/") in self.model_ids

    def serves_version(self, api_version: str) -> bool:
        """Whether the Live websocket is served on ``api_version`` (C1)."""
        return self.served_api_versions is None or api_version in self.served_api_versions

    def with_changes(self, **changes: Any) -> ServiceProfile:
        """A copy with some fields changed (for tests of one behaviour)."""
        return replace(self, **changes)


_LIVE_VERSIONS: Final = frozenset({"v1beta", "v1alpha"})

LENIENT: Final = ServiceProfile(name="lenient", display_name="Lenient (any client)")

_STRICT_COMMON: Final[dict[str, Any]] = {
    "served_api_versions": _LIVE_VERSIONS,  # C1
    "bad_key_code": 1007,  # C5
    "audio_only": True,  # M1
    "code_execution": "refused",  # R11
    "turn_complete_after_interrupted": True,  # R1
    "input_transcription_finished": False,  # R2
    "input_transcription_late": True,  # R2
    "usage_with_turn_complete": True,  # R4
    "turn_complete_after_playback": True,  # R5
    "audio_pacing": "burst",  # R6
    "realtime_text_needs_aad": True,  # S2
    "activity_signals_need_aad_off": True,  # S3
    "context_update": "refused",  # S4
    "resumable_only_when_idle": True,  # R9
    "max_function_name_chars": 64,  # T9: the stricter of the two sources
}

GEMINI_38_LIVE: Final = ServiceProfile(
    name="gemini-3.8-live",
    display_name="Gemini 3.8 Live",
    model_ids=("gemini-3.8-live",),
    json_schema_parameters="honoured",  # T1: accepted on 3.x (livekit/agents#7302)
    refuse_additional_properties=True,  # T2
    default_behavior="NON_BLOCKING",  # T4: async by default
    nonblocking_supported=True,
    scheduling_supported=True,
    realtime_input_during_tool_call="cancel",  # T7: new input cancels a BLOCKING call
    history_config="honoured",  # S7: HistoryConfig's field doc (no 3.8 report either way)
    client_content_model_turns="accepted",  # S7: "explicit roles (user or model)" (3.8 page)
    refused_setup_fields=(  # M3
        SetupRule(("generation_config", "thinking_config"), why="thinking_level not supported"),
        SetupRule(("thinking_config",), why="thinking_level not supported"),
        SetupRule(("generation_config", "enable_affective_dialog"), why="affective dialog removed"),
        SetupRule(("enable_affective_dialog",), why="affective dialog removed"),
        SetupRule(
            ("proactivity", "proactive_audio"),
            value=False,
            why="proactive audio is always on; false returns an error",
        ),
    ),
    version="3.8",
    description="Gemini 3.8 Live: low-latency voice agents (simulated).",
    **_STRICT_COMMON,
)

GEMINI_31_FLASH_LIVE: Final = ServiceProfile(
    name="gemini-3.1-flash-live",
    display_name="Gemini 3.1 Flash Live Preview",
    model_ids=("gemini-3.1-flash-live-preview",),
    json_schema_parameters="honoured",  # T1 (livekit/agents#7302)
    refuse_additional_properties=True,  # T2
    default_behavior="BLOCKING",  # T4: synchronous calls only
    nonblocking_supported=False,  # T4: `behavior` is accepted and ignored
    scheduling_supported=False,
    realtime_input_during_tool_call="close_1008",  # T7
    history_config="honoured",  # S7: the field doc; livekit-js#2162, strands#3424
    client_content_model_turns="history_config",  # S7: 1007 (livekit#5251, voiceclaw#248)
    unanswered_setup_fields=(  # M3: "the server never sends setupComplete"
        SetupRule(
            ("generation_config", "enable_affective_dialog"), why="affective dialog unsupported"
        ),
        SetupRule(("enable_affective_dialog",), why="affective dialog unsupported"),
        SetupRule(("proactivity",), why="proactive audio unsupported"),
    ),
    version="3.1-preview",
    description="Gemini 3.1 Flash Live Preview: legacy preview (simulated).",
    **_STRICT_COMMON,
)

GEMINI_25_FLASH_NATIVE_AUDIO: Final = ServiceProfile(
    name="gemini-2.5-flash-native-audio",
    display_name="Gemini 2.5 Flash Native Audio",
    model_ids=(
        "gemini-2.5-flash-native-audio-preview-12-2025",
        "gemini-2.5-flash-native-audio-latest",
    ),
    json_schema_parameters="ignored",  # T1: args={} (python-genai#1147, livekit#2940)
    refuse_additional_properties=False,  # T2: unproven on 2.5
    default_behavior="BLOCKING",  # T4
    nonblocking_supported=True,
    scheduling_supported=True,
    realtime_input_during_tool_call="accepted",  # T7: no report on 2.5
    history_config="ignored",  # S7: a seed with turn_complete=True is answered (pipecat)
    client_content_model_turns="ends_with_user",  # S7: "requires the seed's final turn to
    # be a user turn" (pipecat gemini_live/llm.py)
    version="12-2025",
    description="Gemini 2.5 Flash Native Audio (simulated).",
    **_STRICT_COMMON,
)

PROFILES: Final[Mapping[str, ServiceProfile]] = {
    profile.name: profile
    for profile in (GEMINI_38_LIVE, GEMINI_31_FLASH_LIVE, GEMINI_25_FLASH_NATIVE_AUDIO, LENIENT)
}
"""Every named profile; ``service`` (all strict ones) is handled by :func:`resolve_profiles`."""

SERVICE: Final = "service"


@dataclass(frozen=True, slots=True)
class ProfileSet:
    """The profiles one simulator serves, and how to pick one for a setup.

    Attributes:
        profiles: In order of preference; the first that serves the model is used.
        name: What the simulator calls this set in logs.
    """

    profiles: tuple[ServiceProfile, ...]
    name: str = field(default="")

    @property
    def lenient(self) -> bool:
        """True when no profile checks models (the old simulator)."""
        return any(not profile.strict for profile in self.profiles)

    def for_model(self, model: str) -> ServiceProfile | None:
        """The profile serving ``model``, or None when none does (a 1008 "not found")."""
        if model.removeprefix("models/") in RETIRED_MODEL_IDS and not self.lenient:
            return None
        for profile in self.profiles:
            if profile.serves(model):
                return profile
        return None

    def listed(self) -> list[tuple[str, ServiceProfile]]:
        """Every served model id with its profile, for the models list (C6)."""
        strict = [p for p in self.profiles if p.strict] or [
            GEMINI_38_LIVE,
            GEMINI_31_FLASH_LIVE,
            GEMINI_25_FLASH_NATIVE_AUDIO,
        ]
        return [(model_id, profile) for profile in strict for model_id in profile.model_ids]


def resolve_profiles(
    profile: str | ServiceProfile | Iterable[ServiceProfile] | None,
) -> ProfileSet:
    """Turn the simulator's ``profile`` argument into a :class:`ProfileSet`.

    Args:
        profile: A profile name (``service``, ``lenient``, or a family), a profile, several
            profiles, or None for :data:`DEFAULT_PROFILE` (``SAMMY_SIM_PROFILE`` overrides it).

    Raises:
        ValueError: For an unknown profile name.
    """
    if profile is None:
        profile = os.environ.get(PROFILE_ENV) or DEFAULT_PROFILE
    if isinstance(profile, ServiceProfile):
        return ProfileSet((profile,), profile.name)
    if isinstance(profile, str):
        if profile == SERVICE:
            return ProfileSet(
                (GEMINI_38_LIVE, GEMINI_31_FLASH_LIVE, GEMINI_25_FLASH_NATIVE_AUDIO), SERVICE
            )
        try:
            return ProfileSet((PROFILES[profile],), profile)
        except KeyError:
            names = ", ".join([SERVICE, *PROFILES])
            raise ValueError(
                f"unknown simulator profile {profile!r}; expected one of {names}"
            ) from None
    profiles = tuple(profile)
    if not profiles:
        raise ValueError("at least one profile is needed")
    return ProfileSet(profiles, "+".join(p.name for p in profiles))
