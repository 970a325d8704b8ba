"""The TextNormaliser deployment: a thin Serve shim around :class:`TextNormaliser`."""

from __future__ import annotations

from ray import serve

from deployments.messages import NormalisedText
from deployments.normaliser.normaliser import TextNormaliser


class TextNormaliserReplica:
    def __init__(self) -> None:
        self._normaliser = TextNormaliser()

    def normalise(self, text: str, language: str, quality: str) -> NormalisedText:
        """Clean and segment ``text`` for a canonical ``language`` and quality profile.

        Raises ``InvalidText`` for text that is not valid Unicode.
        """
        return self._normaliser.normalise(text, language, quality)


TextNormaliserDeployment = serve.deployment(
    name="TextNormaliser",
    ray_actor_options={"num_cpus": 0.25},
    max_ongoing_requests=64,
    max_queued_requests=256,
)(TextNormaliserReplica)
