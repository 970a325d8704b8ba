"""The application builder: the import path for ``serve run`` and ``serve deploy``.

serve run serve_app.app:build_app
serve deploy configs/local.yaml   # import_path: serve_app.app:build_app
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from ray.serve import Application

from deployments.synthesis.deployment import SynthesiserDeployment
from deployments.synthesis.synthesiser import SynthesiserConfig
from serve_app.ingress import Ingress


class AppArgs(BaseModel):
    """Typed ``args`` of the Serve config. Ingress settings left out here come from
    ``TTS_*`` environment variables on the replica, then defaults."""

    model_config = ConfigDict(extra="forbid")

    ingress: dict[str, Any] = Field(default_factory=dict)
    synthesiser: SynthesiserConfig = Field(default_factory=SynthesiserConfig)
    ingress_replicas: int | None = Field(
        default=None,
        ge=1,
        description=(
            "Ingress replicas (make run: one per core). Each is a process with its own "
            "interpreter lock and, with synthesiser_in_ingress, its own CPU voices "
            "(README Performance). Left out: the Serve config's deployments section "
            "decides (num_replicas or autoscaling_config), else one."
        ),
    )
    synthesiser_in_ingress: bool = Field(
        default=False,
        description=(
            "Run the voices inside each ingress replica (a folded placement for "
            "CPU-only eSpeak serving: no hop before the first audio) instead of on the "
            "Synthesiser deployment (the default: neural voices in their own "
            "processes, off the ingress's event loop; GPU voices; batching)."
        ),
    )


def build_app(args: AppArgs | dict[str, Any] | None = None) -> Application:
    """Compose the Ingress, with the Synthesiser behind it (default) or inside it."""
    parsed = args if isinstance(args, AppArgs) else AppArgs.model_validate(args or {})
    config = parsed.synthesiser.model_dump()
    ingress = Ingress
    if parsed.ingress_replicas is not None:
        ingress = Ingress.options(num_replicas=parsed.ingress_replicas)
    if parsed.synthesiser_in_ingress:
        return ingress.bind(config, parsed.ingress)
    return ingress.bind(SynthesiserDeployment.bind(config), parsed.ingress)
