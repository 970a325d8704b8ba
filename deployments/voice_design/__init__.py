"""Voices designed from a description or matched to a reference recording: a
recording measured, a description parsed, the nearest voice and its settings found.

This is the package's public face: what the ingress (``serve_app``) may use of it,
named here (``tests/unit/test_layout.py`` keeps it so); its own modules, and the
stages below the ingress, import its modules by their paths.
"""

from deployments.voice_design.analysis import (
    NotAVoice,
    NotSpeech,
    Silence,
    SpeechMeasure,
    measure,
)
from deployments.voice_design.description import Report
from deployments.voice_design.description import parse as parse_description
from deployments.voice_design.matching import Candidate, Match, from_description, from_reference

__all__ = [
    "Candidate",
    "Match",
    "NotAVoice",
    "NotSpeech",
    "Report",
    "Silence",
    "SpeechMeasure",
    "from_description",
    "from_reference",
    "measure",
    "parse_description",
]
