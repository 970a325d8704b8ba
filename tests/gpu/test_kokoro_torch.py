"""Kokoro in torch on the tier's device: the converted model against the export, in
each precision, and a batch of streams against its items alone. On CUDA every Hindi
voice speaks three sentences; on the CPU one of each, so the harness runs in `make test`."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the kokoro-torch extra is not installed")
pytestmark = pytest.mark.gpu
pytest.importorskip("onnx", reason="the kokoro-torch extra is not installed")

from deployments.synthesis.engines.kokoro.backends import ONNX_GAIN, OnnxKokoro  # noqa: E402
from deployments.synthesis.engines.kokoro.model.model import KokoroModel  # noqa: E402
from deployments.synthesis.engines.kokoro.model.spectral import mel_distance  # noqa: E402
from tests.gpu.conftest import cuda_only  # noqa: E402
from tests.unit.deployments.synthesis.engines.kokoro.model.conftest import HINDI_VOICES  # noqa: E402
from tests.unit.deployments.synthesis.engines.kokoro.model.test_model import (  # noqa: E402
    MAX_BATCH_DISTANCE_DB,
    MAX_DISTANCE_DB,
    SENTENCES,
)
from tests.unit.deployments.synthesis.engines.kokoro.model.test_precision import (  # noqa: E402
    MAX_HALF_DISTANCE_DB,
)


@contextmanager
def exact_float32(device: str) -> Iterator[None]:
    """float32 convolutions and matmuls in float32. cuDNN runs them in TF32 by default
    (a 10-bit mantissa) with an algorithm picked by the batch's shape, so an item's
    rounding differs with its batch: batched against alone measured 0.109-0.127 dB on
    an H200 with TF32, 0.008 dB without (the batch's own bound, 0.05 dB, is the CPU's).
    What serves runs with TF32 (bfloat16 against float32 is 1.7-1.9 dB there anyway);
    this checks that batching itself changes nothing."""
    if device != "cuda":
        yield
        return
    saved = torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32
    torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = False
    try:
        yield
    finally:
        torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32 = saved


def _sync(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


@pytest.fixture(scope="module")
def device_model(conversion: Any, device: str) -> KokoroModel:
    return KokoroModel.from_state(conversion.state).to(device)


def test_every_hindi_voice_speaks_every_sentence_as_the_export_does(
    device: str,
    device_model: KokoroModel,
    export: OnnxKokoro,
    tokens: Callable[[str, str], list[int]],
    style_row: Callable[[str, list[int]], np.ndarray],
) -> None:
    # The export runs on the CPU (the fixture's, as the GPU image's onnxruntime has no
    # CUDA provider): every voice and sentence would be 56 runs there, past the device
    # script's bound for this tier (measured: over 150 s on 16 cores). On CUDA every
    # voice speaks three sentences; on the CPU (float32 torch at ~1x real time on two
    # cores) one voice one sentence.
    voices = HINDI_VOICES if device == "cuda" else HINDI_VOICES[:1]
    sentences = SENTENCES[:3] if device == "cuda" else SENTENCES[1:2]
    distances = []
    for voice in voices:
        for phonemes, text in sentences:
            ids = tokens(text, phonemes)
            row = style_row(voice, ids)
            (voiced,) = export.run([(ids, row, 1.0)])
            assert voiced.durations is not None
            exported = [int(f) for f in voiced.durations]
            spoken = device_model(
                [ids], torch.from_numpy(row[None]), torch.ones(1), durations=[exported]
            )[0]
            predicted = spoken.predicted.cpu().tolist()
            assert max(abs(a - b) for a, b in zip(predicted, exported, strict=True)) <= 1
            distances.append(mel_distance(voiced.audio / ONNX_GAIN, spoken.audio.cpu().numpy()))
    print(f"torch ({device}) vs export: mean {np.mean(distances):.2f} dB, max {max(distances):.2f}")
    assert max(distances) <= MAX_DISTANCE_DB


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_speaks_as_float32(
    conversion: Any,
    device: str,
    device_model: KokoroModel,
    dtype: str,
    tokens: Callable[[str, str], list[int]],
    style_row: Callable[[str, list[int]], np.ndarray],
) -> None:
    # the CPU tier checks both on the CPU (test_precision.py), float16 on a short word:
    # torch runs CPU float16 convolutions as reference loops
    cuda_only(device, "the GPU's half-precision kernels")
    half = KokoroModel.from_state(conversion.state).to(device).in_precision(getattr(torch, dtype))
    for phonemes, text in SENTENCES[:6]:
        ids = tokens(text, phonemes)
        row = torch.from_numpy(style_row("hf_alpha", ids)[None])
        full = device_model([ids], row, torch.ones(1))[0]
        low = half([ids], row, torch.ones(1))[0]
        assert torch.equal(low.durations, full.durations)  # the text side is float32
        distance = mel_distance(full.audio.cpu().numpy(), low.audio.cpu().numpy())
        print(f"{dtype}: {distance:.2f} dB ({text})")
        assert distance <= MAX_HALF_DISTANCE_DB[dtype]


def test_a_batch_of_streams_equals_its_items_alone(
    device: str,
    device_model: KokoroModel,
    tokens: Callable[[str, str], list[int]],
    style_row: Callable[[str, list[int]], np.ndarray],
) -> None:
    streams = 32 if device == "cuda" else 2  # the CPU: that the harness runs
    texts = [SENTENCES[i % 6] for i in range(streams)]
    ids = [tokens(text, phonemes) for phonemes, text in texts]
    voices = [HINDI_VOICES[i % len(HINDI_VOICES)] for i in range(streams)]
    styles = torch.from_numpy(np.stack([style_row(v, t) for v, t in zip(voices, ids, strict=True)]))
    speeds = torch.ones(streams)
    with exact_float32(device):
        if device == "cuda":
            device_model(ids, styles, speeds)  # warm
        _sync(device)
        started = time.perf_counter()
        batch = device_model(ids, styles, speeds)
        _sync(device)
        batched = time.perf_counter() - started
        started = time.perf_counter()
        alone = [device_model([t], styles[i : i + 1], speeds[:1])[0] for i, t in enumerate(ids)]
        _sync(device)
        single = time.perf_counter() - started
    audio_s = sum(s.audio.numel() for s in batch) / 24_000
    print(
        f"{streams} streams on {device}: one pass {batched * 1000:.0f} ms, one by one "
        f"{single * 1000:.0f} ms, {audio_s:.1f} s of audio"
    )
    distances = []
    for item, one in zip(batch, alone, strict=True):
        assert torch.equal(item.durations, one.durations)
        assert item.audio.numel() == one.audio.numel()
        distances.append(mel_distance(one.audio.cpu().numpy(), item.audio.cpu().numpy()))
    print(f"batched vs alone: max {max(distances):.3f} dB")
    assert max(distances) <= MAX_BATCH_DISTANCE_DB


def test_a_pass_waits_for_the_device_once(
    device: str,
    device_model: KokoroModel,
    tokens: Callable[[str, str], list[int]],
    style_row: Callable[[str, list[int]], np.ndarray],
) -> None:
    """The unit tier counts the reads the model's Python makes (test_device_reads.py);
    here CUDA itself reports every call that makes the host wait for the device
    (torch's sync debug mode), hidden ones too: a library copying a length from
    pageable memory, a cuDNN call that reads back. One pass of a padded batch waits
    once, for the durations (``read_back``): the profile of the second GPU run had
    the launching thread 23% in the LSTMs' calls, a wait to look for."""
    cuda_only(device, "CUDA's own synchronisations")
    import warnings

    texts = [SENTENCES[0], SENTENCES[3]]  # two lengths: a padded batch
    ids = [tokens(text, phonemes) for phonemes, text in texts]
    styles = torch.from_numpy(np.stack([style_row("hf_alpha", t) for t in ids]))
    device_model.launch(ids, styles, torch.ones(2)).spoken()  # warm: allocations, cuDNN plans
    torch.cuda.synchronize()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.cuda.set_sync_debug_mode("warn")
        try:
            device_model.launch(ids, styles, torch.ones(2))
        finally:
            torch.cuda.set_sync_debug_mode("default")
    waits = [str(w.message).splitlines()[0] for w in caught if "synchroniz" in str(w.message)]
    print(f"waits in one pass: {len(waits)}: {waits}")
    assert len(waits) == 1
