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

from deployments.encoding.encoder import encode_work
from deployments.flow_control import warn_without_flow_control
from deployments.loopback import keep_replica_server_on_loopback
from deployments.messages import EncodedChunk, EncodeWork
from deployments.replica_logs import log_to_replica_file
from deployments.replica_streams import Nothing, never_empty, without_nothing

keep_replica_server_on_loopback()


class AudioEncoderReplica:
    def __init__(self, synthesiser: Any) -> None:
        """``synthesiser``: the Synthesiser deployment's handle."""
        log_to_replica_file()
        warn_without_flow_control()
        self._synthesiser = synthesiser.options(stream=True)

    async def encode(self, work: EncodeWork) -> AsyncGenerator[EncodedChunk | Nothing, None]:
        """Yield ``work``'s audio encoded as ``work.output`` asks, as it is synthesised
        (``NOTHING`` alone where it makes no sound: ``deployments.replica_streams``).

        Raises what the Synthesiser raises (``EngineError``, Serve's
        ``BackPressureError`` when it is full). When the caller stops reading, the
        Synthesiser's stream is cancelled: synthesis stops within a segment.
        """
        todo = work.to_synthesise  # the segments the speech cache had no audio for
        audio = self._synthesiser.synthesise.remote(todo) if todo.segments else None
        encoded = never_empty(encode_work(work, without_nothing(audio) if audio else None))
        try:
            async with contextlib.aclosing(encoded):
                async for chunk in encoded:
                    yield chunk
        finally:
            if audio is not None:
                audio.cancel()


# Its options (resources, replicas, queue bounds) live in the Serve configs.
AudioEncoderDeployment = serve.deployment(name="AudioEncoder")(AudioEncoderReplica)
