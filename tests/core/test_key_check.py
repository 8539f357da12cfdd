"""check_key: what the service says of a pasted key, asked through the models list.

The simulator's models list refuses a bad key as the service does (HTTP 400
``API_KEY_INVALID``) and lists, for a faulty profile, no model with ``bidiGenerateContent``
(a key without Live access); an endpoint nobody listens on is the network being down.
"""

from __future__ import annotations

import contextlib
import socket

import pytest

from sammy_desktop.core.endpoint import client_options
from sammy_desktop.core.key_check import (
    NO_LIVE_MESSAGE,
    REFUSED_MESSAGE,
    UNREACHABLE_MESSAGE,
    KeyClientFactory,
    KeyVerdict,
    check_key,
)
from sammy_desktop.core.models import ModelListError, ModelListProblem, live_models
from sammy_desktop.live_sdk import genai
from sammy_desktop.sim import LiveSimulator
from sammy_desktop.sim.faults import with_faults
from sammy_desktop.sim.profiles import GEMINI_38_LIVE
from sammy_desktop.tools.capabilities import LIVE_MODELS

KEY = "AIzaSyGoodTestKey-0123456789abcdefghij"


def _factory(base_url: str, sim: LiveSimulator | None = None) -> KeyClientFactory:
    def make(key: str) -> genai.Client:
        options = client_options(
            base_url=base_url, ssl_context=sim.ssl_context if sim is not None else None
        )
        return genai.Client(api_key=key, http_options=options)

    return make


@pytest.fixture
def nobody_listens() -> str:
    with contextlib.closing(socket.socket()) as probe:
        probe.bind(("127.0.0.1", 0))
        return f"https://127.0.0.1:{probe.getsockname()[1]}"


async def test_a_key_the_service_accepts_works_with_its_live_models() -> None:
    async with LiveSimulator(profile="service", api_keys=(KEY,)) as sim:
        check = await check_key(KEY, _factory(sim.base_url, sim))
    assert check.verdict is KeyVerdict.WORKS
    assert check.ok and not check.may_save_anyway
    assert check.models[0].model_id == LIVE_MODELS[0]


async def test_a_key_the_service_refuses_is_refused() -> None:
    async with LiveSimulator(profile="service", api_keys=(KEY,)) as sim:
        check = await check_key("AIzaSyWrong", _factory(sim.base_url, sim))
    assert (check.verdict, check.message) == (KeyVerdict.REFUSED, REFUSED_MESSAGE)
    assert not check.ok and not check.may_save_anyway


async def test_a_key_without_live_models_has_no_live_access() -> None:
    no_live = with_faults(GEMINI_38_LIVE, models_list_entry="not_live")
    async with LiveSimulator(profile=no_live, api_keys=(KEY,)) as sim:
        check = await check_key(KEY, _factory(sim.base_url, sim))
    assert (check.verdict, check.message) == (KeyVerdict.NO_LIVE_ACCESS, NO_LIVE_MESSAGE)
    assert not check.may_save_anyway


async def test_without_a_network_the_key_may_be_saved_anyway(nobody_listens: str) -> None:
    check = await check_key(KEY, _factory(nobody_listens))
    assert (check.verdict, check.message) == (KeyVerdict.UNREACHABLE, UNREACHABLE_MESSAGE)
    assert check.may_save_anyway
    assert KEY not in check.message


async def test_the_models_list_says_the_network_is_down_instead_of_raising_its_own_error(
    nobody_listens: str,
) -> None:
    # The SDK's HTTP client raises its own ConnectError, which is no OSError.
    client = _factory(nobody_listens)(KEY)
    with pytest.raises(ModelListError) as raised:
        await live_models(client)
    assert raised.value.problem is ModelListProblem.UNREACHABLE
    assert str(raised.value).startswith("The models list could not be fetched: ")
