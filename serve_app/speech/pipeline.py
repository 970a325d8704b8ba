"""The speech pipeline as the ingress sees it: normalise, then synthesise and encode,
each stage in this process or on its own deployment (``serve_app.ingress.placement``).

Normalisation is one unary call (:class:`Normalisation`); audio is one stream
of encoded chunks per request (:class:`Encoding`), read from the AudioEncoder
deployment (which reads the Synthesiser's stream) or encoded here from a
Synthesiser here or there. Voices of engines placed in the ingress are always
synthesised and encoded here. Every failure leaves as a :class:`ServiceError`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any, Protocol, TypeVar

from ray.exceptions import ActorUnavailableError, RayActorError
from ray.serve.exceptions import BackPressureError

from deployments.encoding import encode_work, interleaved
from deployments.messages import (
    AudioChunk,
    CachedAudio,
    EncodedChunk,
    EncodeWork,
    NormalisedText,
    Surroundings,
    SynthesisParams,
    SynthesisWork,
)
from deployments.normaliser import TextNormaliser, normalise_off_loop
from deployments.reading import ReadingOptions
from deployments.replica_streams import without_nothing
from deployments.synthesis import SynthesiserInfo, SynthesisRunner
from serve_app.http.errors import InternalError, Overloaded, ServiceError

logger = logging.getLogger("serve_app")


T = TypeVar("T")
# What a request that found no synthesis replica within its wait is told to wait.
FIRST_AUDIO_RETRY_S = 10


def service_error(exc: BaseException) -> ServiceError:
    """What the client is told when a pipeline stage fails."""
    if isinstance(exc, ServiceError):
        return exc
    if isinstance(exc, BackPressureError):
        return Overloaded(
            "overloaded", "The service is at capacity; retry shortly.", headers={"Retry-After": "1"}
        )
    if isinstance(exc, RayActorError | ActorUnavailableError):
        logger.warning("a pipeline stage's replica went away: %r", exc)
        return Overloaded(
            "not_ready",
            "A stage of the service is restarting; retry shortly.",
            headers={"Retry-After": "1"},
        )
    logger.error("pipeline call failed: %r", exc)
    return InternalError()


class Normalisation(Protocol):
    async def normalise(
        self, text: str, options: ReadingOptions, around: Surroundings | None = None
    ) -> NormalisedText: ...


class LocalNormalisation:
    """The normaliser in this process (long texts on a thread)."""

    def __init__(self) -> None:
        self._normaliser = TextNormaliser()
        self._normaliser.warm_up()

    async def normalise(
        self, text: str, options: ReadingOptions, around: Surroundings | None = None
    ) -> NormalisedText:
        return await normalise_off_loop(self._normaliser, text, options, around)


class RemoteNormalisation:
    """The TextNormaliser deployment behind a Serve ``DeploymentHandle``."""

    def __init__(self, handle: Any) -> None:
        self._handle = handle

    async def normalise(
        self, text: str, options: ReadingOptions, around: Surroundings | None = None
    ) -> NormalisedText:
        result: NormalisedText = await self._handle.normalise.remote(text, options, around)
        return result


class Synthesis(Protocol):
    """Where segments become audio. Closing a ``synthesise`` stream stops its synthesis."""

    def synthesise(self, work: SynthesisWork) -> AsyncGenerator[AudioChunk, None]: ...

    async def info(self) -> SynthesiserInfo: ...


class LocalSynthesis:
    """A Synthesiser in this process (its engine calls run on its own threads)."""

    def __init__(self, synthesiser: SynthesisRunner) -> None:
        self._synthesiser = synthesiser

    def speaks(self, voice_id: str) -> bool:
        return self._synthesiser.speaks(voice_id)

    def synthesise(self, work: SynthesisWork) -> AsyncGenerator[AudioChunk, None]:
        return self._synthesiser.synthesise(work)

    async def info(self) -> SynthesiserInfo:
        return self._synthesiser.info()


class RemoteSynthesis:
    """The Synthesiser deployment behind a Serve ``DeploymentHandle``."""

    def __init__(self, handle: Any) -> None:
        self._handle = handle
        self._stream = handle.options(stream=True)

    def synthesise(self, work: SynthesisWork) -> AsyncGenerator[AudioChunk, None]:
        # cancelled on close: the replica stops speaking segments nobody will read
        return _cancelled_on_close(self._stream.synthesise.remote(work))

    async def info(self) -> SynthesiserInfo:
        result: SynthesiserInfo = await self._handle.info.remote()
        return result


class Encoding(Protocol):
    """One request's encoded audio. Closing the stream stops its synthesis."""

    def encode(self, work: EncodeWork) -> AsyncGenerator[EncodedChunk, None]: ...


