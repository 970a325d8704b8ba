"""The Synthesiser deployment: a thin Serve shim around :class:`Synthesiser`."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from ray import serve

from deployments.messages import AudioChunk, SynthesisJob
from deployments.synthesis.engine import CancelToken, EngineInfo
from deployments.synthesis.synthesiser import Synthesiser, SynthesiserConfig


class SynthesiserReplica:
    def __init__(self, config: SynthesiserConfig | dict[str, Any] | None = None) -> None:
        self._synthesiser = Synthesiser.from_config(SynthesiserConfig.model_validate(config or {}))

    async def synthesize(self, job: SynthesisJob) -> AsyncIterator[AudioChunk]:
        """Yield one :class:`AudioChunk` per segment of ``job``, in order.

        Engine calls run in a worker thread. Raises ``EngineError`` when a segment
        cannot be spoken; when the caller stops reading, synthesis stops.
        """
        cancel = CancelToken()
        try:
            for segment in job.segments:
                yield await asyncio.to_thread(self._synthesiser.speak, segment, job.params, cancel)
        finally:
            cancel.cancel()

    def info(self) -> list[EngineInfo]:
        """The loaded engines: languages, sample rate, device, modes, LoRAs."""
        return self._synthesiser.engine_info()


SynthesiserDeployment = serve.deployment(
    name="Synthesiser",
    ray_actor_options={"num_cpus": 0.5},
    max_ongoing_requests=64,
    health_check_period_s=10,
)(SynthesiserReplica)
