"""The simulator's own tests: strict service profiles, and the scenario machinery.

``test_service_*`` test the strict profiles (the default, as the app meets them) and name
the profile they want. The other modules test the machinery every profile shares (scenarios,
the recorder, barge-in, resumption, the CLI) with clients written before the profiles
existed, which speak the SDK's defaults (API v1, any model id, realtime text): they run on
the lenient profile, which checks none of that. The offline demo's tests (``test_demo*``)
run strictly, as the app meets the demo: its clients connect as the app does.
"""

from __future__ import annotations

import pytest

from sammy_desktop.sim.profiles import PROFILE_ENV

_STRICT_MODULES = ("test_service_", "test_simulator_docs", "test_demo")


@pytest.fixture(autouse=True)
def _profile_for_the_module(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = request.module.__name__.rsplit(".", 1)[-1]
    if not name.startswith(_STRICT_MODULES):
        monkeypatch.setenv(PROFILE_ENV, "lenient")
