"""The Synthesiser as a service: segments of concurrent requests onto engine threads.

Ray-free, so the same class serves as the Synthesiser deployment
(``deployments.synthesis.deployment``) and inside the ingress for engines placed
there (``serve_app.ingress.placement``). Engine calls run on one :class:`SegmentScheduler`
per engine (a slow neural call never holds up an eSpeak segment), every stream's
first segment ahead of later ones; a batching engine's segments go through its
:class:`Batcher`, in the same order; a stream that is closed stops between engine
blocks. An engine whose last ``BROKEN_AFTER`` calls all failed makes :meth:`check_health` fail, so
that Serve replaces the replica (a lost GPU, a corrupted session).
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterator
from dataclasses import replace
from typing import Any, TypeVar

from deployments.messages import AudioChunk, Segment, SynthesisParams, SynthesisWork, joined
from deployments.synthesis.batcher import Batcher
from deployments.synthesis.engine import CancelToken
from deployments.synthesis.fair_queue import BACKGROUND, FIRST, LATER
from deployments.synthesis.scheduler import SegmentScheduler
from deployments.synthesis.synthesiser import Synthesiser, SynthesiserConfig, SynthesiserInfo

R = TypeVar("R")
BROKEN_AFTER = 3
# A segment's audio leaves in pieces of at most this long: one message of a Serve
# stream may hold 4 MiB (gRPC's limit), ~43 s of float32 at 24 kHz, and a long
# sentence spoken at half speed lasts longer than that.
MAX_CHUNK_SECONDS = 8.0


class EngineBroken(RuntimeError):
    """An engine failed every one of its recent calls."""


class SynthesisRunner:
    def __init__(self, config: SynthesiserConfig | dict[str, Any] | None = None) -> None:
        parsed = SynthesiserConfig.model_validate(config or {})
        self._synthesiser = Synthesiser.from_config(parsed)
        # before the replica reports ready: the first request is not the warm-up
        self.warmed_up = self._synthesiser.warm_up() if parsed.warm_up else {}
        engines = self._synthesiser.info().engines
        self._schedulers = {
            info.name: SegmentScheduler(
                max(info.concurrency, parsed.workers), lanes=info.concurrency > 1
            )
            for info in engines
        }
        self._failures: dict[str, tuple[int, str]] = {}  # engine: (calls failed in a row, last)
        # (engine, "alone", "joined" or "parted"): how each first clause was spoken
        self._first_clauses: Counter[tuple[str, str]] = Counter()
        # one batcher per engine, first segments first: one forward pass at a time, or
        # for an engine that launches on a device, a few in flight, their audio collected
        # on threads of their own while the engine's thread launches the next
        launching = [i.name for i in engines if self._synthesiser.launches(i.name)]
        self._collectors = {
            name: SegmentScheduler(parsed.batches_in_flight, name="collect") for name in launching
        }
        self._batchers: dict[str, Batcher[tuple[Segment, SynthesisParams], AudioChunk]] = {
            info.name: Batcher(
                functools.partial(self._speak_batch, info.name),
                parsed.max_batch_size,
                parsed.batch_wait_timeout_s,
                depth=parsed.batches_in_flight if info.name in launching else 1,
                first_size=parsed.first_batch_size if info.name in launching else None,
            )
            for info in engines
        }

    async def synthesise(self, work: SynthesisWork) -> AsyncGenerator[AudioChunk, None]:
        """Yield each segment's audio of ``work`` in order, as one :class:`AudioChunk`
        (several for a segment longer than ``MAX_CHUNK_SECONDS``).

        Raises ``EngineError`` when a segment cannot be spoken; when the caller
        stops reading, synthesis stops.
        """
        cancel = CancelToken()
        loaded = self._synthesiser.loaded(work.params.voice)
        engine = loaded.engine if loaded is not None else ""
        batched = loaded is not None and loaded.batches
        scheduler = self._schedulers.get(engine)
        segments = work.segments
        try:
            parted = None
            renders_parts = loaded is not None and loaded.renders_parts and not batched
            if scheduler is not None and renders_parts and not work.params.background:
                parted = await self._parted(engine, scheduler, work, cancel)
                if parted is not None:
                    head, rest = parted
                    for part in split(head, MAX_CHUNK_SECONDS):
                        yield part
                    # the rest waits behind other streams' first segments, as any later one
                    run = scheduler.run(rest, LATER, tenant=work.params.tenant)
                    chunk = await self._tracked(engine, run)
                    for part in split(chunk, MAX_CHUNK_SECONDS):
                        yield part
                    segments = segments[2:]
            for i, segment in enumerate(self._planned(segments, engine, batched)):
                urgency = LATER if i > 0 or parted is not None else FIRST
                if work.params.background:  # no listener waits: behind every stream's
                    urgency = BACKGROUND
                if batched:
                    batch = self._batchers[engine].submit(
                        (segment, work.params), urgency, tenant=work.params.tenant
                    )
                    chunk = await self._tracked(engine, batch)
                elif scheduler is None:
                    # an unknown voice: speak raises EngineError
                    chunk = self._synthesiser.speak(segment, work.params, cancel)
                else:
                    chunk = await self._stepped(
                        engine, scheduler, segment, work.params, cancel, urgency
                    )
                for part in split(chunk, MAX_CHUNK_SECONDS):
                    yield part
        finally:
            cancel.cancel()

    async def _parted(
        self, engine: str, scheduler: SegmentScheduler, work: SynthesisWork, cancel: CancelToken
    ) -> tuple[AudioChunk, Callable[[], AudioChunk]] | None:
        """The first part's chunk and a call for the rest's, where ``work`` opens with a
        clause cut from its sentence, for an engine that reads the two once and renders
        them in parts, cut in the pause its reading makes between them (nearly the
        compute of the sentence whole, so under any load); None where the work does not
        open so (then :meth:`_planned` decides)."""
        segments = work.segments
        if len(segments) < 2 or not segments[0].joins_next:
            return None
        together = joined(segments[0], segments[1])
        if together is None:
            return None
        speak = functools.partial(
            self._synthesiser.speak_parts, segments[0], segments[1], together, work.params, cancel
        )
        run = scheduler.run(speak, FIRST, work.params.tenant, len(segments[0].text))
        parted = await self._tracked(engine, run)
        if parted is not None:
            self._first_clauses[engine, "parted"] += 1
        return parted

    async def _stepped(
        self,
        engine: str,
        scheduler: SegmentScheduler,
        segment: Segment,
        params: SynthesisParams,
        cancel: CancelToken,
        urgency: int,
    ) -> AudioChunk:
        """``segment``'s chunk, its model calls run on the engine's workers one call at a
        time while others wait: an engine that makes a segment in several calls (Kokoro:
        a passage of at most max_tokens each) gives its worker back between them when
        another call waits, so another stream's first segment waits for one call, not a
        long segment's all (20 s of first audio beside another project's long texts)."""
        made: list[tuple[Iterator[AudioChunk], Callable[[list[AudioChunk]], AudioChunk]]] = []
        parts: list[AudioChunk] = []

        def step() -> AudioChunk | None:
            if not made:  # on the worker: an engine's failure to begin is a failed call
                made.append(self._synthesiser.steps(segment, params, cancel))
            chunks, finish = made[0]
            for part in chunks:
                parts.append(part)
                if part.through < 1.0 and scheduler.waiting(urgency):
                    return None  # more to come, and others wait: their turn first
            return finish(parts)

        while True:
            run = scheduler.run(step, urgency, params.tenant, len(segment.text))
            if (chunk := await self._tracked(engine, run)) is not None:
                return chunk

    def _planned(self, segments: tuple[Segment, ...], engine: str, batched: bool) -> list[Segment]:
        """``segments`` as they are spoken, where the engine did not render a first
        clause and its sentence in parts (:meth:`_parted`): a first clause cut for a
        sooner first audio (``Segment.joins_next``) is spoken alone only while no
        other stream waits for its own first audio on this engine; otherwise, and
        anywhere past the first segment, with the rest of its sentence, so no model
        call is spent twice under load (each call renders its own silences and reads
        its text afresh)."""
        planned: list[Segment] = []
        pending = list(segments)
        while pending:
            segment = pending.pop(0)
            together = joined(segment, pending[0]) if segment.joins_next and pending else None
            if together is not None:
                alone = not planned and self._room(engine, batched)
                if not planned:
                    self._first_clauses[engine, "alone" if alone else "joined"] += 1
                if not alone:
                    segment = together
                    pending.pop(0)
            planned.append(segment)
        return planned

    def _room(self, engine: str, batched: bool) -> bool:
        """Whether ``engine`` has room for latency work: no stream's first segment is
        waiting for it (a new stream's would start at once, behind running calls)."""
        if batched:
            return self._batchers[engine].first_waiting == 0
        scheduler = self._schedulers.get(engine)
        return scheduler is None or scheduler.first_waiting == 0

    async def _tracked(self, engine: str, call: Awaitable[R]) -> R:
        """``call``'s result, its success or failure counted for :meth:`check_health`."""
        try:
            chunk = await call
        except Exception as e:
            failed, _ = self._failures.get(engine, (0, ""))
            self._failures[engine] = (failed + 1, repr(e))
            raise
        self._failures.pop(engine, None)
        return chunk

    def check_health(self) -> None:
        """Raise :class:`EngineBroken` if an engine failed its last ``BROKEN_AFTER``
        calls (Serve calls this periodically and replaces a replica that raises)."""
        for engine, (failed, last) in self._failures.items():
            if failed >= BROKEN_AFTER:
                raise EngineBroken(f"engine {engine} failed its last {failed} calls: {last}")

    async def _speak_batch(
        self, engine: str, items: list[tuple[Segment, SynthesisParams]]
    ) -> list[AudioChunk]:
        """Segments of concurrent requests to a batching engine, in one forward pass:
        launched on the engine's thread, collected on a collector's where it has them."""
        collector = self._collectors.get(engine)
        if collector is None:
            call = functools.partial(self._synthesiser.speak_batch, items)
            return await self._schedulers[engine].run(call, FIRST)
        launch = functools.partial(self._synthesiser.launch_batch, items)
        collect = await self._schedulers[engine].run(launch, FIRST)
        return await collector.run(collect, FIRST)

    @property
    def busy(self) -> bool:
        """Whether an engine call waits or runs (one whose stream went away runs to its
        end: a model call cannot be stopped midway)."""
        return any(self.engine_busy(engine) for engine in self._schedulers)

    def engine_busy(self, engine: str) -> bool:
        """Whether a call of ``engine`` waits or runs."""
        schedulers = (self._schedulers[engine], self._collectors.get(engine))
        return any(scheduler.busy for scheduler in schedulers if scheduler is not None)

    def speaks(self, voice_id: str) -> bool:
        """Whether ``voice_id`` is loaded here."""
        return self._synthesiser.speaks(voice_id)

    def info(self) -> SynthesiserInfo:
        """The loaded engines (languages, rates, devices, modes, LoRAs) and voices, how
        many first clauses were spoken alone and with their sentence, and whether each
        engine has a call waiting or running now (``busy``)."""
        info = self._synthesiser.info()
        engines = tuple(
            replace(
                e,
                extra={
                    **e.extra,
                    "first_clauses_alone": self._first_clauses[e.name, "alone"],
                    "first_clauses_joined": self._first_clauses[e.name, "joined"],
                    "first_clauses_parted": self._first_clauses[e.name, "parted"],
                    "busy": self.engine_busy(e.name),
                },
            )
            for e in info.engines
        )
        return replace(info, engines=engines)


def split(chunk: AudioChunk, max_seconds: float) -> list[AudioChunk]:
    """``chunk`` as pieces of at most ``max_seconds`` of its audio, in order; the first
    carries its word timings, alignment and timings (times from the segment's start),
    each its share of the segment heard by its end (``through``: what bills its text)."""
    size = max(1, int(max_seconds * chunk.sample_rate))
    total = chunk.samples.size
    if total <= size:
        return [chunk]
    return [
        AudioChunk(
            chunk.samples[start : start + size],
            chunk.sample_rate,
            chunk.segment,
            chunk.words if start == 0 else (),
            chunk.alignment if start == 0 else None,
            timings=chunk.timings if start == 0 else None,
            through=chunk.through * min(total, start + size) / total,
        )
        for start in range(0, total, size)
    ]
