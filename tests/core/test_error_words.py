"""An error that ends the conversation says what happened, then what to do, once
(issue 24, point 11).

Before, a missing key read "No API key is set. Paste one in Settings > Account, or try the
offline demo. Check the API key in Settings > Account, then connect again." (the advice
twice), and a refused one carried the service's own advice for developers after it. Here
each failure goes through the real core against the simulator, and the notice the window
builds from it (message, then what to do) names each thing once, with the service's words
and errno text left to the log.
"""

from __future__ import annotations

import re

import keyring.backends.fail
import pytest

from sammy_desktop.backend import Backend
from sammy_desktop.config import Settings
from sammy_desktop.config.secrets import SecretStore
from sammy_desktop.config.settings import DEFAULT_MODEL
from sammy_desktop.core.events import ErrorKind, ErrorRaised
from sammy_desktop.sim import QUOTA_REASON, Close, OnActivityEnd, Scenario, Turn
from tests.core.conftest import HarnessFactory
from tests.helpers.audio import speech


def notice(error: ErrorRaised) -> str:
    """The banner's sentence, as the window puts it together (ui/notices.py)."""
    return f"{error.message} {error.what_to_do}".strip()


def said_once(text: str) -> None:
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if s.strip()]
    assert len(sentences) == len(set(sentences)), text
    for place in ("Settings > Account", "Settings > Voice & language", "offline demo"):
        assert text.count(place) <= 1, text
    for plumbing in ("Please", "Errno", "(", "API_KEY", "ListModels", "bidiGenerateContent"):
        assert plumbing not in text, text


async def test_no_key_says_so_once_and_where_to_put_one(core_harness: HarnessFactory) -> None:
    nothing = keyring.backends.fail.Keyring()  # type: ignore[no-untyped-call]
    backend = Backend(SecretStore(backend=nothing, environ={}), Settings)

    async def ask_the_backend() -> None:
        backend()  # what the app's client factory does before it connects

    async with core_harness(Scenario(), before_connect=ask_the_backend) as h:
        await h.core.start()
        error = await h.events.wait_for(ErrorRaised)
    assert error.kind is ErrorKind.AUTH
    assert notice(error) == (
        "No API key is saved yet. Paste a working API key in Settings > Account, or try the "
        "offline demo."
    )
    assert "refused" not in notice(error) and "did not accept" not in notice(error)
    assert h.sim.connection_count == 0  # nothing was sent, and nothing says it was


async def test_a_refused_key_leaves_the_services_advice_to_the_log(
    core_harness: HarnessFactory, caplog: pytest.LogCaptureFixture
) -> None:
    async with core_harness(Scenario(), api_key="not-the-key") as h:
        await h.core.start()
        error = await h.events.wait_for(ErrorRaised)
    assert error.message == "The service did not accept the API key."
    said_once(notice(error))
    assert "API key not valid" in caplog.text  # the service's words, for whoever looks


async def test_a_used_up_quota_and_a_model_not_offered_say_it_once(
    core_harness: HarnessFactory,
) -> None:
    scenario = Scenario(turns=[Turn(OnActivityEnd(), [Close(code=1011, reason=QUOTA_REASON)])])
    async with core_harness(scenario) as h:
        await h.ready()
        await h.say(speech(0.2))
        quota = await h.events.wait_for(ErrorRaised)
    assert quota.message == "The API key's quota is used up."
    said_once(notice(quota))
    async with core_harness(Scenario(), api_version="v1") as h:
        await h.core.start()
        model = await h.events.wait_for(ErrorRaised)
    assert model.message == f"The service does not offer the model “{DEFAULT_MODEL}” to this key."
    said_once(notice(model))
