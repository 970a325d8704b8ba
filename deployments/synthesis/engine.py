"""The engine interface every speech engine implements, and the loader that picks one."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from deployments.messages import AudioChunk, Segment, SynthesisParams
from deployments.synthesis.voices import VoiceConfig
from deployments.voice_design.profiles import VoiceProfile


class EngineError(RuntimeError):
    """An engine could not speak a segment (bad voice parameters, a failed library call)."""


class EngineUnavailable(EngineError):
    """The engine, or a voice's model, is not installed on this machine."""


@dataclass(frozen=True)
class EngineInfo:
    """What a loaded engine can do, as /ready and /v1/capabilities report it.

    An engine with the ``description`` and ``reference`` modes measures each voice
    (``profiles``), so the ingress can build voices from them (deployments.voice_design)."""

    name: str
    languages: tuple[str, ...]
    sample_rate: int
    device: str
    voices: tuple[str, ...] = ()
    modes: tuple[str, ...] = ("preset",)
    loras: tuple[str, ...] = ()
    controls: tuple[str, ...] = ("speed", "pitch")
    multilingual_voices: bool = False
    concurrency: int = 1  # engine calls that may run at once in one process
    alignment: bool = False  # whether its chunks carry word timings
    phonemes: bool = False  # whether its chunks carry phoneme timings (when asked)
    blends: bool = False  # whether it mixes voices (VoiceDesign.blend)
    profiles: dict[str, VoiceProfile] = field(default_factory=dict)  # measured, by voice id
    extra: dict[str, Any] = field(default_factory=dict)


class CancelToken:
    """Set by whoever stops listening; engines poll it between blocks of audio."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()


class Engine(Protocol):
    """A speech engine. Implementations know nothing of HTTP or Ray.

    ``add_voice`` prepares a registered voice (loads its model) and returns its
    native sample rate; it raises :class:`EngineUnavailable` when the model is not
    installed and :class:`EngineError` when the voice is wrong. ``synthesise`` is
    blocking and may be called from any thread; it yields float32 mono chunks at
    the voice's rate in order and stops early once ``cancel`` is set. It raises
    :class:`EngineError` when the segment cannot be spoken.
    """

    def add_voice(self, voice: VoiceConfig) -> int: ...

    def info(self) -> EngineInfo: ...

    def synthesise(
        self,
        segment: Segment,
        voice: VoiceConfig,
        params: SynthesisParams,
        cancel: CancelToken | None = None,
    ) -> Iterator[AudioChunk]: ...


@runtime_checkable
class PartedEngine(Protocol):
    """An engine that can read a segment once and render it in two parts, so that the
    first part's audio comes before the rest is rendered, for about the compute of
    the whole (where two calls would each render their own silences)."""

    def synthesise_parts(
        self,
        segment: Segment,
        split_at: int,
        voice: VoiceConfig,
        params: SynthesisParams,
        cancel: CancelToken | None = None,
    ) -> Iterator[AudioChunk] | None:
        """None where it cannot part ``segment`` at character ``split_at`` (it may have
        read the text to know); else an iterator of two chunks, each timed from its own
        start: ``segment.text[:split_at]``'s, then the rest's (its words as offsets of
        ``segment.text[split_at:]``), rendered as they are asked for."""
        ...


@runtime_checkable
class BatchEngine(Protocol):
    """An engine that speaks several segments in one pass (of its voices, each item
    with its own: how many passes that takes is the engine's business)."""

    def synthesise_batch(
        self, items: list[tuple[Segment, SynthesisParams, VoiceConfig]]
    ) -> list[AudioChunk]: ...


@runtime_checkable
class LaunchingEngine(Protocol):
    """A batching engine whose pass runs on a device, launched and collected apart: the
    runner prepares and launches the next batch while the device runs this one."""

    def launch_batch(
        self, items: list[tuple[Segment, SynthesisParams, VoiceConfig]]
    ) -> Callable[[], list[AudioChunk]]:
        """``items``' pass queued on the device; the call it returns blocks until their
        audio is made and gives :meth:`BatchEngine.synthesise_batch`'s result."""
        ...
