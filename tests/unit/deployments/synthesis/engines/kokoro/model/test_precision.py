"""The model in half precision (what a GPU serves) against float32, on the CPU: a dtype
error in the decoder shows here, not on the first GPU. FFTs have no half-precision
kernels on the CPU, so these also prove the spectral parts stay in float32."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import torch

from deployments.synthesis.engines.kokoro.model.model import KokoroModel
from deployments.synthesis.engines.kokoro.model.spectral import mel_distance
from deployments.synthesis.engines.kokoro.model.weights import Conversion

# Each half type's decoder against float32 with equal durations, a quarter of the
# frames (measured on the CPU: bfloat16 1.1-1.7 dB, its 8-bit mantissa; float16
# 0.4-0.95 dB, by CPU). For scale: the int8 export against float32 is ~1.5 dB, one
# voice against another ~7 dB; a dtype error (an overflow) gives noise or NaN.
MAX_HALF_DISTANCE_DB = {"bfloat16": 2.5, "float16": 1.5}
# The whole model cast to bfloat16 (text side included): durations may move by a frame
# (measured 1.7-1.9 dB).
MAX_CAST_DISTANCE_DB = 3.0


def _half(conversion: Conversion, dtype: str) -> KokoroModel:
    return KokoroModel.from_state(conversion.state).in_precision(getattr(torch, dtype))


def _quartered(model: KokoroModel, ids: list[int], row: torch.Tensor) -> list[int]:
    """The durations float32 predicts for ``ids``, each cut to a quarter: half-precision
    convolutions run torch's reference loops on the CPU (float16 ~40x float32's time,
    bfloat16 ~10x where the CPU has no bfloat16 instructions), and a quarter of the
    frames still runs every layer, the instance norms' sums and the exponential before
    the inverse STFT (each overflowed float16 until kept in float32)."""
    predicted = model([ids], row, torch.ones(1))[0].durations
    return [max(1, int(d) // 4) for d in predicted]


# One word each: a dtype error shows in any, and half-precision convolutions on the
# CPU cost ~0.7 s a frame (torch's reference loops: a sentence of four words took
# twice a word's 16 s and showed nothing more; a second, in English, nothing either).
@pytest.mark.parametrize(
    ("dtype", "text", "voice"),
    [("bfloat16", "नमस्ते", "hf_alpha"), ("float16", "नमस्ते", "hm_omega")],
)
def test_a_half_precision_decoder_keeps_the_durations_and_the_sound_of_float32(
    conversion: Conversion,
    model: KokoroModel,
    tokens: Callable[[str, str], list[int]],
    style_row: Callable[[str, list[int]], np.ndarray],
    dtype: str,
    text: str,
    voice: str,
) -> None:
    half = _half(conversion, dtype)
    ids = tokens(text, "hi")
    row = torch.from_numpy(style_row(voice, ids)[None])
    short = _quartered(model, ids, row)
    full = model([ids], row, torch.ones(1), durations=[short])[0]
    low = half([ids], row, torch.ones(1), durations=[short])[0]
    # the text side runs in float32: durations (and word timings) are float32's
    assert torch.equal(low.predicted, full.predicted)
    assert low.audio.dtype == torch.float32 and bool(torch.isfinite(low.audio).all())
    assert low.audio.numel() == full.audio.numel() == sum(short) * 600
    distance = mel_distance(full.audio.numpy(), low.audio.numpy())
    assert distance <= MAX_HALF_DISTANCE_DB[dtype], distance


def test_a_model_cast_whole_to_bfloat16_speaks(
    conversion: Conversion,
    model: KokoroModel,
    tokens: Callable[[str, str], list[int]],
    style_row: Callable[[str, list[int]], np.ndarray],
) -> None:
    # ``.to(torch.bfloat16)`` as a user would write it: the spectral parts still run in
    # float32 inside it
    cast = KokoroModel.from_state(conversion.state).to(torch.bfloat16)
    ids = tokens("नमस्ते", "hi")
    row = torch.from_numpy(style_row("hf_beta", ids)[None])
    short = _quartered(model, ids, row)
    full = model([ids], row, torch.ones(1), durations=[short])[0]
    low = cast([ids], row, torch.ones(1), durations=[short])[0]
    assert (low.predicted - full.predicted).abs().max() <= 1
    distance = mel_distance(full.audio.numpy(), low.audio.numpy())
    assert distance <= MAX_CAST_DISTANCE_DB, distance


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_in_precision_leaves_the_text_side_in_float32(conversion: Conversion, dtype: str) -> None:
    half = _half(conversion, dtype)
    assert half.dtype == torch.float32 and half.decoder.dtype == getattr(torch, dtype)
    text_side = {p.dtype for n, p in half.named_parameters() if not n.startswith("decoder.")}
    decoder = {p.dtype for n, p in half.named_parameters() if n.startswith("decoder.")}
    assert text_side == {torch.float32}
    assert decoder == {getattr(torch, dtype)}
