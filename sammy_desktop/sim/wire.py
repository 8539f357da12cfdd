"""The Live API wire format as the simulator reads and writes it.

Client frames are JSON objects with one top-level key (``setup``, ``realtime_input``,
``client_content``, ``tool_response``, ``contextUpdate``). The SDK mixes camelCase and
snake_case keys, so every lookup here accepts both spellings; nested user data (function
arguments, tool results) is passed through untouched. Bytes arrive as base64 in either the
standard or the URL-safe alphabet.

Server frames use camelCase top-level keys only; the builders at the bottom of this module
produce exactly the shapes the SDK's ``LiveServerMessage`` parser understands. Errors are never
sent as frames: the server closes the socket with a code (see :class:`CloseCode`).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from sammy_desktop.wire_audio import INPUT_RATE, pcm_mime

__all__ = [
    "MAX_FRAME_BYTES",
    "ActivityEnd",
    "ActivityStart",
    "AudioStreamEnd",
    "ClientContent",
    "ClientMessage",
    "CloseCode",
    "ContextUpdate",
    "FunctionDeclarationInfo",
    "FunctionResponseRecord",
    "ProtocolError",
    "RealtimeAudio",
    "RealtimeText",
    "RealtimeVideo",
    "Setup",
    "ToolResponse",
    "audio_message",
    "decode_base64",
    "encode_base64",
    "format_duration",
    "parse_client_frame",
    "parse_setup_frame",
    "server_content_message",
]

# The websockets client the SDK uses refuses incoming frames over 1 MiB (its max_size).
MAX_FRAME_BYTES = 1024 * 1024


class CloseCode(IntEnum):
    """Close codes the Live service uses, and therefore the simulator."""

    NORMAL = 1000
    GOING_AWAY = 1001
    ABNORMAL = 1006  # never sent on the wire: the client reports it for a dropped TCP link
    INVALID_ARGUMENT = 1007
    POLICY = 1008  # authentication and quota problems
    MESSAGE_TOO_BIG = 1009  # sent by the websocket itself, for a frame over its limit
    INTERNAL = 1011


class ProtocolError(ValueError):
    """A client frame the service would refuse; the message becomes the close reason."""


@dataclass(frozen=True, slots=True)
class FunctionDeclarationInfo:
    """What the simulator needs to know of one function declaration.

    Attributes:
        name: The function's name.
        schema: Which field declares the arguments: ``"parameters"`` (types.Schema),
            ``"parameters_json_schema"``, or None (no arguments).
        behavior: ``BLOCKING`` / ``NON_BLOCKING`` as declared, or None.
        additional_properties: True when ``additionalProperties`` appears anywhere inside
            ``parameters`` (a key the 3.x models refuse there: docs/live-service.md T2).
        properties: The names of the top-level arguments, in the declared order.
        required: The arguments the declaration says a call must carry.
    """

    name: str
    schema: str | None = None
    behavior: str | None = None
    additional_properties: bool = False
    properties: tuple[str, ...] = ()
    required: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Setup:
    """The first client frame, with the fields the simulator acts on pulled out.

    Attributes:
        raw: The ``setup`` object exactly as received.
        model: The model name, e.g. ``"models/gemini-live-2.5-flash-preview"``.
        function_names: Names of every declared function, in order.
        resumption_requested: True when the client asked for session resumption.
        resumption_handle: The handle to resume, if any.
        automatic_activity_detection: False when the client does its own turn taking
            (push-to-talk with activityStart/activityEnd).
        input_transcription: True when the client asked for input transcriptions.
        output_transcription: True when the client asked for output transcriptions.
        declarations: Every function declaration, in order.
        response_modalities: ``generationConfig.responseModalities`` as sent.
        code_execution: True when a ``codeExecution`` tool is declared.
        initial_history_in_client_content: ``historyConfig.initialHistoryInClientContent``:
            the client_content before the first ``turn_complete`` is history
            (docs/live-service.md S7).
        media_resolution: ``generationConfig.mediaResolution`` as sent
            (``MEDIA_RESOLUTION_LOW``...; None when the setup has none: the default, S6).
    """

    raw: Mapping[str, Any]
    model: str
    function_names: tuple[str, ...]
    resumption_requested: bool
    resumption_handle: str | None
    automatic_activity_detection: bool
    input_transcription: bool
    output_transcription: bool
    declarations: tuple[FunctionDeclarationInfo, ...] = ()
    response_modalities: tuple[str, ...] = ()
    code_execution: bool = False
    initial_history_in_client_content: bool = False
    media_resolution: str | None = None

    def declaration(self, name: str) -> FunctionDeclarationInfo | None:
        """The declaration of function ``name``, if the setup has one."""
        return next((d for d in self.declarations if d.name == name), None)


@dataclass(frozen=True, slots=True)
class RealtimeAudio:
    """A chunk of microphone audio (PCM16 LE mono)."""

    pcm: bytes
    mime_type: str
    sample_rate: int


@dataclass(frozen=True, slots=True)
class RealtimeVideo:
    """A video frame or image sent as realtime input."""

    data: bytes
    mime_type: str


@dataclass(frozen=True, slots=True)
class ActivityStart:
    """The client says the person started speaking (automatic detection disabled)."""


@dataclass(frozen=True, slots=True)
class ActivityEnd:
    """The client says the person stopped speaking (automatic detection disabled)."""


@dataclass(frozen=True, slots=True)
class AudioStreamEnd:
    """The client paused its microphone stream (automatic detection enabled)."""


@dataclass(frozen=True, slots=True)
class RealtimeText:
    """Text typed by the person, sent as realtime input."""

    text: str


@dataclass(frozen=True, slots=True)
class ClientContent:
    """Turn-based content; ``text`` joins every text part of every turn.

    Attributes:
        turns: The turns exactly as received.
        turn_complete: Whether the client asks for an answer now.
        text: Every text part of every turn, joined.
        entries: Each turn's role (``"user"`` when the turn names none) and its text parts
            joined, in order.
    """

    turns: tuple[Mapping[str, Any], ...]
    turn_complete: bool
    text: str
    entries: tuple[tuple[str, str], ...] = ()

    @property
    def has_model_turn(self) -> bool:
        """Whether a turn speaks as the model (earlier answers, not the person's words)."""
        return any(role == "model" for role, _ in self.entries)


@dataclass(frozen=True, slots=True)
class FunctionResponseRecord:
    """One function response inside a tool_response frame."""

    id: str
    name: str
    response: Mapping[str, Any]
    scheduling: str | None = None
    will_continue: bool | None = None


@dataclass(frozen=True, slots=True)
class ToolResponse:
    """The client's answers to earlier function calls."""

    responses: tuple[FunctionResponseRecord, ...]


@dataclass(frozen=True, slots=True)
class ContextUpdate:
    """A mid-session change of system instruction and/or tools."""

    raw: Mapping[str, Any]
    function_names: tuple[str, ...] | None = field(default=None)
    declarations: tuple[FunctionDeclarationInfo, ...] | None = field(default=None, compare=False)


ClientMessage = (
    RealtimeAudio
    | RealtimeVideo
    | ActivityStart
    | ActivityEnd
    | AudioStreamEnd
    | RealtimeText
    | ClientContent
    | ToolResponse
    | ContextUpdate
)


def _camel(snake: str) -> str:
    head, *rest = snake.split("_")
    return head + "".join(word.title() for word in rest)


def _get(obj: Mapping[str, Any], snake_name: str) -> Any:
    """Look a key up by its snake_case or camelCase spelling."""
    if snake_name in obj:
        return obj[snake_name]
    return obj.get(_camel(snake_name))


def _has(obj: Mapping[str, Any], snake_name: str) -> bool:
    return snake_name in obj or _camel(snake_name) in obj


def _object(value: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ProtocolError(f"{what} must be a JSON object")
    return value


def decode_base64(text: Any, what: str) -> bytes:
    """Decode base64 in either alphabet, with or without padding.

    Args:
        text: The encoded string.
        what: Names the field in the error message.

    Raises:
        ProtocolError: When the text is not a string or not base64.
    """
    if not isinstance(text, str):
        raise ProtocolError(f"{what} must be a base64 string")
    normalised = text.replace("-", "+").replace("_", "/")
    normalised += "=" * (-len(normalised) % 4)
    try:
        return base64.b64decode(normalised, validate=True)
    except (binascii.Error, ValueError) as error:
        raise ProtocolError(f"{what} is not valid base64") from error


def encode_base64(data: bytes) -> str:
    """Encode bytes with the standard alphabet, as the service does."""
    return base64.b64encode(data).decode("ascii")


def _loads(frame: str | bytes) -> Mapping[str, Any]:
    try:
        message = json.loads(frame)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ProtocolError(f"Invalid JSON payload received: {error}") from error
    return _object(message, "a client message")


def _declarations(tools: Any) -> tuple[FunctionDeclarationInfo, ...]:
    found: list[FunctionDeclarationInfo] = []
    if not isinstance(tools, Sequence) or isinstance(tools, str):
        return ()
    for tool in tools:
        if not isinstance(tool, Mapping):
            continue
        for declaration in _get(tool, "function_declarations") or ():
            if not isinstance(declaration, Mapping) or not isinstance(declaration.get("name"), str):
                continue
            schema = None
            if _has(declaration, "parameters_json_schema"):
                schema = "parameters_json_schema"
            elif "parameters" in declaration:
                schema = "parameters"
            behavior = _get(declaration, "behavior")
            properties, required = _arguments(_get(declaration, schema) if schema else None)
            found.append(
                FunctionDeclarationInfo(
                    name=declaration["name"],
                    schema=schema,
                    behavior=str(behavior).upper() if isinstance(behavior, str) else None,
                    additional_properties=_mentions_key(
                        declaration.get("parameters"), "additionalProperties"
                    ),
                    properties=properties,
                    required=required,
                )
            )
    return tuple(found)


def _arguments(schema: Any) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The top-level argument names of a declared schema, and the required ones."""
    if not isinstance(schema, Mapping):
        return (), ()
    properties = schema.get("properties")
    names = tuple(str(k) for k in properties) if isinstance(properties, Mapping) else ()
    required = schema.get("required")
    if not isinstance(required, Sequence) or isinstance(required, str):
        return names, ()
    return names, tuple(str(name) for name in required if isinstance(name, str))


def _mentions_key(node: Any, key: str) -> bool:
    """Whether ``key`` (or its snake_case spelling) is a key anywhere inside ``node``."""
    snake = "additional_properties" if key == "additionalProperties" else key
    if isinstance(node, Mapping):
        return any(k in (key, snake) or _mentions_key(value, key) for k, value in node.items())
    if isinstance(node, Sequence) and not isinstance(node, str):
        return any(_mentions_key(item, key) for item in node)
    return False


def _has_tool(tools: Any, snake_name: str) -> bool:
    if not isinstance(tools, Sequence) or isinstance(tools, str):
        return False
    return any(isinstance(tool, Mapping) and _has(tool, snake_name) for tool in tools)


def parse_setup_frame(frame: str | bytes) -> Setup:
    """Parse the first frame of a connection, which must be ``{"setup": {...}}``.

    Raises:
        ProtocolError: When the frame is not a valid setup message.
    """
    message = _loads(frame)
    if set(message) != {"setup"}:
        raise ProtocolError("The first message must be a setup message")
    setup = _object(message["setup"], "setup")
    model = setup.get("model")
    if not isinstance(model, str) or not model:
        raise ProtocolError("setup.model is required")
    generation = _get(setup, "generation_config") or {}
    _object(generation, "setup.generationConfig")
    resumption = _get(setup, "session_resumption")
    handle = _get(resumption, "handle") if isinstance(resumption, Mapping) else None
    realtime_config = _get(setup, "realtime_input_config") or {}
    detection = _get(realtime_config, "automatic_activity_detection") or {}
    tools = _get(setup, "tools")
    modalities = _get(generation, "response_modalities") or ()
    resolution = _get(generation, "media_resolution")
    declarations = _declarations(tools)
    history = _get(setup, "history_config")
    # The SDK passes historyConfig's inner key through unconverted (snake_case).
    history_declared = isinstance(history, Mapping) and bool(
        _get(history, "initial_history_in_client_content")
    )
    return Setup(
        raw=setup,
        model=model,
        function_names=tuple(d.name for d in declarations),
        resumption_requested=resumption is not None,
        resumption_handle=handle if isinstance(handle, str) and handle else None,
        automatic_activity_detection=not bool(detection.get("disabled")),
        input_transcription=_has(setup, "input_audio_transcription"),
        output_transcription=_has(setup, "output_audio_transcription"),
        declarations=declarations,
        response_modalities=tuple(str(m).upper() for m in modalities if isinstance(m, str)),
        code_execution=_has_tool(tools, "code_execution"),
        initial_history_in_client_content=history_declared,
        media_resolution=resolution if isinstance(resolution, str) and resolution else None,
    )


_RATE = re.compile(r"rate=(\d+)")


def _sample_rate(mime_type: str) -> int:
    match = _RATE.search(mime_type)
    return int(match.group(1)) if match else INPUT_RATE


def _blob(value: Any, what: str) -> tuple[bytes, str]:
    blob = _object(value, what)
    mime_type = _get(blob, "mime_type") or ""
    if not isinstance(mime_type, str):
        raise ProtocolError(f"{what}.mimeType must be a string")
    return decode_base64(blob.get("data", ""), f"{what}.data"), mime_type


def _parse_realtime_input(body: Mapping[str, Any]) -> list[ClientMessage]:
    messages: list[ClientMessage] = []
    if _has(body, "audio"):
        pcm, mime = _blob(_get(body, "audio"), "realtimeInput.audio")
        messages.append(RealtimeAudio(pcm=pcm, mime_type=mime, sample_rate=_sample_rate(mime)))
    for chunk in _get(body, "media_chunks") or ():
        # The deprecated session.send() path sends mediaChunks; sort them by mime type.
        data, mime = _blob(chunk, "realtimeInput.mediaChunks[]")
        if mime.startswith("audio/"):
            messages.append(RealtimeAudio(pcm=data, mime_type=mime, sample_rate=_sample_rate(mime)))
        else:
            messages.append(RealtimeVideo(data=data, mime_type=mime))
    if _has(body, "video"):
        data, mime = _blob(_get(body, "video"), "realtimeInput.video")
        messages.append(RealtimeVideo(data=data, mime_type=mime))
    if _has(body, "activity_start"):
        messages.append(ActivityStart())
    if _has(body, "activity_end"):
        messages.append(ActivityEnd())
    if _get(body, "audio_stream_end"):
        messages.append(AudioStreamEnd())
    if _has(body, "text"):
        text = body["text"]
        if not isinstance(text, str):
            raise ProtocolError("realtimeInput.text must be a string")
        messages.append(RealtimeText(text=text))
    if not messages and not _has(body, "audio_stream_end"):
        raise ProtocolError(f"Unknown realtimeInput fields: {sorted(body)}")
    return messages


def _parse_client_content(body: Mapping[str, Any]) -> ClientContent:
    turns = body.get("turns") or []
    if not isinstance(turns, list):
        raise ProtocolError("clientContent.turns must be a list")
    texts: list[str] = []
    entries: list[tuple[str, str]] = []
    for turn in turns:
        content = _object(turn, "clientContent.turns[]")
        role = content.get("role")
        turn_texts = [
            part["text"]
            for part in content.get("parts") or ()
            if isinstance(part, Mapping) and isinstance(part.get("text"), str)
        ]
        texts.extend(turn_texts)
        entries.append((role if isinstance(role, str) and role else "user", "".join(turn_texts)))
    return ClientContent(
        turns=tuple(turns),
        turn_complete=bool(_get(body, "turn_complete")),
        text="".join(texts),
        entries=tuple(entries),
    )


def _parse_tool_response(body: Mapping[str, Any]) -> ToolResponse:
    records: list[FunctionResponseRecord] = []
    for item in _get(body, "function_responses") or ():
        response = _object(item, "toolResponse.functionResponses[]")
        call_id = response.get("id")
        if not isinstance(call_id, str) or not call_id:
            raise ProtocolError("toolResponse.functionResponses[].id is required")
        payload = response.get("response") or {}
        records.append(
            FunctionResponseRecord(
                id=call_id,
                name=str(response.get("name") or ""),
                response=_object(payload, "toolResponse.functionResponses[].response"),
                scheduling=_get(response, "scheduling"),
                will_continue=_get(response, "will_continue"),
            )
        )
    if not records:
        raise ProtocolError("toolResponse.functionResponses must not be empty")
    return ToolResponse(responses=tuple(records))


def _parse_context_update(body: Mapping[str, Any]) -> ContextUpdate:
    tools = body.get("tools")
    if tools is None:
        return ContextUpdate(raw=body)
    # The SDK wraps the list: {"tools": {"tools": [...]}}; accept a bare list as well.
    inner = tools.get("tools", []) if isinstance(tools, Mapping) else tools
    declarations = _declarations(inner)
    return ContextUpdate(
        raw=body,
        function_names=tuple(d.name for d in declarations),
        declarations=declarations,
    )


def parse_client_frame(frame: str | bytes) -> list[ClientMessage]:
    """Parse one client frame after the setup.

    Returns:
        The messages it carries, usually one (the deprecated ``mediaChunks`` may carry more).

    Raises:
        ProtocolError: For invalid JSON, an unknown message type or a malformed field.
    """
    message = _loads(frame)
    if len(message) != 1:
        raise ProtocolError(f"A client message must have exactly one field, got {sorted(message)}")
    ((key, value),) = message.items()
    body = _object(value, key)
    if key in ("realtime_input", "realtimeInput"):
        return _parse_realtime_input(body)
    if key in ("client_content", "clientContent"):
        return [_parse_client_content(body)]
    if key in ("tool_response", "toolResponse"):
        return [_parse_tool_response(body)]
    if key in ("context_update", "contextUpdate"):
        return [_parse_context_update(body)]
    if key == "setup":
        raise ProtocolError("setup may only be sent once, as the first message")
    raise ProtocolError(f"Unknown client message type {key!r}")


def format_duration(seconds: float) -> str:
    """Format seconds as a protobuf JSON duration, e.g. ``"50s"`` or ``"0.5s"``."""
    if float(seconds).is_integer():
        return f"{int(seconds)}s"
    return f"{seconds:.3f}".rstrip("0") + "s"


def server_content_message(**fields: Any) -> dict[str, Any]:
    """Build ``{"serverContent": {...}}`` from camelCase fields, dropping ``None`` values."""
    return {"serverContent": {key: value for key, value in fields.items() if value is not None}}


def audio_message(
    pcm: bytes, sample_rate: int, output_transcription: str | None = None
) -> dict[str, Any]:
    """Build a model-turn message carrying one audio part and, optionally, a transcript piece."""
    part = {"inlineData": {"mimeType": pcm_mime(sample_rate), "data": encode_base64(pcm)}}
    transcription = {"text": output_transcription} if output_transcription else None
    return server_content_message(modelTurn={"parts": [part]}, outputTranscription=transcription)
