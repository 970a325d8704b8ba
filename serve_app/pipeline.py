"""The speech pipeline as the ingress runs it: normalise and encode here,
synthesise in this process or on the Synthesiser deployment.

Normalising and encoding are cheap, per-request CPU work, so they run in the
ingress replica that holds the request: a Ray handle hop costs more CPU than
either (measured, README "Performance"). Synthesis is where the choice is: CPU
voices (eSpeak, Piper) run best in the ingress process too; GPU voices run on
their own autoscaled deployment, one streaming hop away. Both answer through
:class:`Synthesis`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any, Protocol

from ray.serve.exceptions import BackPressureError

from deployments.encoding.encoder import encode_stream
from deployments.messages import AudioChunk, EncodedChunk, EncodeJob, NormalisedText, SynthesisJob
from deployments.normaliser.normaliser import TextNormaliser
from deployments.synthesis.deployment import SynthesiserReplica
from deployments.synthesis.synthesiser import SynthesiserInfo
from serve_app.errors import InternalError, Overloaded, ServiceError

logger = logging.getLogger("serve_app")

# Normalising costs ~8 us a character here: up to this many it runs on the event
# loop (under 2 ms, less than a thread hop under load), longer texts on a thread.
INLINE_NORMALISE_CHARS = 200


def service_error(exc: BaseException) -> ServiceError:
    """What the client is told when a pipeline stage fails."""
    if isinstance(exc, ServiceError):
        return exc
    if isinstance(exc, BackPressureError):
        return Overloaded(
            "overloaded", "The service is at capacity; retry shortly.", headers={"Retry-After": "1"}
        )
    logger.error("pipeline call failed: %r", exc)
    return InternalError()


class Synthesis(Protocol):
    """Where segments become audio. Closing a ``synthesize`` stream stops its synthesis."""

    def synthesize(self, job: SynthesisJob) -> AsyncGenerator[AudioChunk, None]: ...

    async def info(self) -> SynthesiserInfo: ...


class LocalSynthesis:
    """A Synthesiser in this process (its engine calls run on its own threads)."""

    def __init__(self, synthesiser: SynthesiserReplica) -> None:
        self._synthesiser = synthesiser

    def synthesize(self, job: SynthesisJob) -> AsyncGenerator[AudioChunk, None]:
        return self._synthesiser.synthesize(job)

    async def info(self) -> SynthesiserInfo:
        return self._synthesiser.info()


class RemoteSynthesis:
    """The Synthesiser deployment behind a Serve ``DeploymentHandle``."""

    def __init__(self, handle: Any) -> None:
        self._handle = handle
        self._stream = handle.options(stream=True)

    async def synthesize(self, job: SynthesisJob) -> AsyncGenerator[AudioChunk, None]:
        stream = self._stream.synthesize.remote(job)
        try:
            async for chunk in stream:
                yield chunk
        finally:
            stream.cancel()  # the replica stops speaking segments nobody will read

    async def info(self) -> SynthesiserInfo:
        result: SynthesiserInfo = await self._handle.info.remote()
        return result


class Pipeline:
    """Normalise text, synthesise it, encode the audio; failures become :class:`ServiceError`."""

    def __init__(self, synthesis: Synthesis) -> None:
        self._normaliser = TextNormaliser()
        self._synthesis = synthesis

    async def normalise(self, text: str, language: str, quality: str) -> NormalisedText:
        """``text`` cleaned and segmented; a long text off the event loop (it takes
        tens of milliseconds)."""
        try:
            if len(text) <= INLINE_NORMALISE_CHARS:
                return self._normaliser.normalise(text, language, quality)
            return await asyncio.to_thread(self._normaliser.normalise, text, language, quality)
        except Exception as e:
            raise service_error(e) from e

    async def synthesisers(self) -> SynthesiserInfo:
        """What the synthesisers have loaded: engines and voices."""
        try:
            return await self._synthesis.info()
        except Exception as e:
            raise service_error(e) from e

    async def encode(self, job: EncodeJob) -> AsyncIterator[EncodedChunk]:
        """The encoded audio of ``job`` as it is synthesised. Closing the stream
        stops synthesis."""
        try:
            async with contextlib.aclosing(self._synthesis.synthesize(job.synthesis)) as audio:
                async for chunk in encode_stream(audio, job):
                    yield chunk
        except ServiceError:
            raise
        except Exception as e:
            raise service_error(e) from e
