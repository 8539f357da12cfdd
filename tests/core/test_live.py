"""LiveConnection and its helpers: endpoint choice, trust, setup, close classification."""

from __future__ import annotations

import random
import ssl

import pytest
from google.genai import errors, types

from sammy_desktop.config import Settings, TalkMode, VadSensitivity
from sammy_desktop.config.settings import DEFAULT_MODEL
from sammy_desktop.core.backoff import ReconnectPolicy
from sammy_desktop.core.endpoint import (
    API_BASE_URL_ENV,
    live_dial,
    make_client_factory,
    resolve_api_base_url,
)
from sammy_desktop.core.live import (
    ConnectTimeout,
    FailureKind,
    LiveConnection,
    LiveConnectionError,
)
from sammy_desktop.core.setup import build_live_config
from sammy_desktop.sim import LiveSimulator, Received, Scenario, SetupRule
from sammy_desktop.sim.profiles import GEMINI_38_LIVE
from tests.core.conftest import API_KEY


def test_endpoint_precedence_flag_then_env_then_settings() -> None:
    settings = Settings(api_base_url="https://settings.example")
    env = {API_BASE_URL_ENV: "https://env.example/"}
    assert resolve_api_base_url("https://flag.example/", settings, env) == "https://flag.example"
    assert resolve_api_base_url(None, settings, env) == "https://env.example"
    assert resolve_api_base_url(None, settings, {}) == "https://settings.example"
    assert resolve_api_base_url(None, Settings(), {}) is None
    assert resolve_api_base_url("  ", Settings(), {API_BASE_URL_ENV: ""}) is None


def test_hands_free_config_uses_the_settings_vad() -> None:
    settings = Settings(
        vad_start_sensitivity=VadSensitivity.LOW,
        vad_end_sensitivity=VadSensitivity.LOW,
        silence_duration_ms=1200,
        language="de-DE",
        voice="Kore",
    )
    config = build_live_config(settings, [], talk_mode=TalkMode.HANDS_FREE, resume_handle="h-1")
    assert config.realtime_input_config is not None
    detection = config.realtime_input_config.automatic_activity_detection
    assert detection is not None
    assert detection.disabled is False
    assert detection.start_of_speech_sensitivity is types.StartSensitivity.START_SENSITIVITY_LOW
    assert detection.end_of_speech_sensitivity is types.EndSensitivity.END_SENSITIVITY_LOW
    assert detection.silence_duration_ms == 1200
    assert config.session_resumption is not None
    assert config.session_resumption.handle == "h-1"
    assert config.speech_config is not None
    assert config.speech_config.language_code == "de-DE"
    assert config.tools is None


@pytest.mark.parametrize(
    ("code", "reason", "kind"),
    [
        # docs/live-service.md C5: the code and the reason decide together.
        (1007, "API key not valid. Please pass a valid API key.", FailureKind.AUTH),
        (1008, "API key not valid", FailureKind.AUTH),  # as older servers said it
        (
            1008,
            "models/gemini-3.8-live is not found for API version v1, or is not supported for "
            "bidiGenerateContent. Call ListModels",
            FailureKind.MODEL,
        ),
        (1011, "You exceeded your current quota, please check your plan", FailureKind.QUOTA),
        (1008, "Operation is not implemented, or supported, or enabled", FailureKind.REFUSED),
        (1007, "Request contains an invalid argument.", FailureKind.REFUSED),
        (1011, "Internal error encountered.", FailureKind.TRANSIENT),
        (1011, "keepalive ping timeout", FailureKind.TRANSIENT),
        (1006, "", FailureKind.TRANSIENT),
        (1000, "", FailureKind.TRANSIENT),
        (None, "why", FailureKind.TRANSIENT),
    ],
)
def test_close_codes_are_classified_by_code_and_reason(
    code: int | None, reason: str, kind: FailureKind
) -> None:
    assert LiveConnectionError.from_close(code, reason).kind is kind


def test_sdk_close_error_keeps_code_and_reason() -> None:
    error = LiveConnectionError.from_api_error(errors.APIError(1008, "API key not valid"))
    assert error.kind is FailureKind.AUTH
    assert error.code == 1008
    assert "API key not valid" in error.reason


