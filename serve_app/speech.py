"""Speech requests: validation against what is loaded, balance, normalisation, metering.

Routes hand a parsed :class:`SpeechRequest` here and frame what comes back
(see ``serve_app.responses``).
"""

from __future__ import annotations

import asyncio
import functools
import re
import time
import unicodedata
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

from deployments.encoding.writers import STREAMABLE_FORMATS, content_type
from deployments.messages import (
    EncodedChunk,
    EncodeJob,
    NormalisedText,
    OutputParams,
    SynthesisJob,
    SynthesisParams,
)
from deployments.synthesis.voices import VOICE_ID_PATTERN
from serve_app.accounts import AccountStore, ApiKey, InsufficientFunds
from serve_app.catalog import Catalog
from serve_app.errors import InsufficientBalance, InvalidRequest, NotFound
from serve_app.pipeline import Pipeline
from serve_app.protocol import RequestUsage, SpeechRequest
from serve_app.settings import QUALITY_MP3_KBPS, SAMPLE_RATES, IngressConfig

_VOICE_ID = re.compile(VOICE_ID_PATTERN)


@dataclass
class Delivery:
    """What has reached the client so far; the bill is computed from this alone."""

    chunks: int = 0
    characters: int = 0
    samples: int = 0
    sample_rate: int = 1

    def add(self, chunk: EncodedChunk) -> None:
        self.chunks += 1
        self.characters = max(self.characters, chunk.end_char)
        self.samples += chunk.audio_samples
        self.sample_rate = chunk.sample_rate

    @property
    def audio_ms(self) -> int:
        return self.samples * 1000 // self.sample_rate


@dataclass
class SpeechJob:
    """A validated, normalised request with a hold on its worst-case cost."""

    request_id: str
    hold_id: str
    key: ApiKey
    request: SpeechRequest
    text: NormalisedText
    job: EncodeJob
    sample_rate: int
    received_at: float
    delivery: Delivery = field(default_factory=Delivery)
    checkpoint_at: float = 0.0

    @property
    def content_type(self) -> str:
        return content_type(self.request.response_format, self.sample_rate)

    def headers(self) -> dict[str, str]:
        return {
            "x-service-language": self.text.language,
            "x-service-representation": self.text.representation,
            "x-service-sample-rate": str(self.sample_rate),
            "x-service-quality": self.request.quality,
            "cache-control": "no-store",
        }


