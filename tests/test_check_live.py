"""``sammy-desktop --check-live`` against the simulator: every strict profile passes, and a
deliberately broken service fails exactly the line about what it broke.

The check is pointed at the simulator as a gateway user points the app at a gateway: an
endpoint (``--api-base-url``) and the simulator's CA in ``SSL_CERT_FILE``; the key comes from
``GEMINI_API_KEY``. The simulator's scenario answers the check's two typed turns and its tool.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import keyring.backends.fail
import pytest

from sammy_desktop.app import main
from sammy_desktop.check_live import (
    CHECK_TOOL_NAME,
    CHECK_WORD,
    EXIT_CANNOT_START,
    EXIT_FAILED,
    EXIT_OK,
    STEP_NAMES,
    TOOL_PROMPT,
    TYPED_PROMPT,
    CheckOptions,
    Timeouts,
    check_live,
)
from sammy_desktop.config import AppPaths
from sammy_desktop.config.secrets import SecretStore
from sammy_desktop.sim import (
    PROFILES,
    CallTools,
    Close,
    FunctionCallSpec,
    LiveSimulator,
    OnText,
    OnToolResponse,
    OutputTranscription,
    Received,
    Scenario,
    ServiceProfile,
    SetupRule,
    Tone,
    Turn,
    TurnComplete,
)
from sammy_desktop.sim.faults import with_faults
from sammy_desktop.sim.profiles import GEMINI_38_LIVE
from sammy_desktop.sim.wire import parse_setup_frame

# Key-shaped, so the app's redactor would also catch it by its shape.
KEY = "AIzaSyCheckLiveTestKey0123456789abcdefg"
LINE = re.compile(r"^  (ok|FAILED|skipped) +(\S+) +\d+ ms  (.+)$")
# Generous for a loaded machine; a passing run takes well under a second.
TIMEOUTS = Timeouts(connect_s=10, setup_s=10, turn_s=10, tool_s=10, resumption_s=10, models_s=10)


def check_scenario(typed_answer: list[Any] | None = None) -> Scenario:
    """The simulated model's part: answer the typed turn, call the check's tool, go on."""
    return Scenario(
        name="check-live",
        turns=[
            Turn(
                OnText(contains="say hello"),
                typed_answer or [Tone(duration_s=0.3, transcript="Hello there."), TurnComplete()],
            ),
            Turn(
                OnText(contains=CHECK_TOOL_NAME),
                [
                    CallTools(
                        calls=(FunctionCallSpec(name=CHECK_TOOL_NAME, args={"word": CHECK_WORD}),)
                    )
                ],
            ),
            Turn(
                OnToolResponse(name=CHECK_TOOL_NAME),
                [Tone(duration_s=0.3, transcript=f"It said {CHECK_WORD}."), TurnComplete()],
            ),
        ],
    )


@dataclass
class Outcome:
    """One run of the check: its exit code, what it printed, and what the simulator saw."""

    code: int
    out: str
    err: str
    sim: LiveSimulator

    @property
    def lines(self) -> dict[str, tuple[str, str]]:
        """Each step's (status, detail)."""
        found = {}
        for line in self.out.splitlines()[1:-1]:
            if line.startswith("  note: "):
                continue
            match = LINE.match(line)
            assert match, f"not a report line: {line!r}"
            status, name, detail = match.groups()
            found[name] = (status, detail)
        return found

    def statuses(self) -> dict[str, str]:
        return {name: status for name, (status, _) in self.lines.items()}

    def detail(self, name: str) -> str:
        return self.lines[name][1]