def test_backoff_grows_is_bounded_and_jittered() -> None:
    policy = ReconnectPolicy(initial_s=1, multiplier=2, maximum_s=5, jitter=0.2)
    rng = random.Random(1)
    delays = [policy.delay(n, rng) for n in range(1, 7)]
    assert 0.8 <= delays[0] <= 1.2
    assert 1.6 <= delays[1] <= 2.4
    assert all(4.0 <= d <= 6.0 for d in delays[3:])
    exact = ReconnectPolicy(initial_s=1, multiplier=2, maximum_s=5, jitter=0)
    assert [exact.delay(n, rng) for n in (1, 2, 3, 4)] == [1, 2, 4, 5]
    with pytest.raises(ValueError, match="attempt"):
        policy.delay(0, rng)
    with pytest.raises(ValueError, match="jitter"):
        ReconnectPolicy(jitter=2)


async def test_ssl_cert_file_is_honoured_for_a_private_endpoint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with LiveSimulator(Scenario(), api_keys=(API_KEY,)) as sim:
        monkeypatch.setenv("SSL_CERT_FILE", str(sim.ca_pem_path))
        factory = make_client_factory(lambda: API_KEY, base_url=sim.base_url)
        client = factory()
        connection = LiveConnection(client, DEFAULT_MODEL, connect_timeout_s=5)
        config = build_live_config(
            Settings(), [], talk_mode=TalkMode.PUSH_TO_TALK, resume_handle=None
        )
        await connection.connect(config)
        try:
            assert connection.is_open
            assert connection.session_id == "sim-session-1"
            await sim.recorder.wait_for(Received.SETUP)
        finally:
            await connection.close()
            await client.aio.aclose()
        assert not connection.is_open


async def test_untrusted_endpoint_is_a_configuration_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    async with LiveSimulator(Scenario(), api_keys=(API_KEY,)) as sim:
        client = make_client_factory(lambda: API_KEY, base_url=sim.base_url)()
        connection = LiveConnection(client, DEFAULT_MODEL, connect_timeout_s=5)
        config = build_live_config(
            Settings(), [], talk_mode=TalkMode.PUSH_TO_TALK, resume_handle=None
        )
        with pytest.raises(LiveConnectionError) as caught:
            await connection.connect(config)
        await client.aio.aclose()
        assert caught.value.kind is FailureKind.CONFIGURATION
        assert "certificate" in caught.value.reason
        assert not connection.is_open


async def test_the_handshake_says_what_it_ended_with(monkeypatch: pytest.MonkeyPatch) -> None:
    """setupComplete and its session id after a connect; a timeout of its own kind without."""
    unanswered = GEMINI_38_LIVE.with_changes(
        unanswered_setup_fields=(SetupRule(("session_resumption",), why="test"),)
    )
    config = build_live_config(Settings(), [], talk_mode=TalkMode.PUSH_TO_TALK, resume_handle=None)
    async with LiveSimulator(Scenario(), api_keys=(API_KEY,)) as sim:
        monkeypatch.setenv("SSL_CERT_FILE", str(sim.ca_pem_path))
        client = make_client_factory(lambda: API_KEY, base_url=sim.base_url)()
        connection = LiveConnection(client, DEFAULT_MODEL, connect_timeout_s=5)
        await connection.connect(config)
        try:
            assert connection.setup_complete
            assert connection.session_id == "sim-session-1"
        finally:
            await connection.close()
            await client.aio.aclose()
    async with LiveSimulator(Scenario(), api_keys=(API_KEY,), profile=unanswered) as sim:
        monkeypatch.setenv("SSL_CERT_FILE", str(sim.ca_pem_path))
        client = make_client_factory(lambda: API_KEY, base_url=sim.base_url)()
        connection = LiveConnection(client, "gemini-3.8-live", connect_timeout_s=0.5)
        with pytest.raises(ConnectTimeout) as caught:
            await connection.connect(config)
        await client.aio.aclose()
    assert caught.value.kind is FailureKind.TRANSIENT and caught.value.code is None
    assert caught.value.reason == "no answer from the service within 0.5 s"
    assert not connection.is_open


def test_what_the_sdk_dials_is_read_in_one_place() -> None:
    client = make_client_factory(lambda: API_KEY, base_url="https://gateway.example")()
    dial = live_dial(client)
    assert dial.url == (
        "wss://gateway.example/ws/google.ai.generativelanguage.v1beta."
        "GenerativeService.BidiGenerateContent"
    )
    assert dial.headers["x-goog-api-key"] == API_KEY
    assert API_KEY not in repr(dial)
    assert isinstance(dial.tls["ssl"], ssl.SSLContext)
