"""The self-test's end-to-end run: the app's real path, headless, against the embedded simulator.

It starts the Live simulator on loopback with a throwaway TLS certificate, connects through
the real google-genai SDK with the tool manager's declarations, sends a push-to-talk turn
of audio (activityStart, audio, activityEnd) and checks the answer audio decodes as the Live
API's PCM16, then runs a tool call through the :class:`~sammy_desktop.tools.ToolManager` and
checks it was answered once and the model spoke after it. The steps share one session; one
that cannot run because an earlier one failed says it was skipped. The tool services get a
throwaway profile folder: nothing is written to the person's settings or keyring.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Final

from sammy_desktop.core.endpoint import client_options
from sammy_desktop.selftest.install_checks import sine_tone
from sammy_desktop.selftest.report import Report, SelfTestFailure, run_async_step
from sammy_desktop.wire_audio import (
    INPUT_MIME,
    INPUT_RATE,
    OUTPUT_MIME,
    OUTPUT_RATE,
    SAMPLE_WIDTH,
)

if TYPE_CHECKING:
    from google.genai import live, types

    from sammy_desktop.sim import LiveSimulator, Scenario
    from sammy_desktop.tools import ToolManager

__all__ = ["END_TO_END_STEPS", "run_end_to_end", "self_test_scenario"]

SELF_TEST_KEY: Final = "sammy-self-test-key"  # the simulator accepts only this key
SPOKEN_SECONDS: Final = 0.5
TOOL_NAME: Final = "getCurrentContext"
TOOL_PROMPT: Final = "self-test: use a tool"
AFTER_TOOL_SECONDS: Final = 0.2

END_TO_END_STEPS: Final = ("simulator", "connect", "push-to-talk", "tool-call")


def self_test_scenario() -> Scenario:
    """The simulated model's script: echo the spoken turn, then call one tool."""
    from sammy_desktop.sim import (
        CallTools,
        EchoAudio,
        FunctionCallSpec,
        OnActivityEnd,
        OnText,
        OnToolResponse,
        Scenario,
        Tone,
        Turn,
        TurnComplete,
    )

    return Scenario(
        name="self-test",
        turns=[
            Turn(OnActivityEnd(), [EchoAudio(trim=False), TurnComplete()]),
            Turn(
                OnText(contains="tool"),
                [
                    CallTools(
                        calls=(
                            FunctionCallSpec(
                                name=TOOL_NAME, args={"reason": "self-test"}, id="self-test-1"
                            ),
                        )
                    )
                ],
            ),
            Turn(OnToolResponse(), [Tone(duration_s=AFTER_TOOL_SECONDS), TurnComplete()]),
        ],
    )


