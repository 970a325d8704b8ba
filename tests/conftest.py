"""Helpers shared by every tier."""

from __future__ import annotations

import io
import os

import numpy as np
import pytest
import soundfile

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

# The response headers SPEC.md requires on every audio response.
SPEC_HEADERS = (
    "x-request-id",
    "x-service-language",
    "x-service-representation",
    "x-service-sample-rate",
    "x-service-quality",
)


def decode(data: bytes) -> tuple[np.ndarray, int]:
    """Decode a WAV or MP3 body with libsndfile: samples and rate."""
    samples, rate = soundfile.read(io.BytesIO(data), dtype="float32")
    return samples, rate


def pcm_seconds(data: bytes, sample_rate: int) -> float:
    assert len(data) % 2 == 0, "PCM16 bodies hold whole samples"
    return len(data) / 2 / sample_rate


@pytest.fixture
def hindi_text() -> str:
    return "नमस्ते, आप कैसे हैं? आज मौसम बहुत अच्छा है। चलिए बाहर घूमने चलते हैं।"
