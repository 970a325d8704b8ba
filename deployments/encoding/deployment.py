"""The AudioEncoder deployment: reads the Synthesiser's stream, yields the wire bytes.

A response stream cannot be handed to another deployment, so the encoder holds
the Synthesiser's handle and reads its stream itself; the ingress reads the
encoder's. One encoder per request: a streamed MP3 is one valid file.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator
from typing import Any

from ray import serve

from deployments.encoding.encoder import encode_stream
from deployments.loopback import keep_replica_server_on_loopback
from deployments.messages import AudioChunk, EncodedChunk, EncodeJob, SynthesisJob
from deployments.synthesis.pulling import segment_by_segment, serve_stream

keep_replica_server_on_loopback()


class AudioEncoderReplica:
    def __init__(self, synthesiser: Any) -> None:
        """``synthesiser``: the Synthesiser deployment's handle."""
        self._synthesiser = synthesiser.options(stream=True)

    async def encode(self, job: EncodeJob) -> AsyncGenerator[EncodedChunk, None]:
        """Yield ``job``'s audio encoded as ``job.output`` asks, as it is synthesised.

        Raises what the Synthesiser raises (``EngineError``, Serve's
        ``BackPressureError`` when it is full). Each segment is asked of the
        Synthesiser when the one before it has arrived: when the caller stops
        reading, or this replica dies, synthesis stops within a segment.
        """
        audio = segment_by_segment(self._speak, job.synthesis)
        async with contextlib.aclosing(audio):
            async for chunk in encode_stream(audio, job):
                yield chunk

    def _speak(self, job: SynthesisJob) -> AsyncGenerator[AudioChunk, None]:
        return serve_stream(self._synthesiser.synthesize.remote(job))


# Its options (resources, replicas, queue bounds) live in the Serve configs.
AudioEncoderDeployment = serve.deployment(name="AudioEncoder")(AudioEncoderReplica)
