"""Line ``models-list``: the service's models list names the configured model as a Live model.

The list is fetched beside the session, from the start, with the app's own reading of it
(:func:`~sammy_desktop.core.models.live_models`, docs/live-service.md C6), so its line shows
how long the fetch took rather than when it was written. The connect step asks it too: a
setup refused as "not found for API version" is about the model when the list lacks it,
and about the version when it has it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING

from sammy_desktop.check_live.report import Report, Status, count
from sammy_desktop.core.models import LIVE_METHOD, ModelListError, live_models
from sammy_desktop.live_sdk import genai

if TYPE_CHECKING:
    from sammy_desktop.core.models import LiveModel

__all__ = ["ModelsList", "bare_model"]

_log = logging.getLogger(__name__)


def bare_model(model: str) -> str:
    """A model id without ``models/``."""
    return model.strip().removeprefix("models/")


class ModelsList:
    """The models list, fetched in a task of its own from the moment it is made.

    Args:
        client: the check's client.
        model: the configured model (with or without ``models/``).
        limit_s: the most the list (and the one model's entry) may take.
    """

    def __init__(self, client: genai.Client, model: str, limit_s: float) -> None:
        self._client = client
        self._model = bare_model(model)
        self._limit_s = limit_s
        self._seconds = 0.0
        self._task = asyncio.create_task(self._fetch(), name="check-live models list")

    async def _fetch(self) -> list[LiveModel]:
        started = time.perf_counter()
        try:
            async with asyncio.timeout(self._limit_s):
                return await live_models(self._client)
        finally:
            self._seconds = time.perf_counter() - started

    async def is_listed(self) -> bool | None:
        """Whether the list names the configured model; None when it failed."""
        with contextlib.suppress(Exception):
            found = await asyncio.shield(self._task)
            return any(m.model_id == self._model for m in found)
        return None

    async def write_line(self, report: Report) -> None:
        """Wait for the list and write its line."""
        status, detail = await self._verdict()
        report.add_at("models-list", status, 0.0, self._seconds, detail)

    async def cancel(self) -> None:
        """Stop the fetch if it is still on its way."""
        if not self._task.done():
            self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._task

    async def _verdict(self) -> tuple[Status, str]:
        model = self._model
        try:
            found = await self._task
        except TimeoutError:
            return Status.FAILED, f"no models list within {self._limit_s:g} s"
        except ModelListError as error:
            return Status.FAILED, str(error)
        except Exception as error:  # noqa: BLE001 - the line says what went wrong
            _log.info("check-live: the models list failed", exc_info=error)
            return Status.FAILED, f"{type(error).__name__}: {error}"
        ids = [m.model_id for m in found]
        if model in ids:
            return Status.OK, (
                f"{count(len(ids), 'Live model')} for this key, {model} among them with "
                f"{LIVE_METHOD}"
            )
        elsewhere = await self._listed_without_live()
        return Status.FAILED, (
            f"{model} is not among the {count(len(ids), 'model')} with {LIVE_METHOD} "
            f"({', '.join(ids) or 'none'}){elsewhere}"
        )

    async def _listed_without_live(self) -> str:
        """Say what the service lists for the model when it is not a Live model."""
        try:
            async with asyncio.timeout(self._limit_s):
                entry = await self._client.aio.models.get(model=self._model)
        except Exception:  # noqa: BLE001 - only a better sentence is at stake
            return ""
        methods = ", ".join(entry.supported_actions or ()) or "none"
        return f"; it is listed with {methods} only"
