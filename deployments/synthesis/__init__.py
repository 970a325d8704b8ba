"""The Synthesiser stage: voices on their engines (``engines/<name>/``), a replica's
segments ordered, batched and spoken in the projects' turns (docs/architecture.md).

This is the stage's public face: what the ingress (``serve_app``) may use of it,
named here (``tests/unit/test_layout.py`` keeps it so); the stage's own modules import
each other by their paths, never through this face. Its Serve deployment is
``deployments.synthesis.deployment``.
"""

from deployments.synthesis.engine import EngineInfo
from deployments.synthesis.runner import SynthesisRunner
from deployments.synthesis.synthesiser import SynthesiserConfig, SynthesiserInfo
from deployments.synthesis.visemes import VISEMES
from deployments.synthesis.voices import VOICE_ID_PATTERN, VoiceConfig, VoiceRegistry, is_voice_id

__all__ = [
    "VISEMES",
    "VOICE_ID_PATTERN",
    "EngineInfo",
    "SynthesisRunner",
    "SynthesiserConfig",
    "SynthesiserInfo",
    "VoiceConfig",
    "VoiceRegistry",
    "is_voice_id",
]
