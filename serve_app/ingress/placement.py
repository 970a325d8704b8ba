"""Where each stage of the pipeline runs: its own deployment, or inside the ingress.

The graph is Ingress -> TextNormaliser (unary) and Ingress -> AudioEncoder ->
Synthesiser (streams). Each stage can be folded into the ingress process
instead: on a CPU-only machine serving eSpeak, a Ray hop costs more than the work
(docs/performance.md). Synthesis can also be placed per engine: the voices of
``ingress_engines`` run (and are encoded) inside the ingress even where the
others sit on the Synthesiser deployment, so a cluster never sends a cheap CPU
voice through a GPU replica.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Where = Literal["deployment", "ingress"]


SYNTHESISER = "Synthesiser"
STAGES = ("TextNormaliser", "AudioEncoder", SYNTHESISER)


class Placement(BaseModel):
    """One typed place that says where each stage and each engine runs."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    normaliser: Where = Field(default="deployment", description="The TextNormaliser stage.")
    encoder: Where = Field(default="deployment", description="The AudioEncoder stage.")
    synthesiser: Where = Field(default="deployment", description="The Synthesiser stage.")
    ingress_engines: tuple[str, ...] = Field(
        default=(),
        description="Engines whose voices are synthesised and encoded inside the ingress "
        "although the Synthesiser is a deployment (e.g. [espeak]).",
    )

    @model_validator(mode="after")
    def _consistent(self) -> Placement:
        if self.encoder == "deployment" and self.synthesiser == "ingress":
            raise ValueError(
                "an AudioEncoder deployment reads the Synthesiser deployment's stream: "
                "with the synthesiser in the ingress, put the encoder there too"
            )
        if self.synthesiser == "ingress" and self.ingress_engines:
            raise ValueError(
                "ingress_engines is for a Synthesiser deployment; it is in the ingress"
            )
        return self

    @classmethod
    def folded(cls) -> Placement:
        """Everything inside the ingress process (CPU-only eSpeak serving)."""
        return cls(normaliser="ingress", encoder="ingress", synthesiser="ingress")

    def deployments(self) -> list[str]:
        """The deployments this placement builds, the Ingress first."""
        own = {
            "TextNormaliser": self.normaliser,
            "AudioEncoder": self.encoder,
            "Synthesiser": self.synthesiser,
        }
        return ["Ingress", *(name for name in STAGES if own[name] == "deployment")]

    def stages(self) -> dict[str, str]:
        """Each stage and where it runs, as /ready reports it."""
        synthesis: str = self.synthesiser
        if synthesis == "deployment" and self.ingress_engines:
            synthesis = f"deployment; {', '.join(self.ingress_engines)} in the ingress"
        return {
            "TextNormaliser": self.normaliser,
            "AudioEncoder": self.encoder,
            "Synthesiser": synthesis,
        }
