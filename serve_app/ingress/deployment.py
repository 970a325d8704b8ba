"""The Ingress deployment: FastAPI behind HAProxy or Serve's proxy, a thin shim over ``routes``."""

from __future__ import annotations

import gc
from typing import Any, TypedDict

from fastapi import FastAPI
from ray import serve

from deployments.flow_control import warn_without_flow_control
from deployments.loopback import keep_replica_server_on_loopback
from deployments.replica_logs import log_to_replica_file
from deployments.synthesis import SynthesisRunner
from serve_app.http.ws_frames import bound_websocket_messages
from serve_app.ingress.api import create_app
from serve_app.ingress.state import IngressState
from serve_app.settings import IngressConfig
from serve_app.speech.metrics import ServeMetrics
from serve_app.speech.pipeline import (
    Encoding,
    LocalEncoding,
    LocalNormalisation,
    LocalSynthesis,
    Normalisation,
    Pipeline,
    RemoteEncoding,
    RemoteNormalisation,
    RemoteSynthesis,
    Synthesis,
)

keep_replica_server_on_loopback()


class Stages(TypedDict):
    """What ``build_app`` hands each ingress replica. ``normaliser``, ``encoder``,
    ``synthesiser``: a deployment's handle (Serve turns the bound application into
    one before the replica starts), or None to run that stage here; ``local_voices``:
    the ``SynthesiserConfig`` (as a dict) of the voices that run here (None: none);
    ``placement``: where each stage runs, for /ready; ``voice_order``: the registry's
    order, which /v1/voices keeps."""

    normaliser: Any
    encoder: Any
    synthesiser: Any
    local_voices: dict[str, Any] | None
    placement: dict[str, str]
    voice_order: list[str]


class IngressReplica:
    async def __init__(  # type: ignore[misc]  # Serve awaits an async constructor
        self,
        stages: Stages,
        settings: dict[str, Any] | None = None,
    ) -> None:
        """``stages``: where each stage runs (:class:`Stages`). ``settings``:
        IngressConfig fields; those left out come from ``TTS_*`` variables."""
        log_to_replica_file()
        warn_without_flow_control()
        config = IngressConfig.from_env(**(settings or {}))
        # before Serve starts this replica's own server (direct ingress)
        bound_websocket_messages(config.ws_max_message_bytes)
        local = stages["local_voices"]
        self._local = SynthesisRunner(local) if local is not None else None
        self._state = IngressState(
            config,
            _pipeline(stages, self._local, config.first_audio_wait_s),
            ServeMetrics(),
            stages["placement"],
            _running_replicas,
        )
        # Serve marks the replica running, and routes to it, only when this returns.
        await self._state.warm_up()
        # What is loaded by now (Ray, FastAPI, the voices) lives as long as the
        # replica: keep it out of the garbage collector's full passes, which
        # otherwise walk it again and again under load (py-spy at 64 streams:
        # 5.3% -> 3.3% of the interpreter's time in the collector).
        gc.freeze()

    def __serve_build_asgi_app__(self) -> FastAPI:
        return create_app(self._state)

    def check_health(self) -> None:
        """Serve's periodic check: the engines placed here must be working."""
        if self._local is not None:
            self._local.check_health()


def _running_replicas() -> dict[str, int]:
    """Running replicas of each deployment of this replica's application (blocking:
    it asks Serve's controller)."""
    app = serve.get_replica_context().app_name
    deployments = serve.status().applications[app].deployments
    return {name: d.replica_states.get("RUNNING", 0) for name, d in deployments.items()}


def _pipeline(
    stages: Stages, runner: SynthesisRunner | None, first_audio_wait_s: float
) -> Pipeline:
    """The pipeline over the stages ``build_app`` handed this replica, with ``runner``
    speaking the voices placed here."""
    local = LocalSynthesis(runner) if runner is not None else None
    normalisation: Normalisation = (
        RemoteNormalisation(stages["normaliser"])
        if stages["normaliser"] is not None
        else LocalNormalisation()
    )
    syntheses: list[Synthesis] = [local] if local is not None else []
    encoding: Encoding | None = None
    if stages["synthesiser"] is not None:
        remote = RemoteSynthesis(stages["synthesiser"])
        syntheses.append(remote)
        encoding = (
            RemoteEncoding(stages["encoder"])
            if stages["encoder"] is not None
            else LocalEncoding(remote)
        )
    return Pipeline(
        normalisation, encoding, syntheses, local, stages["voice_order"], first_audio_wait_s
    )


# Its options (resources, replicas, queue bounds) live in the Serve configs.
Ingress = serve.deployment(name="Ingress")(serve.ingress()(IngressReplica))
