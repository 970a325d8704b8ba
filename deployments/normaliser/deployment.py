"""The TextNormaliser deployment: a thin Serve shim around :class:`TextNormaliser`."""

from __future__ import annotations

from ray import serve

from deployments.loopback import keep_replica_server_on_loopback
from deployments.messages import NormalisedText
from deployments.normaliser.normaliser import TextNormaliser, normalise_off_loop
from deployments.normaliser.pronunciation import PronunciationRule
from deployments.normaliser.ssml import SsmlText
from deployments.replica_logs import log_to_replica_file

keep_replica_server_on_loopback()


class TextNormaliserReplica:
    def __init__(self) -> None:
        log_to_replica_file()
        self._normaliser = TextNormaliser()
        self._normaliser.warm_up()  # before the replica is ready

    async def normalise(
        self,
        text: str,
        language: str,
        quality: str,
        rules: tuple[PronunciationRule, ...] = (),
        ssml: bool | SsmlText = False,
        read: bool = True,
    ) -> NormalisedText:
        """``text`` cleaned, segmented and read for ``language`` and ``quality``, with
        the pronunciation ``rules`` of the request applied to it as written; an SSML
        document where ``ssml`` (as the ingress read it, once);
        numbers and symbols left as written unless ``read``.

        Never raises for plain text.
        """
        return await normalise_off_loop(
            self._normaliser, text, language, quality, rules, ssml, read
        )


# Its options (resources, replicas, queue bounds) live in the Serve configs.
TextNormaliserDeployment = serve.deployment(name="TextNormaliser")(TextNormaliserReplica)
