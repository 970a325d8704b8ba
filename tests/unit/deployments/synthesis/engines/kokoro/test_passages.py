"""What becomes of a Kokoro passage's audio: trimmed, limited, paused by its punctuation."""

from __future__ import annotations

import numpy as np
import pytest

from deployments.synthesis.engines.kokoro.passages import SAMPLE_RATE, pause_after, soft_limit, trim


def test_trim_limit_and_pauses() -> None:
    rate = SAMPLE_RATE
    audio = np.concatenate([np.zeros(rate // 2), 0.5 * np.ones(rate // 10), np.zeros(rate)])
    trimmed = trim(audio.astype(np.float32), pause_s=0.3)
    assert trimmed.size == pytest.approx(int(0.02 * rate) + rate // 10 + int(0.3 * rate), abs=2)
    assert trim(np.zeros(100, np.float32), 0.3).size == 0
    loud = np.linspace(-1.4, 1.4, 1001).astype(np.float32)
    limited = soft_limit(loud)
    assert np.abs(limited).max() < 1.0 and np.all(np.diff(limited) >= 0)  # monotonic, no clip
    quiet = np.linspace(-0.8, 0.8, 11).astype(np.float32)
    assert np.array_equal(soft_limit(quiet), quiet)  # transparent below the knee
    assert (pause_after("hɛː."), pause_after("nəmˈʌsteː,"), pause_after("ɡˈʌjaː")) == (
        0.3,
        0.15,
        0.05,
    )
