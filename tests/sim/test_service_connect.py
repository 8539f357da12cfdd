"""Strict profiles, connecting: versions, keys, models, setup rules, the models list.

Each test names the entry of docs/live-service.md it checks. A real google-genai client talks
to the simulator, as in the rest of tests/sim.
"""

from __future__ import annotations

import asyncio

import pytest
from google import genai
from google.genai import errors, types

from sammy_desktop.sim import (
    BAD_KEY_REASON,
    INVALID_ARGUMENT_REASON,
    NOT_SUPPORTED_REASON,
    LiveSimulator,
    Received,
    not_found_reason,
)
from sammy_desktop.sim.profiles import PROFILE_ENV, resolve_profiles
from tests.sim.live_client import MODELS, connect, full_config, strict

STRICT = list(MODELS)


async def _refusal(sim: LiveSimulator, **options: object) -> errors.APIError:
    with pytest.raises(errors.APIError) as raised:
        async with connect(sim, **options):  # type: ignore[arg-type]
            pass
    return raised.value


@pytest.mark.parametrize("profile", STRICT)
async def test_v1_is_refused_with_1008_and_the_services_wording(profile: str) -> None:
    # C1: the SDK's default api_version is v1; the Live websocket is served on v1beta only.
    async with LiveSimulator(profile=profile, api_keys=("test-key",)) as sim:
        refused = await _refusal(sim, model=MODELS[profile])
        (connected,) = sim.recorder.events(Received.CONNECT)
    assert ".v1.GenerativeService.BidiGenerateContent" in connected.data["path"]
    assert refused.code == 1008
    reason = str(refused.details)
    assert reason.startswith(f"models/{MODELS[profile]} is not found for API version v1, or is")
    assert reason == not_found_reason(MODELS[profile], "v1")[: len(reason)]
    assert sim.recorder.count(Received.SETUP) == 0


@pytest.mark.parametrize("profile", STRICT)
async def test_v1beta_is_served_and_is_in_the_url_the_sdk_builds(profile: str) -> None:
    async with LiveSimulator(profile=profile) as sim, strict(sim, profile) as session:
        assert session.session_id
        (connected,) = sim.recorder.events(Received.CONNECT)
    assert connected.data["path"].endswith(
        "/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent"
    )
    assert sim.sessions[0].profile == profile


async def test_a_bad_key_is_refused_with_1007_and_the_services_wording() -> None:
    # C5: 1007 "API key not valid. Please pass a valid API key." (the old simulator: 1008).
    async with LiveSimulator(profile="service", api_keys=("test-key",)) as sim:
        refused = await _refusal(
            sim, api_key="wrong", api_version="v1beta", model=MODELS["gemini-3.8-live"]
        )
    assert (refused.code, refused.details) == (1007, BAD_KEY_REASON)


@pytest.mark.parametrize(
    "model",
    [
        "gemini-2.0-flash-live-001",  # shut down 2025-12-09
        "gemini-live-2.5-flash-preview",  # shut down 2025-12-09
        "gemini-2.5-flash-native-audio-preview-09-2025",  # not in the list of ids in service
        "gemini-9-imaginary",
    ],
)
async def test_unknown_and_retired_models_are_not_found(model: str) -> None:
    # C6: "a retired id is refused with 1008 'not found'".
    async with LiveSimulator(profile="service") as sim:
        refused = await _refusal(sim, api_version="v1beta", model=model)
    assert refused.code == 1008
    assert str(refused.details).startswith(f"models/{model} is not found for API version v1beta")


async def test_the_service_profile_serves_each_model_with_its_family() -> None:
    ids = {
        "gemini-3.8-live": "gemini-3.8-live",
        "gemini-3.1-flash-live-preview": "gemini-3.1-flash-live",
        "gemini-2.5-flash-native-audio-preview-12-2025": "gemini-2.5-flash-native-audio",
        "gemini-2.5-flash-native-audio-latest": "gemini-2.5-flash-native-audio",
    }
    async with LiveSimulator(profile="service") as sim:
        for model in ids:
            async with connect(sim, api_version="v1beta", model=model):
                pass
    assert [state.profile for state in sim.sessions] == list(ids.values())


async def test_a_profile_for_one_family_does_not_serve_the_others() -> None:
    async with LiveSimulator(profile="gemini-3.8-live") as sim:
        refused = await _refusal(
            sim, api_version="v1beta", model=MODELS["gemini-2.5-flash-native-audio"]
        )
    assert refused.code == 1008


