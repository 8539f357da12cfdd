"""The simulator's own tests: strict service profiles, and the scenario machinery.

``test_service_*`` test the strict profiles (the default, as the app meets them) and name
the profile they want. The other modules test the machinery every profile shares (scenarios,
the recorder, barge-in, resumption, the CLI) with clients written before the profiles
existed, which speak the SDK's defaults (API v1, any model id, realtime text): they run on
the lenient profile, which checks none of that. The app meets the offline demo strictly (its
end-to-end tests go through the app itself); its scenario's own tests here are machinery.
"""

from __future__ import annotations

import pytest

from sammy_desktop.sim.profiles import PROFILE_ENV

_STRICT_MODULES = ("test_service_", "test_simulator_docs")


@pytest.fixture(autouse=True)
def _profile_for_the_module(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = request.module.__name__.rsplit(".", 1)[-1]
    if not name.startswith(_STRICT_MODULES):
        monkeypatch.setenv(PROFILE_ENV, "lenient")
