"""The AudioEncoder deployment: reads the Synthesiser's stream and encodes it.

A response stream cannot be passed into another deployment call, so the encoder
holds the Synthesiser handle and reads the synthesis stream itself; the ingress
reads the encoder's stream. One encoder stream per request keeps one MP3 encoder.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from ray import serve
from ray.serve.handle import DeploymentHandle

from deployments.encoding.encoder import encode_stream
from deployments.messages import EncodedChunk, EncodeJob
from deployments.synthesis.synthesiser import SynthesiserInfo


class AudioEncoderReplica:
    def __init__(self, synthesiser: DeploymentHandle) -> None:
        self._synthesiser = synthesiser
        self._synthesis_stream = synthesiser.options(stream=True)

    async def encode(self, job: EncodeJob) -> AsyncIterator[EncodedChunk]:
        """Yield the encoded audio of ``job`` as it is synthesised.

        Raises what the Synthesiser raises (``EngineError``) or ``ValueError`` for an
        output the format cannot carry. Cancelling the stream cancels synthesis.
        """
        chunks = self._synthesis_stream.synthesize.remote(job.synthesis)
        async for encoded in encode_stream(chunks, job):
            yield encoded

    async def info(self) -> SynthesiserInfo:
        """What the Synthesiser has loaded (see ``SynthesiserReplica.info``)."""
        result: SynthesiserInfo = await self._synthesiser.info.remote()
        return result


AudioEncoderDeployment = serve.deployment(
    name="AudioEncoder",
    ray_actor_options={"num_cpus": 0.25},
    max_ongoing_requests=128,
    max_queued_requests=64,
)(AudioEncoderReplica)