async def test_the_default_profile_is_the_service_unless_the_environment_says_otherwise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(PROFILE_ENV, raising=False)
    assert not resolve_profiles(None).lenient
    assert LiveSimulator().profiles.name == "service"
    monkeypatch.setenv(PROFILE_ENV, "lenient")
    assert resolve_profiles(None).lenient
    assert LiveSimulator(lenient=True).profiles.lenient
    with pytest.raises(ValueError, match="unknown simulator profile"):
        resolve_profiles("gemini-1.0-live")


async def test_lenient_serves_any_model_on_any_version_and_keeps_1008_for_a_bad_key() -> None:
    async with LiveSimulator(lenient=True, api_keys=("k",)) as sim:
        async with connect(sim, api_key="k", model="anything-at-all"):
            pass
        refused = await _refusal(sim, api_key="wrong")
    assert refused.code == 1008


# ---------------------------------------------------------------- setup rules (M1, M3, R11, T2)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("thinking_config", types.ThinkingConfig(thinking_level=types.ThinkingLevel.LOW)),
        ("enable_affective_dialog", True),
        ("proactivity", types.ProactivityConfig(proactive_audio=False)),
    ],
)
async def test_gemini_3_8_refuses_the_setup_fields_it_dropped(field: str, value: object) -> None:
    # M3: no thinking_level, no affective dialog, proactive audio cannot be turned off.
    async with LiveSimulator(profile="gemini-3.8-live") as sim:
        refused = await _refusal(
            sim,
            config=full_config(**{field: value}),
            api_version="v1beta",
            model=MODELS["gemini-3.8-live"],
        )
    assert (refused.code, refused.details) == (1007, INVALID_ARGUMENT_REASON)


async def test_gemini_3_8_accepts_proactive_audio_on() -> None:
    config = full_config(proactivity=types.ProactivityConfig(proactive_audio=True))
    async with (
        LiveSimulator(profile="gemini-3.8-live") as sim,
        strict(sim, "gemini-3.8-live", config) as session,
    ):
        assert session.session_id


@pytest.mark.parametrize(
    "extra",
    [
        {"enable_affective_dialog": True},
        {"proactivity": types.ProactivityConfig(proactive_audio=True)},
    ],
)
async def test_gemini_3_1_never_answers_a_setup_with_affective_dialog_or_proactivity(
    extra: dict[str, object],
) -> None:
    # M3: "the server never sends setupComplete" (PatterAI/Patter#210).
    async with LiveSimulator(profile="gemini-3.1-flash-live") as sim:
        connecting = asyncio.create_task(_connect_and_hold(sim, full_config(**extra)))
        (ignored,) = await sim.recorder.wait_for(Received.IGNORED)
        assert ignored.data["what"] == "setup"
        assert sim.recorder.sent("setupComplete") == []
        assert not connecting.done()
        connecting.cancel()
        await asyncio.wait({connecting})


async def _connect_and_hold(sim: LiveSimulator, config: types.LiveConnectConfig) -> None:
    async with strict(sim, "gemini-3.1-flash-live", config):
        pass


async def test_gemini_2_5_accepts_affective_dialog_proactivity_and_thinking() -> None:
    config = full_config(
        enable_affective_dialog=True,
        proactivity=types.ProactivityConfig(proactive_audio=True),
        thinking_config=types.ThinkingConfig(thinking_budget=512),
    )
    async with (
        LiveSimulator(profile="gemini-2.5-flash-native-audio") as sim,
        strict(sim, "gemini-2.5-flash-native-audio", config) as session,
    ):
        assert session.session_id


@pytest.mark.parametrize("profile", STRICT)
async def test_a_text_response_modality_is_refused(profile: str) -> None:
    # M1: "The requested combination of response modalities (TEXT) is not supported".
    config = full_config(response_modalities=[types.Modality.TEXT])
    async with LiveSimulator(profile=profile) as sim:
        refused = await _refusal(sim, config=config, api_version="v1beta", model=MODELS[profile])
    assert refused.code == 1007
    assert str(refused.details).startswith(
        "The requested combination of response modalities (TEXT) is not supported"
    )


@pytest.mark.parametrize("profile", STRICT)
async def test_the_code_execution_tool_is_refused(profile: str) -> None:
    # R11: no Live model of the Gemini API supports code execution.
    config = full_config(tools=[types.Tool(code_execution=types.ToolCodeExecution())])
    async with LiveSimulator(profile=profile) as sim:
        refused = await _refusal(sim, config=config, api_version="v1beta", model=MODELS[profile])
    assert (refused.code, refused.details) == (1008, NOT_SUPPORTED_REASON)


