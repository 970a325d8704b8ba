"""The application builder: the import path for ``serve run`` and ``serve deploy``.

serve run serve_app.app:build_app
serve deploy configs/local.yaml   # import_path: serve_app.app:build_app
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator
from ray.serve import Application

from deployments.encoding.deployment import AudioEncoderDeployment
from deployments.normaliser.deployment import TextNormaliserDeployment
from deployments.synthesis.deployment import SynthesiserDeployment
from deployments.synthesis.synthesiser import SynthesiserConfig
from deployments.synthesis.voices import VoiceRegistry
from serve_app.ingress import Ingress
from serve_app.placement import Placement
from serve_app.settings import IngressConfig


class AppArgs(BaseModel):
    """Typed ``args`` of the Serve config. Ingress settings left out here come from
    ``TTS_*`` environment variables on the replica, then defaults."""

    model_config = ConfigDict(extra="forbid")

    ingress: dict[str, Any] = Field(
        default_factory=dict, description="IngressConfig fields (serve_app.settings)."
    )
    synthesiser: SynthesiserConfig = Field(default_factory=SynthesiserConfig)
    placement: Placement = Field(
        default_factory=lambda: Placement(),
        description="Where each stage and engine runs; default: every stage its own "
        "deployment (Ingress -> TextNormaliser, Ingress -> AudioEncoder -> Synthesiser).",
    )
    ingress_replicas: int | None = Field(
        default=None,
        ge=1,
        description=(
            "Ingress replicas (make run: one per core). Left out: the Serve config's "
            "deployments section decides (num_replicas or autoscaling_config), else one."
        ),
    )

    @field_validator("ingress")
    @classmethod
    def _known_settings(cls, value: dict[str, Any]) -> dict[str, Any]:
        """Ingress settings against IngressConfig: a typo fails at serve deploy."""
        IngressConfig.model_validate(value)
        return value


def build_app(args: AppArgs | dict[str, Any] | None = None) -> Application:
    """Compose the Ingress and the stages ``args.placement`` gives deployments of their own."""
    parsed = args if isinstance(args, AppArgs) else AppArgs.model_validate(args or {})
    placement = parsed.placement
    config = parsed.synthesiser
    registry = VoiceRegistry.from_file(config.voices_path)
    stages: dict[str, Any] = {
        "normaliser": None,
        "encoder": None,
        "synthesiser": None,
        "local_voices": None,
        "placement": placement.stages(),
        "voice_order": [voice.id for voice in registry.all()],
    }
    if placement.normaliser == "deployment":
        stages["normaliser"] = TextNormaliserDeployment.bind()
    if placement.synthesiser == "ingress":
        stages["local_voices"] = config.model_dump()
    else:
        remote = config
        if placement.ingress_engines:
            here = set(placement.ingress_engines)
            registered = registry.engines()
            remote = config.model_copy(update={"voice_engines": sorted(registered - here)})
            local = config.model_copy(update={"voice_engines": sorted(here & registered)})
            stages["local_voices"] = local.model_dump()
        synthesiser = SynthesiserDeployment.bind(remote.model_dump())
        stages["synthesiser"] = synthesiser
        if placement.encoder == "deployment":
            stages["encoder"] = AudioEncoderDeployment.bind(synthesiser)
    ingress = Ingress
    if parsed.ingress_replicas is not None:
        ingress = Ingress.options(num_replicas=parsed.ingress_replicas)
    return ingress.bind(stages, parsed.ingress)
