"""The ingress's view of the deployments behind it, with their failures mapped to ours."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

from ray.serve.exceptions import BackPressureError

from deployments.messages import EncodedChunk, EncodeJob, NormalisedText
from deployments.synthesis.synthesiser import SynthesiserInfo
from serve_app.errors import InternalError, Overloaded, ServiceError

logger = logging.getLogger("serve_app")


def service_error(exc: BaseException) -> ServiceError:
    """What the client is told when a deployment call fails."""
    if isinstance(exc, ServiceError):
        return exc
    if isinstance(exc, BackPressureError):
        return Overloaded(
            "overloaded", "The service is at capacity; retry shortly.", headers={"Retry-After": "1"}
        )
    logger.error("pipeline call failed: %r", exc)
    return InternalError()


class Pipeline:
    """Calls the TextNormaliser and the AudioEncoder through their handles.

    ``normaliser`` and ``encoder`` are Serve ``DeploymentHandle``s, or any object
    with the same ``.method.remote()`` and ``.options(stream=True)`` surface.
    """

    def __init__(self, normaliser: Any, encoder: Any) -> None:
        self._normaliser = normaliser
        self._encoder = encoder
        self._encoder_stream = encoder.options(stream=True)

    async def normalise(self, text: str, language: str, quality: str) -> NormalisedText:
        try:
            result: NormalisedText = await self._normaliser.normalise.remote(
                text, language, quality
            )
        except Exception as e:
            raise service_error(e) from e
        return result

    async def synthesisers(self) -> SynthesiserInfo:
        """What the synthesisers have loaded: engines and voices."""
        try:
            result: SynthesiserInfo = await self._encoder.info.remote()
        except Exception as e:
            raise service_error(e) from e
        return result

    async def encode(self, job: EncodeJob) -> AsyncIterator[EncodedChunk]:
        """The encoded audio of ``job``; failures arrive as :class:`ServiceError`."""
        try:
            async for chunk in self._encoder_stream.encode.remote(job):
                yield chunk
        except ServiceError:
            raise
        except Exception as e:
            raise service_error(e) from e