def _declared_with(schema: types.Schema) -> types.LiveConnectConfig:
    return full_config(
        tools=[
            types.Tool(
                function_declarations=[
                    types.FunctionDeclaration(name="set_volume", parameters=schema)
                ]
            )
        ]
    )


@pytest.mark.parametrize(
    ("profile", "refused"),
    [
        ("gemini-3.8-live", True),
        ("gemini-3.1-flash-live", True),
        ("gemini-2.5-flash-native-audio", False),  # unproven there: accepted
    ],
)
async def test_additional_properties_inside_parameters(profile: str, refused: bool) -> None:
    # T2: "additionalProperties inside `parameters` is what gets rejected with a 1007".
    schema = types.Schema(
        type=types.Type.OBJECT,
        properties={"options": types.Schema(type=types.Type.OBJECT, additional_properties=True)},
    )
    async with LiveSimulator(profile=profile) as sim:
        if refused:
            error = await _refusal(
                sim, config=_declared_with(schema), api_version="v1beta", model=MODELS[profile]
            )
            assert (error.code, error.details) == (1007, INVALID_ARGUMENT_REASON)
        else:
            async with strict(sim, profile, _declared_with(schema)) as session:
                assert session.session_id


@pytest.mark.parametrize("profile", list(MODELS))
@pytest.mark.parametrize(
    ("name", "refused"),
    [
        ("a" * 64, False),
        ("a" * 65, True),  # the v1beta reference's limit (the SDK's docstring says 128)
        ("time__get.current:time-1", False),
        ("time/get", True),
        ("1st_tool", True),
    ],
)
async def test_function_names_are_held_to_the_documented_rule(
    profile: str, name: str, refused: bool
) -> None:
    # T9: "Must start with a letter or an underscore. Must be a-z, A-Z, 0-9, or contain
    # underscores, dots, colons and dashes, with a maximum length of 64."
    config = types.LiveConnectConfig(
        response_modalities=[types.Modality.AUDIO],
        tools=[types.Tool(function_declarations=[types.FunctionDeclaration(name=name)])],
    )
    async with LiveSimulator(profile=profile) as sim:
        if refused:
            error = await _refusal(sim, config=config, api_version="v1beta", model=MODELS[profile])
            assert (error.code, error.details) == (1007, INVALID_ARGUMENT_REASON)
        else:
            async with strict(sim, profile, config) as session:
                assert session.session_id


# ---------------------------------------------------------------- the models list (C6)


async def test_models_list_reaches_the_simulator_and_marks_live_models() -> None:
    async with LiveSimulator(profile="service", api_keys=("test-key",)) as sim:
        client = genai.Client(api_key="test-key", http_options=sim.http_options("v1beta"))
        pager = await client.aio.models.list(config={"page_size": 2})
        models = [model async for model in pager]
        requests = [event.data["path"] for event in sim.recorder.events(Received.HTTP)]
    live = [m.name for m in models if "bidiGenerateContent" in (m.supported_actions or [])]
    assert live == [
        f"models/{model}" for profile in sim.profiles.profiles for model in profile.model_ids
    ]
    assert "models/gemini-2.5-flash" in [m.name for m in models]
    assert "models/gemini-2.5-flash" not in live
    assert all(m.display_name for m in models)
    # Paged as the REST API pages: pageSize, then pageToken.
    assert requests[0] == "/v1beta/models?pageSize=2"
    assert requests[1].startswith("/v1beta/models?pageSize=2&pageToken=")


async def test_models_get_finds_one_model() -> None:
    async with LiveSimulator(profile="gemini-3.8-live") as sim:
        client = genai.Client(api_key="any", http_options=sim.http_options("v1beta"))
        model = await client.aio.models.get(model="gemini-3.8-live")
        with pytest.raises(errors.ClientError) as raised:
            await client.aio.models.get(model="gemini-0-nothing")
    assert model.supported_actions == ["bidiGenerateContent"]
    assert raised.value.code == 404


async def test_models_list_with_a_bad_key_is_http_400_api_key_invalid() -> None:
    async with LiveSimulator(profile="service", api_keys=("test-key",)) as sim:
        client = genai.Client(api_key="wrong", http_options=sim.http_options("v1beta"))
        with pytest.raises(errors.ClientError) as raised:
            await client.aio.models.list()
    assert (raised.value.code, raised.value.status) == (400, "INVALID_ARGUMENT")
    assert raised.value.message == BAD_KEY_REASON
    assert raised.value.details["error"]["details"][0]["reason"] == "API_KEY_INVALID"