Run = Callable[..., Awaitable[Outcome]]


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("SAMMY_API_BASE_URL", "SAMMY_API_VERSION", "SSL_CERT_DIR", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def _secrets(key: str | None = KEY) -> SecretStore:
    """The env-var key, and no keyring (the person's keyring is never touched)."""
    environ = {"GEMINI_API_KEY": key} if key else {}
    backend = keyring.backends.fail.Keyring()  # type: ignore[no-untyped-call]
    return SecretStore(backend=backend, environ=environ)


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Run:
    async def go(
        profile: str | ServiceProfile,
        *,
        model: str | None = None,
        scenario: Scenario | None = None,
        timeouts: Timeouts = TIMEOUTS,
    ) -> Outcome:
        async with LiveSimulator(
            scenario or check_scenario(), api_keys=(KEY,), profile=profile
        ) as sim:
            monkeypatch.setenv("SSL_CERT_FILE", str(sim.ca_pem_path))
            out, err = io.StringIO(), io.StringIO()
            options = CheckOptions(
                paths=AppPaths.profile(tmp_path / "profile"),
                secrets=_secrets(),
                api_base_url=sim.base_url,
                model=model,
                environ={},
                timeouts=timeouts,
            )
            code = await check_live(options, out, err)
        outcome = Outcome(code, out.getvalue(), err.getvalue(), sim)
        assert KEY not in outcome.out + outcome.err
        return outcome

    return go


# ---------------------------------------------------------------- every strict profile passes


_PROFILE_MODELS = [
    ("gemini-3.8-live", "gemini-3.8-live"),
    ("gemini-3.1-flash-live", "gemini-3.1-flash-live-preview"),
    ("gemini-2.5-flash-native-audio", "gemini-2.5-flash-native-audio-preview-12-2025"),
    ("service", None),  # the settings' default model, served as the real endpoint does
]


@pytest.mark.parametrize(("profile", "model"), _PROFILE_MODELS)
async def test_every_line_passes_on_each_strict_profile(
    run: Run, profile: str, model: str | None
) -> None:
    outcome = await run(profile, model=model)

    assert outcome.code == EXIT_OK, outcome.out + outcome.err
    assert outcome.err == ""
    assert list(outcome.lines) == list(STEP_NAMES)
    assert set(outcome.statuses().values()) == {"ok"}, outcome.out
    first, last = outcome.out.splitlines()[0], outcome.out.splitlines()[-1]
    assert "check-live:" in first and "API v1beta" in first and "key from the environment" in first
    assert re.fullmatch(r"check-live passed: 6 behaviours in \d+\.\d\d s", last)
    assert ".v1beta.GenerativeService.BidiGenerateContent" in outcome.detail("connect")
    assert f'{CHECK_TOOL_NAME}(word="{CHECK_WORD}") answered' in outcome.detail("tool-call")
    assert "audio/pcm;rate=24000" in outcome.detail("typed-turn")
    assert '"Hello there."' in outcome.detail("typed-turn")
    assert "resumable=true" in outcome.detail("resumption")


async def test_the_session_is_the_apps_own(run: Run) -> None:
    """What went over the wire is what the app sends: its setup, its typed turn, its answer."""
    outcome = await run("service")
    recorder = outcome.sim.recorder

    (recorded,) = recorder.events(Received.SETUP)
    setup = parse_setup_frame(json.dumps({"setup": dict(recorded.data)}))
    assert setup.model == "models/gemini-3.8-live"
    assert setup.automatic_activity_detection is False  # push-to-talk
    assert setup.resumption_requested
    assert setup.input_transcription and setup.output_transcription
    schemas = {d.name: d.schema for d in setup.declarations}
    assert "getDateTime" in schemas and "endSession" in schemas  # the app's own tools
    assert set(schemas.values()) <= {"parameters", None}  # never parameters_json_schema
    ours = setup.declaration(CHECK_TOOL_NAME)
    assert ours is not None and ours.schema == "parameters"
    (tools,) = [t for t in _key(recorded.data, "tools") if _key(t, "function_declarations")]
    (check,) = [d for d in _key(tools, "function_declarations") if d["name"] == CHECK_TOOL_NAME]
    assert check["parameters"]["required"] == ["word"]
    texts = [(e.data["text"], e.data["turn_complete"]) for e in recorder.events("client_content")]
    assert texts == [(TYPED_PROMPT, True), (TOOL_PROMPT, True)]
    assert recorder.count(Received.TEXT) == 0  # no bare realtime text
    (answer,) = recorder.events(Received.TOOL_RESPONSE)
    (response,) = answer.data["function_responses"]
    assert response["name"] == CHECK_TOOL_NAME
    assert response["response"]["output"]["value"] == {"echoed": CHECK_WORD}
    # The probe's websocket and the SDK's, both on the v1beta path.
    paths = [e.data["path"] for e in recorder.events(Received.CONNECT)]
    assert len(paths) == 2
    assert all(".v1beta.GenerativeService.BidiGenerateContent" in p for p in paths)
    models_paths = [e.data["path"].split("?")[0] for e in recorder.events(Received.HTTP)]
    assert models_paths[:1] == ["/v1beta/models"]


async def test_the_tool_declared_with_parameters_is_called_with_its_argument_on_2_5(
    run: Run,
) -> None:
    """The 2.5 profile drops the arguments of tools declared with parameters_json_schema
    (T1); the app declares with ``parameters``, so the check's tool keeps its word."""
    profile = PROFILES["gemini-2.5-flash-native-audio"]
    assert profile.json_schema_parameters == "ignored"

    outcome = await run(profile, model="gemini-2.5-flash-native-audio-latest")

    assert outcome.code == EXIT_OK, outcome.out
    assert f'word="{CHECK_WORD}"' in outcome.detail("tool-call")


# ---------------------------------------------------------------- a broken service, the right line


def _only_failing(outcome: Outcome, name: str, *, skipped: tuple[str, ...] = ()) -> str:
    """Assert that ``name`` is the one FAILED line (``skipped`` could not run); its detail."""
    expected = dict.fromkeys(STEP_NAMES, "ok")
    expected.update(dict.fromkeys(skipped, "skipped"))
    expected[name] = "FAILED"
    assert outcome.statuses() == expected, outcome.out
    assert outcome.code == EXIT_FAILED
    assert outcome.out.splitlines()[-1].startswith(f"check-live FAILED: {name} (")
    assert "it contains no key" in outcome.out.splitlines()[-1]
    return outcome.detail(name)


async def test_a_service_without_v1beta_fails_the_connect_line(run: Run) -> None:
    broken = GEMINI_38_LIVE.with_changes(served_api_versions=frozenset({"v1alpha"}))

    outcome = await run(broken, model="gemini-3.8-live")

    detail = _only_failing(
        outcome, "connect", skipped=("setup", "typed-turn", "tool-call", "resumption")
    )
    assert "refused API v1beta (closed 1008: models/gemini-3.8-live is not found for API" in (
        detail
    )


async def test_a_setup_the_service_refuses_fails_the_setup_line(run: Run) -> None:
    broken = GEMINI_38_LIVE.with_changes(
        refused_setup_fields=(SetupRule(("output_audio_transcription",), why="test"),)
    )

    outcome = await run(broken, model="gemini-3.8-live")

    detail = _only_failing(outcome, "setup", skipped=("typed-turn", "tool-call", "resumption"))
    assert detail == "the setup was refused: closed 1007: Request contains an invalid argument."


async def test_a_setup_never_answered_fails_the_setup_line_within_its_time(run: Run) -> None:
    broken = GEMINI_38_LIVE.with_changes(
        unanswered_setup_fields=(SetupRule(("session_resumption",), why="test"),)
    )

    outcome = await run(broken, model="gemini-3.8-live", timeouts=_with(TIMEOUTS, setup_s=1.0))

    detail = _only_failing(outcome, "setup", skipped=("typed-turn", "tool-call", "resumption"))
    assert detail == "no setupComplete within 1 s"
    assert outcome.detail("connect").endswith(
        "the websocket opens (the setup had no answer: see setup)"
    )


async def test_a_model_that_drops_every_argument_fails_the_tool_call_line(run: Run) -> None:
    broken = with_faults(GEMINI_38_LIVE, function_call_args="dropped")

    outcome = await run(broken, model="gemini-3.8-live")

    detail = _only_failing(outcome, "tool-call")
    assert detail.startswith(
        f"{CHECK_TOOL_NAME} was called with args={{}}: its required argument 'word' is missing"
    )
    # The app's answer was its failure with feedback; the model went on all the same.
    (answer,) = outcome.sim.recorder.events(Received.TOOL_RESPONSE)
    assert "error" in answer.data["function_responses"][0]["response"]


async def test_a_service_that_never_gives_a_handle_fails_the_resumption_line(run: Run) -> None:
    broken = with_faults(GEMINI_38_LIVE, resumption_handles="withheld")

    outcome = await run(broken, model="gemini-3.8-live", timeouts=_with(TIMEOUTS, resumption_s=0.5))

    detail = _only_failing(outcome, "resumption")
    assert re.fullmatch(
        r"no sessionResumptionUpdate with resumable=true and a handle in 0\.5 s "
        r"\(\d+ updates, none resumable\)",
        detail,
    )


async def test_a_models_list_without_the_model_fails_the_models_line(run: Run) -> None:
    broken = with_faults(GEMINI_38_LIVE, models_list_entry="absent")

    outcome = await run(broken, model="gemini-3.8-live")

    detail = _only_failing(outcome, "models-list")
    assert detail == "gemini-3.8-live is not among the 0 models with bidiGenerateContent (none)"


async def test_a_model_listed_without_bidi_generate_content_fails_the_models_line(
    run: Run,
) -> None:
    broken = with_faults(GEMINI_38_LIVE, models_list_entry="not_live")

    outcome = await run(broken, model="gemini-3.8-live")

    detail = _only_failing(outcome, "models-list")
    assert detail.endswith("; it is listed with generateContent, countTokens only")


async def test_a_model_the_service_does_not_serve_fails_setup_and_models_not_connect(
    run: Run,
) -> None:
    outcome = await run("service", model="gemini-live-2.5-flash-preview")  # retired (C6)

    assert outcome.statuses() == {
        "connect": "ok",
        "setup": "FAILED",
        "typed-turn": "skipped",
        "tool-call": "skipped",
        "resumption": "skipped",
        "models-list": "FAILED",
    }, outcome.out
    assert outcome.detail("setup").startswith(
        "the service does not serve gemini-live-2.5-flash-preview to this key (closed 1008"
    )
    assert "  note: the app does not know the features of gemini-live-2.5-flash-preview" in (
        outcome.out
    )


async def test_a_typed_turn_answered_without_audio_fails_the_typed_turn_line(run: Run) -> None:
    scenario = check_scenario([OutputTranscription(text="Hello there."), TurnComplete()])

    outcome = await run("service", scenario=scenario)

    detail = _only_failing(outcome, "typed-turn")
    assert detail == 'the answer had no audio ("Hello there.")'


async def test_a_close_mid_session_is_reported_and_never_shows_the_key(run: Run) -> None:
    scenario = check_scenario([Close(code=1011, reason=f"Internal error {KEY}")])

    outcome = await run("service", scenario=scenario)

    assert outcome.statuses() == {
        "connect": "ok",
        "setup": "ok",
        "typed-turn": "FAILED",
        "tool-call": "skipped",
        "resumption": "FAILED",
        "models-list": "ok",
    }, outcome.out
    assert outcome.detail("typed-turn") == (
        "the service closed the connection: 1011 Internal error [REDACTED]"
    )
    assert outcome.detail("tool-call") == "the connection closed"


# ---------------------------------------------------------------- could not start


async def test_no_key_is_one_line_and_exit_2(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    options = CheckOptions(paths=AppPaths.profile(tmp_path), secrets=_secrets(None), environ={})

    code = await check_live(options, out, err)

    assert code == EXIT_CANNOT_START
    assert out.getvalue() == ""
    assert err.getvalue() == (
        "sammy-desktop --check-live: no API key. Paste one in Settings > Account (it is kept "
        "in the keyring), or run GEMINI_API_KEY=... sammy-desktop --check-live\n"
    )


@pytest.mark.parametrize(
    ("api_base_url", "model", "why"),
    [
        ("ftp://gateway.example", None, "is not an https:// address"),
        (None, "", "--model '' is not a model id"),
    ],
)
async def test_a_bad_setting_is_one_line_and_exit_2(
    tmp_path: Path, api_base_url: str | None, model: str | None, why: str
) -> None:
    out, err = io.StringIO(), io.StringIO()
    options = CheckOptions(
        paths=AppPaths.profile(tmp_path),
        secrets=_secrets(),
        api_base_url=api_base_url,
        model=model,
        environ={},
    )

    code = await check_live(options, out, err)

    assert code == EXIT_CANNOT_START
    assert out.getvalue() == ""
    assert why in err.getvalue() and len(err.getvalue().splitlines()) == 1
    assert KEY not in err.getvalue()


async def test_a_missing_ca_file_is_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "missing.pem"))
    out, err = io.StringIO(), io.StringIO()
    options = CheckOptions(paths=AppPaths.profile(tmp_path), secrets=_secrets(), environ={})

    code = await check_live(options, out, err)

    assert code == EXIT_CANNOT_START
    assert err.getvalue().startswith("sammy-desktop --check-live: the client cannot be built: ")


