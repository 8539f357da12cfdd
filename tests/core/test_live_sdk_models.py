"""The SDK's message models are built when the SDK loads, not inside the first answer.

Each case runs in a fresh interpreter: in this one, earlier tests have built the models
already, and the test could not fail.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

# Parses one message of each kind the service sends in a session, through the SDK's own
# path (receive() -> LiveServerMessage._from_response), counting the schemas pydantic builds.
_PARSE_AND_COUNT = textwrap.dedent(
    """
    import base64, json, sys
    from pydantic._internal import _generate_schema

    built = []
    original = _generate_schema.GenerateSchema.generate_schema

    def counting(self, obj, *args, **kwargs):
        built.append(getattr(obj, "__name__", repr(obj)))
        return original(self, obj, *args, **kwargs)

    {prepare}
    _generate_schema.GenerateSchema.generate_schema = counting
    from google.genai import types

    audio = base64.b64encode(bytes(960)).decode()
    messages = [
        {{"setupComplete": {{}}}},
        {{"serverContent": {{"modelTurn": {{"parts": [
            {{"inlineData": {{"mimeType": "audio/pcm;rate=24000", "data": audio}}}}]}}}}}},
        {{"serverContent": {{"outputTranscription": {{"text": "Hello"}}}}}},
        {{"serverContent": {{"inputTranscription": {{"text": "Hi"}}, "interrupted": True}}}},
        {{"serverContent": {{"generationComplete": True, "turnComplete": True}}}},
        {{"toolCall": {{"functionCalls": [
            {{"id": "c1", "name": "clock", "args": {{"tz": "UTC"}}}}]}}}},
        {{"toolCallCancellation": {{"ids": ["c1"]}}}},
        {{"usageMetadata": {{"promptTokenCount": 5, "responseTokensDetails": [
            {{"modality": "AUDIO", "tokenCount": 9}}]}}}},
        {{"sessionResumptionUpdate": {{"newHandle": "h", "resumable": True}}}},
        {{"goAway": {{"timeLeft": "10s"}}}},
    ]
    for message in messages:
        types.LiveServerMessage._from_response(response=message, kwargs={{}})
    types.FunctionResponse(id="c1", name="clock", response={{"output": "12:00"}})
    print(json.dumps(built))
    """
)


def _schemas_built_while_parsing(prepare: str) -> list[str]:
    script = _PARSE_AND_COUNT.format(prepare=prepare)
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    return list(json.loads(result.stdout.strip().splitlines()[-1]))


def test_without_building_them_first_a_session_builds_them_message_by_message() -> None:
    # The SDK's own behaviour (defer_build), which is what makes the next test worth having.
    built = _schemas_built_while_parsing("pass")
    assert "LiveServerMessage" in built
    assert "LiveServerContent" in built


def test_loading_the_sdk_as_the_app_does_leaves_nothing_to_build_in_a_session() -> None:
    prepare = "from sammy_desktop.desktop_app import _load_live_sdk; _load_live_sdk()"
    assert _schemas_built_while_parsing(prepare) == []


_CONNECT_ONCE = textwrap.dedent(
    """
    import asyncio, os
    from sammy_desktop.config import Settings, TalkMode
    from sammy_desktop.config.settings import DEFAULT_MODEL
    from sammy_desktop.core.endpoint import make_client_factory
    from sammy_desktop.core.live import LiveConnection
    from sammy_desktop.core.setup import build_live_config
    from sammy_desktop.sim import LiveSimulator, Scenario

    async def connect_once():
        async with LiveSimulator(Scenario(), api_keys=("test-key",)) as sim:
            os.environ["SSL_CERT_FILE"] = str(sim.ca_pem_path)
            client = make_client_factory(lambda: "test-key", base_url=sim.base_url)()
            connection = LiveConnection(client, DEFAULT_MODEL, connect_timeout_s=30)
            config = build_live_config(
                Settings(), [], talk_mode=TalkMode.PUSH_TO_TALK, resume_handle=None
            )
            await connection.connect(config)
            await connection.close()
            await client.aio.aclose()

    asyncio.run(connect_once())
    """
)


def test_the_core_s_first_connection_builds_them_before_the_first_answer() -> None:
    # Every way in (the app, --check-live, the in-process core) connects through
    # LiveConnection: its setupComplete alone would build only the top of the tree.
    assert _schemas_built_while_parsing(_CONNECT_ONCE) == []
