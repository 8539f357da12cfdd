"""Which Live models an API key can really use: the service's own models list.

``client.aio.models.list()`` is ``GET {base}/v1beta/models`` (paged); each entry names the
methods it supports (``supportedGenerationMethods``, which the SDK calls
``Model.supported_actions``), and Live models list ``bidiGenerateContent``
(docs/live-service.md C6). :func:`live_models` keeps those, marks the ones whose features
the app knows (:data:`~sammy_desktop.tools.capabilities.MODEL_CAPABILITIES`), and turns the
ways it can fail into one :class:`ModelListError` with a sentence for the person and what
kind of failure it was (:class:`ModelListProblem`): the key refused, the service not reached
(no network: the SDK's HTTP client raises its own transport errors, not ``OSError``), or the
service answering with an error.
"""

from __future__ import annotations

import enum
import sys
from dataclasses import dataclass

from sammy_desktop.live_sdk import errors, genai
from sammy_desktop.tools.capabilities import LIVE_MODELS, is_known_model

__all__ = ["LIVE_METHOD", "LiveModel", "ModelListError", "ModelListProblem", "live_models"]

LIVE_METHOD = "bidiGenerateContent"
"""The method a model must support to be used over the Live websocket."""


@dataclass(frozen=True, slots=True)
class LiveModel:
    """A Live model the key can use.

    Attributes:
        model_id: the id to put in the settings (without ``models/``).
        display_name: the service's name for it.
        known: the app knows its features (tool calls, setup fields); unknown ones are
            used with the safest choices.
        recommended: Google's recommended default.
    """

    model_id: str
    display_name: str
    known: bool
    recommended: bool


class ModelListProblem(enum.StrEnum):
    """Why the models list could not be read."""

    KEY_REFUSED = "key_refused"
    """The service did not accept the API key (HTTP 400, 401 or 403)."""
    UNREACHABLE = "unreachable"
    """The service could not be reached: no network, no name resolution, a timeout."""
    SERVICE = "service"
    """The service answered with another error (quota, a server error...)."""


class ModelListError(Exception):
    """The models list could not be read; ``str()`` says why, for the person.

    Attributes:
        problem: what kind of failure it was.
        code: the HTTP status the service answered with, if it answered.
    """

    def __init__(self, message: str, problem: ModelListProblem, code: int | None = None) -> None:
        super().__init__(message)
        self.problem = problem
        self.code = code


def _transport_errors() -> tuple[type[BaseException], ...]:
    """The exceptions that mean "not reached": ``OSError`` and the HTTP clients' own.

    Only clients already imported (the SDK imports the one it uses) are looked up.
    """
    found: list[type[BaseException]] = [OSError]
    for module_name, name in (
        ("httpx2", "TransportError"),
        ("httpx", "TransportError"),
        ("aiohttp", "ClientConnectionError"),
    ):
        error = getattr(sys.modules.get(module_name), name, None)
        if isinstance(error, type) and issubclass(error, BaseException):
            found.append(error)
    return tuple(found)


async def live_models(client: genai.Client, *, page_size: int = 100) -> list[LiveModel]:
    """The models ``client``'s key can use over Live, the recommended first, then by name.

    Raises:
        ModelListError: the key was refused, or the service could not be reached.
    """
    found: list[LiveModel] = []
    try:
        pager = await client.aio.models.list(config={"page_size": page_size})
        async for model in pager:
            if LIVE_METHOD not in (model.supported_actions or ()):
                continue
            model_id = (model.name or "").removeprefix("models/")
            if not model_id:
                continue
            found.append(
                LiveModel(
                    model_id=model_id,
                    display_name=model.display_name or model_id,
                    known=is_known_model(model_id),
                    recommended=model_id == LIVE_MODELS[0],
                )
            )
    except errors.ClientError as error:
        if error.code in (400, 401, 403):
            raise ModelListError(
                "The service did not accept the API key, so it would not list its models.",
                ModelListProblem.KEY_REFUSED,
                error.code,
            ) from error
        raise ModelListError(
            f"The service would not list its models ({error.code}).",
            ModelListProblem.SERVICE,
            error.code,
        ) from error
    except errors.APIError as error:
        raise ModelListError(
            f"The service could not list its models ({error.code}).",
            ModelListProblem.SERVICE,
            error.code,
        ) from error
    except _transport_errors() as error:
        reason = getattr(error, "strerror", None) or str(error) or type(error).__name__
        raise ModelListError(
            f"The models list could not be fetched: {reason}.", ModelListProblem.UNREACHABLE
        ) from error
    return sorted(found, key=lambda m: (not m.recommended, not m.known, m.model_id))
