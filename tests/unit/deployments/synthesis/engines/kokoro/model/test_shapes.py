"""Batches padded to a few shapes (a compiled decoder's) speak as unpadded ones."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from deployments.synthesis.engines.kokoro.model.model import KokoroModel
from deployments.synthesis.engines.kokoro.model.shapes import Buckets, ladder
from deployments.synthesis.engines.kokoro.model.spectral import mel_distance

from .test_model import MAX_BATCH_DISTANCE_DB


def test_sizes_step_up_to_the_last() -> None:
    assert ladder(16, 512, 1.5, 16) == (16, 32, 48, 80, 128, 192, 288, 432, 512)
    buckets = Buckets()
    assert Buckets.up(3, buckets.batch) == 4 and Buckets.up(64, buckets.batch) == 64
    assert Buckets.up(70, buckets.frames) == 96
    assert Buckets.up(10_000, buckets.frames) == 10_000  # past the last: itself
    assert buckets.tokens[-1] == 512  # 510 phonemes and the two boundary tokens


def test_a_padded_batch_speaks_each_item_as_the_unpadded_one(
    model: KokoroModel,
    tokens: Callable[[str, str], list[int]],
    style_row: Callable[[str, list[int]], np.ndarray],
) -> None:
    texts = ["हाँ।", "नमस्ते।", "धन्यवाद।"]  # three lengths, short: two passes in float32
    ids = [tokens(t, "hi") for t in texts]
    styles = torch.from_numpy(np.stack([style_row("hf_alpha", t) for t in ids]))
    speeds = torch.tensor([1.0, 1.1, 0.9])
    plain = model(ids, styles, speeds)
    model.buckets = Buckets()  # 3 rows -> 4, tokens and frames up to their sizes
    try:
        padded = model(ids, styles, speeds)
    finally:
        model.buckets = None  # the session's model, as the other tests expect it
    assert len(padded) == 3
    for a, b in zip(plain, padded, strict=True):
        assert torch.equal(a.durations, b.durations)
        assert a.audio.numel() == b.audio.numel()
        assert mel_distance(a.audio.numpy(), b.audio.numpy()) <= MAX_BATCH_DISTANCE_DB