class LocalEncoding:
    """Encoded here, from a Synthesiser here or on its deployment."""

    def __init__(self, synthesis: Synthesis) -> None:
        self._synthesis = synthesis

    async def encode(self, work: EncodeWork) -> AsyncGenerator[EncodedChunk, None]:
        # the segments the speech cache had no audio for (work with none left is
        # encoded by the Pipeline without an encoding)
        todo = work.to_synthesise
        async with contextlib.aclosing(self._synthesis.synthesise(todo)) as audio:
            async for chunk in encode_work(work, audio):
                yield chunk


class RemoteEncoding:
    """The AudioEncoder deployment behind a Serve ``DeploymentHandle``."""

    def __init__(self, handle: Any) -> None:
        self._stream = handle.options(stream=True)

    def encode(self, work: EncodeWork) -> AsyncGenerator[EncodedChunk, None]:
        # cancelled on close: the encoder cancels the Synthesiser's stream in turn
        return _cancelled_on_close(self._stream.encode.remote(work))


async def _cancelled_on_close(stream: Any) -> AsyncGenerator[Any, None]:
    """The items of a Serve streaming response (its ``NOTHING`` dropped:
    ``deployments.replica_streams``), which is cancelled however the reading ends
    (done, failed, or the reader closed us)."""
    try:
        async for item in without_nothing(stream):
            yield item
    finally:
        stream.cancel()


