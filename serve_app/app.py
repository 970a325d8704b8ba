"""The application builder: the import path for ``serve run`` and ``serve deploy``.

serve run serve_app.app:build_app
serve deploy configs/local.yaml   # import_path: serve_app.app:build_app
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from ray.serve import Application

from deployments.encoding.deployment import AudioEncoderDeployment
from deployments.normaliser.deployment import TextNormaliserDeployment
from deployments.synthesis.deployment import SynthesiserDeployment
from deployments.synthesis.synthesiser import SynthesiserConfig
from serve_app.ingress import Ingress


class AppArgs(BaseModel):
    """Typed ``args`` of the Serve config. Ingress settings left out here come from
    ``TTS_*`` environment variables on the replica, then defaults."""

    model_config = ConfigDict(extra="forbid")

    ingress: dict[str, Any] = Field(default_factory=dict)
    synthesiser: SynthesiserConfig = Field(default_factory=SynthesiserConfig)


def build_app(args: AppArgs | dict[str, Any] | None = None) -> Application:
    """Compose Ingress -> (TextNormaliser, AudioEncoder -> Synthesiser)."""
    parsed = args if isinstance(args, AppArgs) else AppArgs.model_validate(args or {})
    synthesiser = SynthesiserDeployment.bind(parsed.synthesiser.model_dump())
    encoder = AudioEncoderDeployment.bind(synthesiser)
    normaliser = TextNormaliserDeployment.bind()
    return Ingress.bind(normaliser, encoder, parsed.ingress)
