"""The Synthesiser: registered voices, the engines that speak them, one segment at a time."""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator

from deployments.messages import AudioChunk, Segment, SynthesisParams
from deployments.synthesis.alignment import char_alignment
from deployments.synthesis.engine import (
    BatchEngine,
    CancelToken,
    Engine,
    EngineError,
    EngineInfo,
    EngineUnavailable,
    LaunchingEngine,
    PartedEngine,
)
from deployments.synthesis.options import ENGINE_OPTIONS, check
from deployments.synthesis.registry import load_engine
from deployments.synthesis.shaping import shaped, spoken_params
from deployments.synthesis.visemes import viseme_track
from deployments.synthesis.voice_files import files_missing
from deployments.synthesis.voices import VoiceConfig, VoiceRegistry
from deployments.timings import Timings

logger = logging.getLogger("deployments")

# What each engine speaks once before its replica is ready: a first call is slower
# than later ones (ONNX Runtime sizes its buffers, PyTorch picks its kernels), and
# the first user should not pay for it. A sentence of a typical first clause.
WARM_UP_TEXTS = {
    "hi": "नमस्ते, आपका स्वागत है।",
    "en": "Hello, and welcome.",
}
WARM_UP_FALLBACK = "1, 2, 3."

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


class SynthesiserConfig(BaseModel):
    """Startup configuration: the voice registry file and options per engine."""

    model_config = ConfigDict(extra="forbid")

    voices_path: str = str(CONFIGS / "voices.yaml")
    engines: dict[str, dict[str, Any]] = Field(default_factory=dict)
    workers: int = Field(
        default=1,
        ge=1,
        description="Engine calls run at once per engine, for engines that do not say "
        "themselves (eSpeak: 1; kokoro: its parallel_calls option).",
    )
    max_batch_size: int = Field(
        default=16, ge=1, description="Segments per forward pass of a batching engine (vits)."
    )
    batch_wait_timeout_s: float = Field(
        default=0.005, ge=0, description="How long a batch waits to fill before it runs."
    )
    batches_in_flight: int = Field(
        default=3,
        ge=1,
        description="Batches an engine that launches its passes on a device (kokoro on "
        "torch) has in flight at once: the next is prepared and queued while the device "
        "runs one; batches of later segments leave one place for first segments'.",
    )
    first_batch_size: int = Field(
        default=8,
        ge=1,
        description="First segments per batch of such an engine, in batches of their own: "
        "a new stream's first audio waits for a small pass, never a large one.",
    )
    warm_up: bool = Field(
        default=True,
        description="Speak one sentence on every engine before the replica is ready, so "
        "that the first request does not pay for an engine's first call.",
    )
    voice_engines: list[str] | None = Field(
        default=None,
        description="Load only the voices of these engines (None: every voice); the app "
        "builder sets it where engines are placed apart (serve_app.ingress.placement).",
    )

    @field_validator("engines")
    @classmethod
    def _known_options(cls, value: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        """Each engine's options against its typed model: a typo fails here."""
        for engine, options in value.items():
            check(ENGINE_OPTIONS, engine, options or {})
        return value

    @field_validator("voices_path")
    @classmethod
    def _from_project_root(cls, value: str) -> str:
        """A relative path is taken from the project root, wherever the replica runs."""
        return str(CONFIGS.parent / value)

    def registry(self) -> VoiceRegistry:
        """The voices this Synthesiser speaks: the file's, of ``voice_engines`` if set."""
        registry = VoiceRegistry.from_file(self.voices_path)
        if self.voice_engines is not None:
            registry = registry.of_engines(set(self.voice_engines))
        return registry


@dataclass(frozen=True)
class LoadedVoice:
    """A voice loaded here and what its engine does: looked up once a ``SynthesisWork``."""

    voice: VoiceConfig
    batches: bool  # several segments, of several requests, in one pass
    renders_parts: bool  # a segment read once and rendered in parts (a first clause)

    @property
    def engine(self) -> str:
        return self.voice.engine


@dataclass(frozen=True)
class SynthesiserInfo:
    """What a Synthesiser has loaded: its engines and the voices ready to speak.
    ``scaled_to_zero``: engines of a deployment that has no replica now (what its last
    replica had loaded; the next request starts one)."""

    engines: tuple[EngineInfo, ...]
    voices: tuple[VoiceConfig, ...]
    scaled_to_zero: tuple[str, ...] = ()


def load_engines(
    registry: VoiceRegistry, config: SynthesiserConfig
) -> Iterator[tuple[str, Engine]]:
    """Each engine of ``registry``'s voices, loaded with ``config``'s options, as it
    loads. An engine that is not installed is left out with a warning, and so is one
    whose every voice is optional and lacks its files (it is not loaded for nothing)."""
    for name in sorted(registry.engines()):
        voices = [v for v in registry.all() if v.engine == name]
        missing = [files_missing(v) for v in voices if v.optional]
        if len(missing) == len(voices) and all(missing):
            logger.warning("engine %s not loaded, none of its voices can speak: %s", name, missing)
            continue
        try:
            yield name, load_engine(name, config.engines.get(name))
        except EngineUnavailable as e:
            logger.warning("engine %s not loaded: %s", name, e)


class Synthesiser:
    """The registry's voices on their engines; speaks segments.

    Every voice is prepared at start. A voice marked ``optional`` whose engine or
    model is not installed is left out with a warning; any other failure stops
    the start, so a misconfigured voice is never found by a user.
    """

    def __init__(self, registry: VoiceRegistry, engines: dict[str, Engine]) -> None:
        self.registry = registry
        self._engines = engines
        self._voices: dict[str, VoiceConfig] = {}
        for voice in registry.all():
            try:
                engine = engines.get(voice.engine)
                if engine is None:
                    raise EngineUnavailable(f"engine {voice.engine!r} is not loaded")
                rate = engine.add_voice(voice)
            except EngineUnavailable as e:
                if not voice.optional:
                    raise
                logger.warning("voice %s left out: %s", voice.id, e)
                continue
            if voice.sample_rate != rate:
                raise ValueError(
                    f"voice {voice.id!r} says {voice.sample_rate} Hz, its engine gives {rate} Hz"
                )
            self._voices[voice.id] = voice

    @classmethod
    def from_config(cls, config: SynthesiserConfig) -> Synthesiser:
        registry = config.registry()
        return cls(registry, dict(load_engines(registry, config)))

    def warm_up(self) -> dict[str, float]:
        """Speak one short sentence on every loaded engine (its first voice), so the
        first request does not pay for the engine's first call. Returns the seconds
        each engine took; an engine that fails here is logged, not fatal (its
        requests will fail the same way and say so)."""
        took: dict[str, float] = {}
        for name, engine in self._engines.items():
            voice = next((v for v in self._voices.values() if v.engine == name), None)
            if voice is None:
                continue
            language = next((lang for lang in voice.languages if lang in WARM_UP_TEXTS), None)
            text = WARM_UP_TEXTS.get(language or "", WARM_UP_FALLBACK)
            segment = Segment(0, text, 0, len(text))
            params = SynthesisParams(voice.id, language or voice.languages[0])
            started = time.perf_counter()
            try:
                if isinstance(engine, BatchEngine):
                    self.speak_batch([(segment, params)])
                else:
                    self.speak(segment, params)
            except Exception:
                logger.exception("warming up engine %s failed", name)
                continue
            took[name] = round(time.perf_counter() - started, 3)
        logger.info("engines warmed up (seconds): %s", took)
        return took

    def info(self) -> SynthesiserInfo:
        return SynthesiserInfo(
            engines=tuple(engine.info() for engine in self._engines.values()),
            voices=tuple(self._voices.values()),
        )

    def speaks(self, voice_id: str) -> bool:
        """Whether ``voice_id`` is loaded here."""
        return voice_id in self._voices

    def loaded(self, voice_id: str) -> LoadedVoice | None:
        """``voice_id`` as loaded here, and what its engine does (None: not loaded)."""
        voice = self._voices.get(voice_id)
        if voice is None:
            return None
        engine = self._engines[voice.engine]
        parted = isinstance(engine, PartedEngine)
        return LoadedVoice(voice, isinstance(engine, BatchEngine), parted)

    def launches(self, engine: str) -> bool:
        """Whether ``engine`` launches its batches on a device and collects them apart."""
        return isinstance(self._engines.get(engine), LaunchingEngine)

    def speak_batch(self, items: list[tuple[Segment, SynthesisParams]]) -> list[AudioChunk]:
        """Segments of several requests, grouped by engine into one batch each."""
        return self.launch_batch(items)()

    def launch_batch(
        self, items: list[tuple[Segment, SynthesisParams]]
    ) -> Callable[[], list[AudioChunk]]:
        """:meth:`speak_batch` in two steps: each engine's batch launched here (spoken
        here, by an engine that does not launch apart), and the call returned collects
        every item's chunk (blocking; it may run on another thread)."""
        missing = {params.voice for _, params in items if params.voice not in self._voices}
        if missing:
            raise EngineError(f"voices {sorted(missing)} are not loaded")
        voiced = [
            (segment, spoken_params(segment, params), self._voices[params.voice])
            for segment, params in items
        ]
        launched: list[tuple[list[int], Callable[[], list[AudioChunk]]]] = []
        for name in {voice.engine for _, _, voice in voiced}:
            engine = self._engines[name]
            chosen = [i for i, (_, _, voice) in enumerate(voiced) if voice.engine == name]
            batch = [voiced[i] for i in chosen]
            if isinstance(engine, LaunchingEngine):
                launched.append((chosen, engine.launch_batch(batch)))
            elif isinstance(engine, BatchEngine):
                launched.append((chosen, functools.partial(list, engine.synthesise_batch(batch))))
            else:
                raise EngineError(f"engine {name!r} does not batch")

        def collect() -> list[AudioChunk]:
            results: dict[int, AudioChunk] = {}
            for chosen, chunks in launched:
                for i, chunk in zip(chosen, chunks(), strict=True):
                    segment, params = items[i]
                    results[i] = timed(shaped(aligned(segment, params, [chunk]), segment), segment)
            return [results[i] for i in range(len(items))]

        return collect

    def speak(
        self, segment: Segment, params: SynthesisParams, cancel: CancelToken | None = None
    ) -> AudioChunk:
        """All audio of one segment as one chunk (blocking; run it off the event loop).

        Raises :class:`EngineError` for an unknown voice or a failed synthesis.
        """
        chunks, finish = self.steps(segment, params, cancel)
        return finish(list(chunks))

    def steps(
        self, segment: Segment, params: SynthesisParams, cancel: CancelToken | None = None
    ) -> tuple[Iterator[AudioChunk], Callable[[list[AudioChunk]], AudioChunk]]:
        """:meth:`speak` in steps: the engine's chunks of ``segment`` as it makes them
        (a model call each, for an engine that makes several; each blocking), and the
        call that makes the chunks made into the segment's one chunk."""
        voice = self._voices.get(params.voice)
        if voice is None:
            raise EngineError(f"voice {params.voice!r} is not loaded")
        engine = self._engines[voice.engine]
        chunks = engine.synthesise(segment, voice, spoken_params(segment, params), cancel)
        return iter(chunks), functools.partial(
            finished, segment=segment, params=params, voice=voice
        )

    def speak_parts(
        self,
        first: Segment,
        second: Segment,
        together: Segment,
        params: SynthesisParams,
        cancel: CancelToken | None = None,
    ) -> tuple[AudioChunk, Callable[[], AudioChunk]] | None:
        """``first``'s chunk and a call for ``second``'s, from one reading of ``together``
        (first's text, a space, second's: :func:`~deployments.messages.joined`)
        rendered in two parts (blocking, both); None where the engine does not part it
        (then nothing was rendered)."""
        voice = self._voices.get(params.voice)
        engine = self._engines[voice.engine] if voice is not None else None
        if voice is None or not isinstance(engine, PartedEngine):
            return None
        split_at = len(first.text) + 1
        spoken = spoken_params(together, params)
        parts = engine.synthesise_parts(together, split_at, voice, spoken, cancel)
        if parts is None:
            return None
        head = finished([next(parts)], first, params, voice)

        def rest() -> AudioChunk:
            return finished([next(parts)], second, params, voice)

        return head, rest


def finished(
    chunks: list[AudioChunk], segment: Segment, params: SynthesisParams, voice: VoiceConfig
) -> AudioChunk:
    """An engine's chunks of ``segment`` as the work's one chunk: aligned, shaped, timed."""
    chunk = replace(aligned(segment, params, chunks), sample_rate=voice.sample_rate)
    return timed(shaped(chunk, segment), segment)


def aligned(segment: Segment, params: SynthesisParams, chunks: list[AudioChunk]) -> AudioChunk:
    """An engine's chunks of ``segment`` as one, with its character alignment where the
    work asked for one and the engine timed its words (times from the segment's start)."""
    rate = chunks[0].sample_rate if chunks else 1
    samples = np.concatenate([c.samples for c in chunks]) if chunks else np.zeros(0, np.float32)
    words = tuple(word for chunk in chunks for word in chunk.words)
    alignment = None
    if params.with_alignment and words:
        alignment = char_alignment(segment.text, list(words), samples.size * 1000 // rate)
    phonemes = tuple(p for chunk in chunks for p in chunk.phonemes)
    return AudioChunk(samples, rate, segment.index, words, alignment, phonemes)


def timed(chunk: AudioChunk, segment: Segment) -> AudioChunk:
    """``chunk`` (all of ``segment``'s audio, shaped) with its phonemes as the work's
    timings: each one's word as the input wrote it, and the visemes of the whole
    audio. A chunk without phonemes is left as it is."""
    if not chunk.phonemes:
        return chunk
    duration_ms = chunk.samples.size * 1000 // chunk.sample_rate
    phonemes = tuple(p.in_input(segment) for p in chunk.phonemes)
    timings = Timings(phonemes, viseme_track(phonemes, duration_ms))
    return replace(chunk, phonemes=(), timings=timings)


def main() -> None:
    """``python -m deployments.synthesis.synthesiser`` (make install): load every
    registered voice once. Engines with voice modes measure each voice as they load it
    and keep the result (deployments.voice_design.profiles), so the service's first
    start does not wait for it."""
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    info = Synthesiser.from_config(SynthesiserConfig()).info()
    measured = sum(len(engine.profiles) for engine in info.engines)
    logger.info("voices loaded: %d; measured for voice modes: %d", len(info.voices), measured)


if __name__ == "__main__":
    main()