class Pipeline:
    """Normalise text, synthesise it, encode the audio; failures become :class:`ServiceError`.

    ``encoding`` speaks every voice; ``local`` (voices of engines placed in the
    ingress) takes the voices it has loaded, encoded here. ``syntheses`` are asked
    what is loaded; their voices are listed in ``voice_order`` (the registry's).
    Audio from the Synthesiser deployment must begin within ``first_audio_wait_s``
    (None: no bound): a deployment scaled to zero starts a replica for the request,
    and a request that would wait longer is answered 503 ``overloaded``.
    """

    def __init__(
        self,
        normalisation: Normalisation,
        encoding: Encoding | None,
        syntheses: list[Synthesis],
        local: LocalSynthesis | None = None,
        voice_order: list[str] | None = None,
        first_audio_wait_s: float | None = None,
    ) -> None:
        if encoding is None and local is None:
            raise ValueError("a pipeline needs somewhere to synthesise")
        self._normalisation = normalisation
        self._encoding = encoding
        self._syntheses = syntheses
        self._local = local
        # the Synthesiser deployment, where the voices not loaded here are spoken
        self._remote = next((s for s in syntheses if s is not local), None)
        self._order = {voice_id: i for i, voice_id in enumerate(voice_order or ())}
        self._wait_s = first_audio_wait_s
        self._remote_info: SynthesiserInfo | None = None  # its last replica's answer

    @classmethod
    def in_process(cls, synthesiser: SynthesisRunner) -> Pipeline:
        """Every stage in this process (the folded placement)."""
        local = LocalSynthesis(synthesiser)
        return cls(LocalNormalisation(), None, [local], local)

    async def normalise(
        self, text: str, options: ReadingOptions, around: Surroundings | None = None
    ) -> NormalisedText:
        """``text`` cleaned, segmented and read as ``options`` say; the text ``around``
        it read in the same call (one hop to the normaliser), for its first and last
        segment."""
        try:
            return await self._normalisation.normalise(text, options, around)
        except Exception as e:
            raise service_error(e) from e

    async def synthesisers(self, remote_running: bool = True) -> SynthesiserInfo:
        """What the synthesisers have loaded, here and on the deployment: engines and
        voices. With ``remote_running`` False (the deployment is scaled to zero) the
        deployment is not asked, which would start a replica: its last answer stands,
        its engines marked ``scaled_to_zero`` (asked all the same if it never answered)."""
        infos = []
        asleep: tuple[str, ...] = ()
        try:
            for synthesis in self._syntheses:
                if synthesis is self._remote and not remote_running and self._remote_info:
                    infos.append(self._remote_info)
                    asleep = tuple(engine.name for engine in self._remote_info.engines)
                    continue
                info = await synthesis.info()
                if synthesis is self._remote:
                    self._remote_info = info
                infos.append(info)
        except Exception as e:
            raise service_error(e) from e
        voices = [voice for info in infos for voice in info.voices]
        voices.sort(key=lambda voice: self._order.get(voice.id, len(self._order)))
        return SynthesiserInfo(
            engines=tuple(engine for info in infos for engine in info.engines),
            voices=tuple(voices),
            scaled_to_zero=asleep,
        )

    def _here(self, voice_id: str) -> LocalSynthesis | None:
        """The synthesiser in this process if it speaks ``voice_id`` (or nothing is
        elsewhere); None when the voice is spoken on the deployments."""
        local = self._local
        if local is not None and (self._encoding is None or local.speaks(voice_id)):
            return local
        return None

    def _first_audio_wait(
        self, here: LocalSynthesis | None, params: SynthesisParams
    ) -> float | None:
        """How long ``params``' first audio may take (None: as long as it takes): bounded
        for the Synthesiser deployment's listeners only. Synthesis in this process has
        no replica to wait for; background work (a long-form job's chunk, which no
        listener waits for) waits behind every live stream by design, its claim kept
        meanwhile: on a busy hour that is a wait, not an overload that fails its job."""
        return None if here is not None or params.background else self._wait_s

    async def encode(self, work: EncodeWork) -> AsyncGenerator[EncodedChunk, None]:
        """The encoded audio of ``work`` as it is synthesised. Closing the stream
        stops synthesis. Work whose every segment has cached audio is encoded here:
        nothing to synthesise, nothing to wait for."""
        if not work.to_synthesise.segments:
            async for chunk in _as_service_errors(encode_work(work, None)):
                yield chunk
            return
        here = self._here(work.synthesis.params.voice)
        encoding = LocalEncoding(here) if here is not None else self._encoding
        assert encoding is not None  # a pipeline has somewhere to synthesise
        wait_s = self._first_audio_wait(here, work.synthesis.params)
        async for chunk in _as_service_errors(_begun_within(encoding.encode(work), wait_s)):
            yield chunk

    async def synthesise(
        self, work: SynthesisWork, cached: CachedAudio | None = None
    ) -> AsyncGenerator[AudioChunk, None]:
        """The raw audio of ``work`` as it is synthesised, for a caller that keeps one
        encoder across several (a WebSocket context's pieces: one stream); ``cached``:
        audio some of its segments have, spoken in their place (only the others are
        synthesised). Closing the stream stops synthesis."""
        todo = work.without(cached)
        audio = self._synthesised(todo) if todo.segments else None
        ordered = interleaved(cached, audio, todo)
        try:
            async for chunk in ordered:
                yield chunk
        finally:  # outermost first: nothing waits for the reader
            await ordered.aclose()
            if audio is not None:
                await audio.aclose()

    async def _synthesised(self, work: SynthesisWork) -> AsyncGenerator[AudioChunk, None]:
        here = self._here(work.params.voice)
        synthesis = here or self._remote
        assert synthesis is not None  # a pipeline has somewhere to synthesise
        wait_s = self._first_audio_wait(here, work.params)
        async for chunk in _as_service_errors(_begun_within(synthesis.synthesise(work), wait_s)):
            yield chunk


async def _begun_within(
    stream: AsyncGenerator[T, None], wait_s: float | None
) -> AsyncGenerator[T, None]:
    """``stream``'s items, the first within ``wait_s`` seconds (None: no bound); past
    it the stream is closed (its remote call cancelled) and the caller is told to
    retry: the replica it waits for goes on starting."""
    async with contextlib.aclosing(stream):
        try:
            async with asyncio.timeout(wait_s):
                first = await anext(stream)
        except StopAsyncIteration:
            return
        except TimeoutError:
            raise Overloaded(
                "overloaded",
                f"No audio began within {wait_s:.0f} s: the voice's synthesis replica is "
                "starting (idle voices scale to zero) or the service is at capacity; "
                f"retry in {FIRST_AUDIO_RETRY_S} s.",
                headers={"Retry-After": str(FIRST_AUDIO_RETRY_S)},
            ) from None
        yield first
        async for item in stream:
            yield item


async def _as_service_errors(stream: AsyncGenerator[T, None]) -> AsyncIterator[T]:
    """``stream``'s items, closed however the reading ends; its failures as
    :class:`ServiceError`."""
    try:
        async with contextlib.aclosing(stream):
            async for item in stream:
                yield item
    except ServiceError:
        raise
    except Exception as e:
        raise service_error(e) from e