def test_model_without_check_live_is_refused() -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--model", "gemini-3.8-live"])
    assert exit_info.value.code == 2


# ---------------------------------------------------------------- the command itself


_RUN_MAIN = (
    "import sys\n"
    "from sammy_desktop.app import main\n"
    "code = main(sys.argv[1:])\n"
    "print('qt-loaded' if any(m.startswith('PySide6') for m in sys.modules) else 'no-qt')\n"
    "sys.exit(code)\n"
)


@pytest.fixture
async def simulator() -> AsyncIterator[LiveSimulator]:
    async with LiveSimulator(check_scenario(), api_keys=(KEY,), profile="service") as sim:
        yield sim


@pytest.fixture
def child_env(tmp_path: Path) -> dict[str, str]:
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in ("DISPLAY", "WAYLAND_DISPLAY", "SAMMY_API_BASE_URL", "SAMMY_API_VERSION")
    }
    env["QT_QPA_PLATFORM"] = "xcb"  # a window would need a display: there is none
    env["HOME"] = str(tmp_path / "home")
    return env


async def _sammy_desktop(*args: str, env: Mapping[str, str]) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        _RUN_MAIN,
        *args,
        env=dict(env),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_check_live_runs_without_a_display_or_qt_and_never_shows_the_key(
    simulator: LiveSimulator, child_env: dict[str, str], tmp_path: Path
) -> None:
    env = {
        **child_env,
        "GEMINI_API_KEY": KEY,
        "SSL_CERT_FILE": str(simulator.ca_pem_path),
    }
    profile = tmp_path / "profile"

    code, out, err = await _sammy_desktop(
        "--check-live",
        "--config-dir",
        str(profile),
        "--api-base-url",
        simulator.base_url,
        "--log-level",
        "DEBUG",
        env=env,
    )

    assert code == 0, out + err
    lines = out.splitlines()
    assert lines[-1] == "no-qt"
    assert lines[-2].startswith("check-live passed: 6 behaviours")
    assert [LINE.match(line).group(2) for line in lines[1:-2]] == list(STEP_NAMES)  # type: ignore[union-attr]
    log = (profile / "logs" / "sammy-desktop.log").read_text(encoding="utf-8")
    assert "check-live" in log or "Sammy Desktop" in log
    for text in (out, err, log):
        assert KEY not in text
    assert simulator.recorder.count(Received.SETUP) == 1


async def test_check_live_without_a_key_exits_2(child_env: dict[str, str], tmp_path: Path) -> None:
    env = {**child_env}
    env.pop("GEMINI_API_KEY", None)
    # No keyring in the child: keyring's "fail" backend, as on a desktop without one.
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"

    code, out, err = await _sammy_desktop(
        "--check-live", "--config-dir", str(tmp_path / "profile"), env=env
    )

    assert code == 2
    assert out.splitlines() == ["no-qt"]
    assert err.splitlines() == [
        "sammy-desktop --check-live: no API key. Paste one in Settings > Account (it is kept "
        "in the keyring), or run GEMINI_API_KEY=... sammy-desktop --check-live"
    ]


def _key(data: Mapping[str, Any], snake: str) -> Any:
    """A field of a recorded frame, in either spelling the SDK uses."""
    head, *rest = snake.split("_")
    return data.get(snake, data.get(head + "".join(w.title() for w in rest)))


def _with(timeouts: Timeouts, **changes: float) -> Timeouts:
    from dataclasses import replace

    return replace(timeouts, **changes)
