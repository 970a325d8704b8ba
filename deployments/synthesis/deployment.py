"""The Synthesiser deployment: a thin Serve shim around :class:`Synthesiser`."""

from __future__ import annotations

import functools
from collections.abc import AsyncGenerator
from typing import Any

from ray import serve

from deployments.messages import AudioChunk, Segment, SynthesisJob, SynthesisParams
from deployments.synthesis.engine import CancelToken
from deployments.synthesis.scheduler import SegmentScheduler
from deployments.synthesis.synthesiser import Synthesiser, SynthesiserConfig, SynthesiserInfo


class SynthesiserReplica:
    def __init__(self, config: SynthesiserConfig | dict[str, Any] | None = None) -> None:
        parsed = SynthesiserConfig.model_validate(config or {})
        self._synthesiser = Synthesiser.from_config(parsed)
        # One queue per engine: a slow neural call never holds up an eSpeak segment.
        self._schedulers = {
            info.name: SegmentScheduler(max(info.concurrency, parsed.workers))
            for info in self._synthesiser.info().engines
        }
        self._speak_batch.set_max_batch_size(parsed.max_batch_size)
        self._speak_batch.set_batch_wait_timeout_s(parsed.batch_wait_timeout_s)

    async def synthesize(self, job: SynthesisJob) -> AsyncGenerator[AudioChunk, None]:
        """Yield one :class:`AudioChunk` per segment of ``job``, in order.

        Engine calls run on the scheduler's threads, a stream's first segment ahead
        of other streams' later ones. Raises ``EngineError`` when a segment cannot
        be spoken; when the caller stops reading, synthesis stops.
        """
        cancel = CancelToken()
        batched = self._synthesiser.batches(job.params.voice)
        scheduler = self._schedulers.get(self._synthesiser.engine_name(job.params.voice) or "")
        try:
            for i, segment in enumerate(job.segments):
                if batched:
                    yield await self._speak_batch((segment, job.params))
                    continue
                speak = functools.partial(self._synthesiser.speak, segment, job.params, cancel)
                if scheduler is None:
                    yield speak()  # an unknown voice: speak raises EngineError
                    continue
                yield await scheduler.run(speak, first=i == 0)
        finally:
            cancel.cancel()

    @serve.batch(max_batch_size=16, batch_wait_timeout_s=0.005)
    async def _speak_batch(self, items: list[tuple[Segment, SynthesisParams]]) -> list[AudioChunk]:
        """Segments of concurrent requests to a batching engine, in one forward pass."""
        call = functools.partial(self._synthesiser.speak_batch, items)
        engine = self._synthesiser.engine_name(items[0][1].voice) or ""
        return await self._schedulers[engine].run(call, first=True)

    def speaks(self, voice_id: str) -> bool:
        """Whether ``voice_id`` is loaded on this replica."""
        return self._synthesiser.speaks(voice_id)

    def info(self) -> SynthesiserInfo:
        """The loaded engines (languages, rates, devices, modes, LoRAs) and voices."""
        return self._synthesiser.info()


SynthesiserDeployment = serve.deployment(
    name="Synthesiser",
    ray_actor_options={"num_cpus": 0.5},
    max_ongoing_requests=128,
    max_queued_requests=64,
    health_check_period_s=10,
)(SynthesiserReplica)
