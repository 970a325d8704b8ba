"""The Ingress deployment: FastAPI behind HAProxy or Serve's proxy, a thin shim over ``routes``."""

from __future__ import annotations

import gc
from typing import Any

from fastapi import FastAPI
from ray import serve
from ray.serve.handle import DeploymentHandle

from deployments.synthesis.deployment import SynthesiserReplica
from serve_app.metrics import ServeMetrics
from serve_app.pipeline import LocalSynthesis, RemoteSynthesis, Synthesis
from serve_app.routes import create_app
from serve_app.settings import IngressConfig
from serve_app.state import IngressState


class IngressReplica:
    def __init__(
        self,
        synthesiser: DeploymentHandle | dict[str, Any],
        settings: dict[str, Any] | None = None,
    ) -> None:
        """``synthesiser``: the Synthesiser deployment's handle, or the
        ``SynthesiserConfig`` of one to run in this replica. ``settings``:
        IngressConfig fields; those left out come from ``TTS_*`` variables."""
        config = IngressConfig.from_env(**(settings or {}))
        synthesis: Synthesis = (
            LocalSynthesis(SynthesiserReplica(synthesiser))
            if isinstance(synthesiser, dict)
            else RemoteSynthesis(synthesiser)
        )
        self._state = IngressState(config, synthesis, ServeMetrics())
        # What is loaded by now (Ray, FastAPI, the voices) lives as long as the
        # replica: keep it out of the garbage collector's full passes, which
        # otherwise walk it again and again under load (py-spy at 64 streams:
        # 5.3% -> 3.3% of the interpreter's time in the collector).
        gc.freeze()

    def __serve_build_asgi_app__(self) -> FastAPI:
        return create_app(self._state)


Ingress = serve.deployment(
    name="Ingress",
    ray_actor_options={"num_cpus": 0.5},
    max_ongoing_requests=256,
    # Far above max_active_requests: past capacity our admission answers 503 with
    # the API's error shape and Retry-After; Ray's own queue limit would answer
    # first, in plain text, if it were lower (measured: it was, at 64).
    max_queued_requests=1024,
)(serve.ingress()(IngressReplica))