class SpeechService:
    """Turns speech requests into streams of encoded audio and bills what is delivered."""

    def __init__(
        self,
        pipeline: Pipeline,
        catalog: Callable[[], Awaitable[Catalog]],
        store: AccountStore,
        config: IngressConfig,
    ) -> None:
        self._pipeline = pipeline
        self._catalog = catalog
        self._store = store
        self._config = config

    async def prepare(
        self, request: SpeechRequest, key: ApiKey, request_id: str, received_at: float
    ) -> SpeechJob:
        """Validate ``request``, check the balance and normalise the text.

        Raises :class:`ServiceError` subclasses with the API's codes.
        """
        catalog = await self._catalog()
        config = self._config
        if request.model != config.model_id:
            raise NotFound("model_not_found", f"No model '{request.model}'.", "model")
        if request.voice_description is not None and "description" not in catalog.modes():
            raise InvalidRequest(
                "unsupported_feature",
                "No loaded engine supports voice_description.",
                "voice_description",
            )
        if request.reference_audio is not None and "reference" not in catalog.modes():
            raise InvalidRequest(
                "unsupported_feature",
                "No loaded engine supports reference_audio.",
                "reference_audio",
            )
        if request.stream and request.response_format not in STREAMABLE_FORMATS:
            raise InvalidRequest(
                "unsupported_format_for_stream",
                f"'{request.response_format}' is only for buffered delivery (stream: false);"
                " streams carry pcm or mp3.",
                "response_format",
            )
        if request.sample_rate is not None and request.sample_rate not in SAMPLE_RATES:
            raise InvalidRequest(
                "invalid_value",
                f"sample_rate must be one of {', '.join(map(str, SAMPLE_RATES))}.",
                "sample_rate",
            )
        if not _VOICE_ID.match(request.voice):
            raise InvalidRequest("invalid_value", "That is not a valid voice id.", "voice")
        voice = catalog.registry.get(request.voice)
        if voice is None:
            raise NotFound("voice_not_found", f"No voice '{request.voice}'.", "voice")
        language = catalog.policy.canonical(request.language)
        if language is None or language not in catalog.voice_languages(voice):
            raise InvalidRequest(
                "unsupported_language",
                f"Voice '{voice.id}' does not speak '{request.language}'. "
                f"It speaks: {', '.join(catalog.voice_languages(voice))}.",
                "language",
            )
        text = unicodedata.normalize("NFC", request.input)
        if len(text) > config.max_input_chars:
            raise InvalidRequest(
                "input_too_long",
                f"input is {len(text)} characters; the limit is {config.max_input_chars}.",
                "input",
            )
        if not text.strip():
            raise InvalidRequest("empty_input", "input has nothing to speak.", "input")
        normalised = await self._pipeline.normalise(text, language, request.quality)
        if not normalised.segments:
            raise InvalidRequest("empty_input", "input has nothing to speak.", "input")
        output = OutputParams(
            format=request.response_format,
            sample_rate=request.sample_rate,
            volume=request.volume,
            mp3_bitrate_kbps=QUALITY_MP3_KBPS[request.quality],
        )
        params = SynthesisParams(
            voice=voice.id,
            language=language,
            speed=request.speed,
            pitch=request.pitch,
            quality=request.quality,
        )
        hold_id = uuid.uuid4().hex
        await self._hold(key, hold_id, self.cost(len(normalised.text), delivered=True))
        return SpeechJob(
            request_id=request_id,
            hold_id=hold_id,
            key=key,
            request=request,
            text=normalised,
            job=EncodeJob(SynthesisJob(normalised.segments, params), output),
            sample_rate=request.sample_rate or voice.sample_rate,
            received_at=received_at,
        )

    async def open(self, speech: SpeechJob) -> AsyncIterator[EncodedChunk]:
        """The job's encoded audio, its first chunk already in hand.

        Awaiting this raises :class:`ServiceError` if synthesis fails before any
        audio exists, so the caller can still answer with an HTTP error.
        """
        stream = self._pipeline.encode(speech.job)
        try:
            first = await anext(stream)
        except StopAsyncIteration:
            first = None
        except BaseException:
            await self.settle(speech)
            raise
        return _prepend(first, stream)

    async def delivered(self, speech: SpeechJob, chunk: EncodedChunk) -> None:
        """Count ``chunk`` as received by the client; now and then, record the progress
        in the ledger so a crash of this process cannot lose it."""
        speech.delivery.add(chunk)
        now = time.monotonic()
        if now - speech.checkpoint_at >= self._config.progress_interval_s:
            speech.checkpoint_at = now
            usage = self.usage_of(speech)
            await asyncio.to_thread(
                self._store.record_progress,
                speech.hold_id,
                usage.characters,
                usage.audio_ms,
                usage.cost_deci_micros,
            )

    def cost(self, characters: int, delivered: bool) -> int:
        """Price of ``characters`` spoken; the per-request price only if audio was delivered."""
        per_request = self._config.price_per_request_deci_micros if delivered else 0
        return per_request + characters * self._config.price_per_character_deci_micros

    def usage_of(self, speech: SpeechJob) -> RequestUsage:
        delivery = speech.delivery
        return RequestUsage(
            characters=delivery.characters,
            audio_ms=delivery.audio_ms,
            cost_deci_micros=self.cost(delivery.characters, delivery.chunks > 0),
        )

    async def settle(self, speech: SpeechJob) -> RequestUsage:
        """Charge the hold for what was delivered, or release it if nothing was.

        Exactly once per job (the ledger refuses a second settlement); safe to
        call from a cancelled stream.
        """
        usage = self.usage_of(speech)
        if speech.delivery.chunks:
            call = functools.partial(
                self._store.settle,
                speech.hold_id,
                usage.characters,
                usage.audio_ms,
                usage.cost_deci_micros,
            )
        else:
            call = functools.partial(self._store.release, speech.hold_id)
        await asyncio.shield(asyncio.to_thread(call))
        return usage

    async def _hold(self, key: ApiKey, hold_id: str, worst_case: int) -> None:
        try:
            await asyncio.to_thread(self._store.hold, key.project_id, hold_id, worst_case)
        except InsufficientFunds as e:
            raise InsufficientBalance(
                "insufficient_balance",
                f"This request may cost up to {worst_case} deci-micro-USD; the available"
                f" balance is {e.available}.",
            ) from None


async def _prepend(
    first: EncodedChunk | None, rest: AsyncIterator[EncodedChunk]
) -> AsyncIterator[EncodedChunk]:
    if first is None:
        return
    yield first
    async for chunk in rest:
        yield chunk


def elapsed_ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000.0, 2)
