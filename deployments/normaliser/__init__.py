"""The TextNormaliser stage: text cleaned, read aloud in its language's words and cut
into segments (docs/normalisation.md).

This is the stage's public face: what the ingress (``serve_app``) may use of it,
named here (``tests/unit/test_layout.py`` keeps it so); the stage's own modules import
each other by their paths, never through this face. Its Serve deployment is
``deployments.normaliser.deployment``.
"""

from deployments.normaliser import pls, ssml
from deployments.normaliser.cleaning import clean_text
from deployments.normaliser.languages import FULL_RULES, number_languages
from deployments.normaliser.normaliser import TextNormaliser, normalise_off_loop, off_loop_if_long
from deployments.normaliser.policy import LanguagePolicy
from deployments.normaliser.segmenter import CLAUSE_END, SegmentationProfile, segment
from deployments.normaliser.ssml import without_tags
from deployments.normaliser.stretches import base_language

__all__ = [
    "CLAUSE_END",
    "FULL_RULES",
    "LanguagePolicy",
    "SegmentationProfile",
    "TextNormaliser",
    "base_language",
    "clean_text",
    "normalise_off_loop",
    "number_languages",
    "off_loop_if_long",
    "pls",
    "segment",
    "ssml",
    "without_tags",
]
