"""The Synthesiser deployment: :class:`SynthesisRunner` as a Serve deployment.

Its options (resources, replicas, queue bounds) live in the Serve configs
(``configs/*.yaml``), not here.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator
from typing import Any

from ray import serve

from deployments.flow_control import warn_without_flow_control
from deployments.loopback import keep_replica_server_on_loopback
from deployments.messages import AudioChunk, SynthesisWork
from deployments.replica_logs import log_to_replica_file
from deployments.replica_streams import Nothing, never_empty
from deployments.synthesis.runner import SynthesisRunner

keep_replica_server_on_loopback()


class SynthesiserReplica(SynthesisRunner):
    """The runner under this module's name, so that a replica imports this module
    (and what it sets up) when it loads the class."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        log_to_replica_file()
        warn_without_flow_control()
        super().__init__(*args, **kwargs)

    async def synthesise(  # type: ignore[override]  # NOTHING is the wire's, not the runner's
        self, work: SynthesisWork
    ) -> AsyncGenerator[AudioChunk | Nothing, None]:
        """The runner's stream, ``NOTHING`` alone where it makes no sound
        (``deployments.replica_streams``)."""
        audio = never_empty(super().synthesise(work))
        async with contextlib.aclosing(audio):
            async for chunk in audio:
                yield chunk


SynthesiserDeployment = serve.deployment(name="Synthesiser")(SynthesiserReplica)
