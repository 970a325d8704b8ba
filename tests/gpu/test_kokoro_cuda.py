"""Kokoro in torch on CUDA: the converted model against the export, in every precision,
and batches of streams against their items alone. Skipped without CUDA."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the kokoro-torch extra is not installed")
pytest.importorskip("onnx", reason="the kokoro-torch extra is not installed")
pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA"),
]

from deployments.synthesis.kokoro.backends import ONNX_GAIN  # noqa: E402
from deployments.synthesis.kokoro.model.model import KokoroModel  # noqa: E402
from deployments.synthesis.kokoro.model.spectral import mel_distance  # noqa: E402
from tests.unit.deployments.synthesis.kokoro.model.conftest import HINDI_VOICES  # noqa: E402
from tests.unit.deployments.synthesis.kokoro.model.test_model import (  # noqa: E402
    MAX_BATCH_DISTANCE_DB,
    MAX_DISTANCE_DB,
    SENTENCES,
)
from tests.unit.deployments.synthesis.kokoro.model.test_precision import (  # noqa: E402
    MAX_HALF_DISTANCE_DB,
)


@pytest.fixture(scope="module")
def cuda_model(conversion: Any) -> KokoroModel:
    return KokoroModel.from_state(conversion.state).to("cuda")


def test_every_hindi_voice_speaks_every_sentence_as_the_export_does(
    cuda_model: KokoroModel,
    export: Any,
    tokens: Callable[[str, str], list[int]],
    style_row: Callable[[str, list[int]], np.ndarray],
) -> None:
    distances = []
    for voice in HINDI_VOICES:
        for phonemes, text in SENTENCES:
            ids = tokens(text, phonemes)
            row = style_row(voice, ids)
            feed = {"tokens": np.array([ids]), "style": row[None], "speed": np.ones(1, np.float32)}
            audio, frames = export.run(None, feed)
            exported = [int(f) for f in frames.reshape(-1)]
            spoken = cuda_model(
                [ids], torch.from_numpy(row[None]), torch.ones(1), durations=[exported]
            )[0]
            predicted = spoken.predicted.cpu().tolist()
            assert max(abs(a - b) for a, b in zip(predicted, exported, strict=True)) <= 1
            distances.append(
                mel_distance(audio.reshape(-1) / ONNX_GAIN, spoken.audio.cpu().numpy())
            )
    print(f"torch (cuda) vs export: mean {np.mean(distances):.2f} dB, max {max(distances):.2f} dB")
    assert max(distances) <= MAX_DISTANCE_DB


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_speaks_as_float32(
    conversion: Any,
    cuda_model: KokoroModel,
    dtype: str,
    tokens: Callable[[str, str], list[int]],
    style_row: Callable[[str, list[int]], np.ndarray],
) -> None:
    half = KokoroModel.from_state(conversion.state).to("cuda").in_precision(getattr(torch, dtype))
    for phonemes, text in SENTENCES[:6]:
        ids = tokens(text, phonemes)
        row = torch.from_numpy(style_row("hf_alpha", ids)[None])
        full = cuda_model([ids], row, torch.ones(1))[0]
        low = half([ids], row, torch.ones(1))[0]
        assert torch.equal(low.durations, full.durations)  # the text side is float32
        distance = mel_distance(full.audio.cpu().numpy(), low.audio.cpu().numpy())
        print(f"{dtype}: {distance:.2f} dB ({text})")
        assert distance <= MAX_HALF_DISTANCE_DB[dtype]


def test_a_batch_of_32_streams_equals_its_items_alone(
    cuda_model: KokoroModel,
    tokens: Callable[[str, str], list[int]],
    style_row: Callable[[str, list[int]], np.ndarray],
) -> None:
    texts = [SENTENCES[i % len(SENTENCES)] for i in range(32)]
    ids = [tokens(text, phonemes) for phonemes, text in texts]
    voices = [HINDI_VOICES[i % len(HINDI_VOICES)] for i in range(32)]
    styles = torch.from_numpy(np.stack([style_row(v, t) for v, t in zip(voices, ids, strict=True)]))
    speeds = torch.ones(32)
    cuda_model(ids, styles, speeds)  # warm
    torch.cuda.synchronize()
    started = time.perf_counter()
    batch = cuda_model(ids, styles, speeds)
    torch.cuda.synchronize()
    batched = time.perf_counter() - started
    started = time.perf_counter()
    alone = [cuda_model([t], styles[i : i + 1], speeds[:1])[0] for i, t in enumerate(ids)]
    torch.cuda.synchronize()
    single = time.perf_counter() - started
    audio_s = sum(s.audio.numel() for s in batch) / 24_000
    print(
        f"32 streams: one pass {batched * 1000:.0f} ms, one by one {single * 1000:.0f} ms, "
        f"{audio_s:.1f} s of audio"
    )
    for item, one in zip(batch, alone, strict=True):
        assert torch.equal(item.durations, one.durations)
        assert (
            mel_distance(one.audio.cpu().numpy(), item.audio.cpu().numpy()) <= MAX_BATCH_DISTANCE_DB
        )
