"""The TextNormaliser deployment: a thin Serve shim around :class:`TextNormaliser`."""

from __future__ import annotations

from ray import serve

from deployments.loopback import keep_replica_server_on_loopback
from deployments.messages import NormalisedText, Surroundings
from deployments.normaliser.normaliser import TextNormaliser, normalise_off_loop
from deployments.reading import ReadingOptions
from deployments.replica_logs import log_to_replica_file

keep_replica_server_on_loopback()


class TextNormaliserReplica:
    def __init__(self) -> None:
        log_to_replica_file()
        self._normaliser = TextNormaliser()
        self._normaliser.warm_up()  # before the replica is ready

    async def normalise(
        self, text: str, options: ReadingOptions, around: Surroundings | None = None
    ) -> NormalisedText:
        """``text`` cleaned, segmented and read as ``options`` say (the language, the
        quality's segments, the request's pronunciation rules applied to it as written,
        its SSML as the ingress read it once, numbers and symbols read or left); the
        text ``around`` it read in the same call, for its first and last segment.

        Never raises for plain text.
        """
        return await normalise_off_loop(self._normaliser, text, options, around)


# Its options (resources, replicas, queue bounds) live in the Serve configs.
TextNormaliserDeployment = serve.deployment(name="TextNormaliser")(TextNormaliserReplica)
