"""The Synthesiser deployment: :class:`SynthesisRunner` as a Serve deployment.

Its options (resources, replicas, queue bounds) live in the Serve configs
(``configs/*.yaml``), not here.
"""

from __future__ import annotations

from ray import serve

from deployments.synthesis.runner import SynthesisRunner

SynthesiserDeployment = serve.deployment(name="Synthesiser")(SynthesisRunner)
