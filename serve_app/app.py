"""The application builder: the import path for ``serve run`` and ``serve deploy``.

serve run configs/local.yaml      # import_path: serve_app.app:build_app
serve deploy configs/gpu.yaml

Deployment options (resources, replicas, queue bounds, autoscaling) live in the
Serve configs alone; ``make run`` and the serve tests deploy ``configs/local.yaml``
through :func:`from_config`, as ``serve run`` would.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator
from ray.serve import Application
from ray.serve.deployment import Deployment
from ray.serve.schema import ServeDeploySchema

from deployments.encoding.deployment import AudioEncoderDeployment
from deployments.normaliser.deployment import TextNormaliserDeployment
from deployments.synthesis import SynthesiserConfig, VoiceRegistry
from deployments.synthesis.deployment import SynthesiserDeployment
from serve_app.ingress.deployment import Ingress, Stages
from serve_app.ingress.placement import Placement
from serve_app.settings import CONFIGS, IngressConfig

LOCAL_CONFIG = CONFIGS / "local.yaml"


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

    def synthesisers(
        self, registered: set[str]
    ) -> tuple[SynthesiserConfig, SynthesiserConfig | None]:
        """The Synthesiser deployment's config and the ingress's own, of ``registered``
        engines: where ``placement.ingress_engines`` keeps some in the ingress, each
        speaks its own engines' voices; else the deployment speaks them all (None)."""
        here = set(self.placement.ingress_engines)
        if not here:
            return self.synthesiser, None
        config = self.synthesiser
        return (
            config.model_copy(update={"voice_engines": sorted(registered - here)}),
            config.model_copy(update={"voice_engines": sorted(here & registered)}),
        )


def build_app(args: AppArgs | dict[str, Any] | None = None) -> Application:
    """Compose the Ingress and the stages ``args.placement`` gives deployments of their own
    (their options come from the Serve config that names this builder)."""
    parsed = args if isinstance(args, AppArgs) else AppArgs.model_validate(args or {})
    return compose(parsed, {})


def from_config(
    path: str | Path = LOCAL_CONFIG, name: str = "speech", args: dict[str, Any] | None = None
) -> Application:
    """Application ``name`` of the Serve config at ``path``, as ``serve run`` would build
    it: its ``args`` (top-level keys replaced by ``args``) and its deployments' options."""
    schema = ServeDeploySchema.model_validate(yaml.safe_load(Path(path).read_text()))
    app = next((a for a in schema.applications if a.name == name), None)
    if app is None:
        raise ValueError(f"{path} has no application {name!r}")
    options = {d.name: d.model_dump(exclude_unset=True, exclude={"name"}) for d in app.deployments}
    return compose(AppArgs.model_validate({**(app.args or {}), **(args or {})}), options)


def compose(args: AppArgs, options: Mapping[str, dict[str, Any]]) -> Application:
    """The application of ``args``, each deployment with its ``options`` by name."""

    def configured(deployment: Deployment) -> Deployment:
        chosen = options.get(deployment.name)
        return deployment.options(**chosen) if chosen else deployment

    placement = args.placement
    config = args.synthesiser
    registry = VoiceRegistry.from_file(config.voices_path)
    stages: Stages = {
        "normaliser": None,
        "encoder": None,
        "synthesiser": None,
        "local_voices": None,
        "placement": placement.stages(),
        "voice_order": [voice.id for voice in registry.all()],
    }
    if placement.normaliser == "deployment":
        stages["normaliser"] = configured(TextNormaliserDeployment).bind()
    if placement.synthesiser == "ingress":
        stages["local_voices"] = config.model_dump()
    else:
        remote, local = args.synthesisers(registry.engines())
        if local is not None:
            stages["local_voices"] = local.model_dump()
        synthesiser = configured(SynthesiserDeployment).bind(remote.model_dump())
        stages["synthesiser"] = synthesiser
        if placement.encoder == "deployment":
            stages["encoder"] = configured(AudioEncoderDeployment).bind(synthesiser)
    ingress = configured(Ingress)
    if args.ingress_replicas is not None:
        ingress = ingress.options(num_replicas=args.ingress_replicas)
    return ingress.bind(stages, args.ingress)
