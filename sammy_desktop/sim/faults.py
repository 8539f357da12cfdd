"""Test-facing faults: a deliberately broken service, for tests of checks of the real one.

A :class:`FaultyProfile` is a :class:`~sammy_desktop.sim.profiles.ServiceProfile` that also
breaks one promise the real service keeps, so that a check of that promise
(``sammy-desktop --check-live``) can be shown to fail on exactly the right line. None of
these is a behaviour of any model family, which is why they live here and not among the
profile's fields (each of those cites its evidence in docs/live-service.md); no named profile
has them. Build one from a strict profile::

    broken = with_faults(PROFILES["gemini-3.8-live"], function_call_args="dropped")
    async with LiveSimulator(scenario, profile=broken) as sim: ...

The rules read them with :func:`fault_of`, so any plain profile is fault-free.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Literal

from sammy_desktop.sim.profiles import ServiceProfile

__all__ = ["FaultyProfile", "fault_of", "with_faults"]


@dataclass(frozen=True, slots=True, kw_only=True)
class FaultyProfile(ServiceProfile):
    """A profile with faults; the defaults are the faultless service.

    Attributes:
        function_call_args: ``"dropped"`` sends every function call with ``args={}``, however
            the tool was declared: the failure docs/live-service.md T1 describes, for every
            declaration.
        resumption_handles: ``"withheld"`` makes every ``sessionResumptionUpdate`` say
            ``resumable: false`` without a handle (R9's exception, always).
        models_list_entry: this family's entries in the models list (C6): ``"not_live"``
            lists them without ``bidiGenerateContent``, ``"absent"`` leaves them out (the
            websocket still serves the models).
    """

    function_call_args: Literal["as_scripted", "dropped"] = "as_scripted"
    resumption_handles: Literal["issued", "withheld"] = "issued"
    models_list_entry: Literal["live", "not_live", "absent"] = "live"


def with_faults(profile: ServiceProfile, **faults: Any) -> FaultyProfile:
    """``profile`` with the given faults (the fields of :class:`FaultyProfile`)."""
    kept = {f.name: getattr(profile, f.name) for f in fields(ServiceProfile)}
    return FaultyProfile(**kept, **faults)


def fault_of(profile: ServiceProfile, name: str) -> str:
    """The value of fault ``name`` on ``profile``; a plain profile has the faultless default."""
    if isinstance(profile, FaultyProfile):
        return str(getattr(profile, name))
    default = next(f.default for f in fields(FaultyProfile) if f.name == name)
    return str(default)