class _EndToEnd:
    """The simulator, connection, push-to-talk and tool steps, sharing one session.

    Args:
        profile: a throwaway folder for the tool services' files.
        stack: closes what the steps open (session, tool manager, simulator), in reverse.
    """

    def __init__(self, profile: Path, stack: contextlib.AsyncExitStack) -> None:
        self._profile = profile
        self._stack = stack
        self._simulator: LiveSimulator | None = None
        self._session: live.AsyncSession | None = None
        self._tools: ToolManager | None = None

    async def start_simulator(self) -> str:
        from sammy_desktop.sim import LiveSimulator

        simulator = LiveSimulator(self_test_scenario(), api_keys=(SELF_TEST_KEY,))
        await self._stack.enter_async_context(simulator)
        self._simulator = simulator
        return f"listening on {simulator.base_url} with a throwaway TLS certificate"

    async def connect(self) -> str:
        from google import genai
        from google.genai import types
        from google.genai import version as sdk_version

        from sammy_desktop.config import AppPaths, Settings
        from sammy_desktop.eventbus import EventBus
        from sammy_desktop.tools import ToolManager, ToolServices

        simulator = self._require_simulator()
        settings = Settings()
        paths = AppPaths.profile(self._profile)
        paths.ensure()
        manager = ToolManager(
            EventBus(),
            ToolServices(paths=paths, settings=lambda: settings, transcript=lambda: ()),
            load_entry_points=False,
        )
        self._stack.push_async_callback(manager.aclose)
        self._tools = manager
        declarations = manager.declarations(settings.model)
        options = client_options(base_url=simulator.base_url, ssl_context=simulator.ssl_context)
        client = genai.Client(api_key=SELF_TEST_KEY, http_options=options)
        config = types.LiveConnectConfig(
            response_modalities=[types.Modality.AUDIO],
            realtime_input_config=types.RealtimeInputConfig(
                automatic_activity_detection=types.AutomaticActivityDetection(disabled=True)
            ),
            tools=declarations,  # type: ignore[arg-type]
        )
        session = await self._stack.enter_async_context(
            client.aio.live.connect(model=settings.model, config=config)
        )
        self._session = session
        declared = sum(len(t.function_declarations or ()) for t in declarations)
        return (
            f"google-genai {sdk_version.__version__} set up {settings.model} with {declared} tools"
        )

    async def push_to_talk(self) -> str:
        from google.genai import types

        session = self._require_session()
        spoken = sine_tone(440.0, SPOKEN_SECONDS, INPUT_RATE)
        await session.send_realtime_input(activity_start=types.ActivityStart())
        chunk = INPUT_RATE // 10 * SAMPLE_WIDTH  # 100 ms, as the app sends
        for start in range(0, len(spoken), chunk):
            await session.send_realtime_input(
                audio=types.Blob(data=spoken[start : start + chunk], mime_type=INPUT_MIME)
            )
        await session.send_realtime_input(activity_end=types.ActivityEnd())
        answer = bytearray()
        rates = set()
        # The SDK's receive() ends after turnComplete: one turn.
        async for message in session.receive():
            for blob in _audio_blobs(message):
                answer += blob.data or b""
                rates.add(blob.mime_type or "")
        return _describe_answer(bytes(answer), rates, expected_s=SPOKEN_SECONDS)

    async def tool_call(self) -> str:
        from google.genai import types

        session = self._require_session()
        manager = self._tools
        if manager is None:
            raise SelfTestFailure("skipped: the tool manager was not built")
        sent: list[types.FunctionResponse] = []

        async def respond(responses: list[types.FunctionResponse]) -> None:
            sent.extend(responses)
            await session.send_tool_response(function_responses=responses)

        await session.send_client_content(
            turns=types.Content(role="user", parts=[types.Part(text=TOOL_PROMPT)]),
            turn_complete=True,
        )
        called = []
        after = bytearray()
        async for message in session.receive():
            if message.tool_call is not None:
                called += [c.name for c in message.tool_call.function_calls or ()]
                await manager.handle(message.tool_call, respond)
            for blob in _audio_blobs(message):
                after += blob.data or b""
        if called != [TOOL_NAME]:
            raise SelfTestFailure(f"expected one call of {TOOL_NAME}, the model made {called}")
        if len(sent) != 1 or sent[0].id != "self-test-1":
            raise SelfTestFailure(f"the tool call was not answered once: {sent}")
        payload = sent[0].response or {}
        output = payload.get("output")
        if not isinstance(output, dict) or output.get("ok") is not True:
            raise SelfTestFailure(f"{TOOL_NAME} failed: {payload}")
        if not after:
            raise SelfTestFailure("the model said nothing after the tool answer")
        shared = ", ".join(sorted(output.get("value", {})))
        return f"{TOOL_NAME} answered ({shared}); the model went on speaking"

    def _require_simulator(self) -> LiveSimulator:
        if self._simulator is None:
            raise SelfTestFailure("skipped: the simulator did not start")
        return self._simulator

    def _require_session(self) -> live.AsyncSession:
        if self._session is None:
            raise SelfTestFailure("skipped: there is no connection")
        return self._session


def _audio_blobs(message: types.LiveServerMessage) -> Iterator[types.Blob]:
    content = message.server_content
    if content is None or content.model_turn is None:
        return
    for part in content.model_turn.parts or ():
        if part.inline_data is not None and (part.inline_data.mime_type or "").startswith("audio/"):
            yield part.inline_data


def _describe_answer(pcm: bytes, mime_types: set[str], *, expected_s: float) -> str:
    import numpy as np

    if not pcm:
        raise SelfTestFailure("no answer audio arrived")
    if mime_types != {OUTPUT_MIME}:
        raise SelfTestFailure(f"answer audio is {sorted(mime_types)}, expected {OUTPUT_MIME}")
    if len(pcm) % 2:
        raise SelfTestFailure(f"answer audio has an odd length ({len(pcm)} bytes): not PCM16")
    samples = np.frombuffer(pcm, "<i2").astype(np.float64)
    seconds = len(samples) / OUTPUT_RATE
    rms = float(np.sqrt(np.mean(samples**2)))
    if abs(seconds - expected_s) > expected_s * 0.2:
        raise SelfTestFailure(f"answer audio lasts {seconds:.2f} s, expected {expected_s:.2f} s")
    if rms < 1000:
        raise SelfTestFailure(f"answer audio is silent (RMS {rms:.0f})")
    return f"{seconds:.2f} s of PCM16 at {OUTPUT_RATE} Hz decoded (RMS {rms:.0f})"


async def run_end_to_end(report: Report, timeout_s: float) -> None:
    """Run the end-to-end steps in order, each within ``timeout_s``, into ``report``.

    What the steps open (the simulator, the session, the tool manager) is closed again in
    reverse, and the throwaway profile folder removed, whatever the steps found.
    """
    with tempfile.TemporaryDirectory(prefix="sammy-self-test-") as profile:
        async with contextlib.AsyncExitStack() as stack:
            end_to_end = _EndToEnd(Path(profile), stack)
            steps = (
                end_to_end.start_simulator,
                end_to_end.connect,
                end_to_end.push_to_talk,
                end_to_end.tool_call,
            )
            for name, step in zip(END_TO_END_STEPS, steps, strict=True):
                await run_async_step(report, name, step, timeout_s)
