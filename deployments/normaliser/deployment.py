"""The TextNormaliser deployment: a thin Serve shim around :class:`TextNormaliser`."""

from __future__ import annotations

import asyncio

from ray import serve

from deployments.messages import NormalisedText
from deployments.normaliser.normaliser import TextNormaliser

# Normalising costs ~8 us a character here: up to this many it runs on the event
# loop (under 2 ms, less than a thread hop under load), longer texts on a thread.
INLINE_NORMALISE_CHARS = 200


async def normalise_off_loop(
    normaliser: TextNormaliser, text: str, language: str, quality: str
) -> NormalisedText:
    """``normaliser.normalise``, on a thread when the text is long enough to matter."""
    if len(text) <= INLINE_NORMALISE_CHARS:
        return normaliser.normalise(text, language, quality)
    return await asyncio.to_thread(normaliser.normalise, text, language, quality)


class TextNormaliserReplica:
    def __init__(self) -> None:
        self._normaliser = TextNormaliser()

    async def normalise(self, text: str, language: str, quality: str) -> NormalisedText:
        """``text`` cleaned, segmented and read for ``language`` and ``quality``.

        Raises ``InvalidText`` for text that is not valid Unicode; nothing else.
        """
        return await normalise_off_loop(self._normaliser, text, language, quality)


TextNormaliserDeployment = serve.deployment(
    name="TextNormaliser",
    ray_actor_options={"num_cpus": 0.25},
    max_ongoing_requests=256,
    max_queued_requests=1024,
)(TextNormaliserReplica)
