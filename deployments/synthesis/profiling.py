"""An engine's voices measured for the voice modes (deployments.voice_design): each
voice speaks a probe through its engine, once, and the measure is cached by what
makes the voice (its engine's key for it)."""

from __future__ import annotations

import logging

import numpy as np

from deployments.messages import Segment, SynthesisParams
from deployments.synthesis.engine import Engine, EngineError
from deployments.synthesis.voices import VoiceConfig
from deployments.voice_design.analysis import NotSpeech
from deployments.voice_design.profiles import ProfileCache, VoiceProfile, measure_voice

logger = logging.getLogger("deployments")


def measure_profile(
    engine: Engine,
    voice: VoiceConfig,
    cache: ProfileCache,
    key: str,
    sample_rate: int,
    pitched: bool,
) -> VoiceProfile | None:
    """``voice``'s profile (deployments.voice_design), spoken through ``engine`` (at
    pitch -1 and +1 too where ``pitched``), from ``cache`` when ``key`` was measured
    before; None (the voice serves, but voices are not built from it) when its probe
    cannot be spoken or measured."""

    def speak(text: str, language: str, pitch: float) -> np.ndarray:
        params = SynthesisParams(voice.id, language, pitch=pitch)
        chunks = engine.synthesise(Segment(0, text, 0, len(text)), voice, params)
        return np.concatenate([c.samples for c in chunks])

    language = voice.languages[0]
    try:
        return cache.get_or_measure(
            key, lambda: measure_voice(speak, language, sample_rate, pitched)
        )
    except (NotSpeech, EngineError) as e:
        logger.warning("voice %s could not be measured for voice modes: %s", voice.id, e)
        return None
