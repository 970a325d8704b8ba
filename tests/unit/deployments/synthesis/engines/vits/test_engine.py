"""The vits engine through the same loader the service uses, on a tiny random checkpoint."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

pytest.importorskip("transformers", reason="the vits extra is not installed")

from deployments.messages import Segment, SynthesisParams
from deployments.synthesis.engines.vits.engine import build_random_checkpoint
from deployments.synthesis.synthesiser import Synthesiser, SynthesiserConfig

DEFAULT = {
    "id": "default",
    "name": "D",
    "engine": "espeak",
    "languages": ["hi"],
    "gender": "female",
    "sample_rate": 22050,
}


@pytest.fixture(scope="module")
def voices_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("vits")
    checkpoint = build_random_checkpoint(root / "tiny-hi")
    vits = {
        "id": "hi-vits",
        "name": "Hindi VITS (test)",
        "engine": "vits",
        "languages": ["hi"],
        "gender": "female",
        "sample_rate": 16000,
        "params": {"model": str(checkpoint)},
    }
    path = root / "voices.yaml"
    path.write_text(yaml.safe_dump({"voices": [DEFAULT, vits]}))
    return path


def test_the_loader_reads_a_saved_checkpoint(voices_file: Path) -> None:
    synthesiser = Synthesiser.from_config(SynthesiserConfig(voices_path=str(voices_file)))
    info = {e.name: e for e in synthesiser.info().engines}
    assert info["vits"].voices == ("hi-vits",) and info["vits"].device in ("cpu", "cuda")
    vits, espeak = synthesiser.loaded("hi-vits"), synthesiser.loaded("default")
    assert vits is not None and (vits.engine, vits.batches, vits.renders_parts) == (
        "vits",
        True,
        False,
    )
    assert espeak is not None and not espeak.batches and synthesiser.loaded("nobody") is None
    params = SynthesisParams("hi-vits", "hi")
    texts = ["नमस्ते", "आप कैसे हैं? मैं ठीक हूँ और आप?"]
    batch = synthesiser.speak_batch(
        [(Segment(i, t, 0, len(t)), params) for i, t in enumerate(texts)]
    )
    alone = [synthesiser.speak(Segment(i, t, 0, len(t)), params) for i, t in enumerate(texts)]
    assert [c.sample_rate for c in batch] == [16000, 16000]
    assert [c.segment for c in batch] == [0, 1]
    # VITS samples its latents, so the waves differ run to run; the lengths show
    # that each item is cut to its own length, not the padded batch's.
    assert 0 < batch[0].samples.size < batch[1].samples.size
    assert all(np.isfinite(c.samples).all() for c in batch + alone)
    stats = next(e for e in synthesiser.info().engines if e.name == "vits").extra
    assert stats["forward_passes"] >= 3 and stats["segments"] >= 5
