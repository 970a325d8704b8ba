"""The ``vits`` engine: Hugging Face ``transformers`` VITS models (the MMS-TTS family).

Checkpoints load from a local directory (``save_pretrained`` output: config,
weights, tokenizer files); nothing is downloaded. Runs on CUDA when present,
else CPU, in ``torch.inference_mode``; fp16/bf16 on GPU as an option. Segments of
concurrent requests are synthesised together in one padded forward pass
(:meth:`VitsEngine.synthesise_batch`); the Synthesiser's runner forms the
batches (``deployments.synthesis.batcher``).

Voice ``params``: ``model`` (the checkpoint directory, absolute or from the
project root). Engine options: ``device`` (``cuda``/``cpu``, default: CUDA if
available), ``dtype`` (``float32``, ``float16``, ``bfloat16``; half types only on GPU).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import torch
from transformers import VitsConfig, VitsModel, VitsTokenizer

from deployments.messages import AudioChunk, Segment, SynthesisParams
from deployments.synthesis.engine import CancelToken, EngineError, EngineInfo, EngineUnavailable
from deployments.synthesis.options import VitsOptions
from deployments.synthesis.voice_files import files_missing, vits_checkpoint
from deployments.synthesis.voices import VoiceConfig

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


class _Voice:
    def __init__(self, model: VitsModel, tokenizer: VitsTokenizer) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.lock = threading.Lock()


class VitsEngine:
    def __init__(self, device: str, dtype: torch.dtype) -> None:
        self.device = device
        self.dtype = dtype
        self._voices: dict[str, _Voice] = {}
        self._languages: set[str] = set()
        self._passes = 0
        self._segments = 0

    @classmethod
    def load(cls, options: dict[str, Any]) -> VitsEngine:
        opts = VitsOptions.model_validate(options)
        device = opts.device or ("cuda" if torch.cuda.is_available() else "cpu")
        if device.startswith("cuda") and not torch.cuda.is_available():
            raise EngineUnavailable("the vits engine is configured for CUDA and there is no GPU")
        dtype = DTYPES[opts.dtype]
        if device == "cpu":
            dtype = torch.float32  # half precision is for GPUs
        return cls(device, dtype)

    def add_voice(self, voice: VoiceConfig) -> int:
        missing = files_missing(voice)
        if missing is not None:
            raise EngineUnavailable(missing)
        path = vits_checkpoint(voice)
        model = VitsModel.from_pretrained(path, local_files_only=True)
        model = model.to(device=self.device, dtype=self.dtype).eval()
        tokenizer = VitsTokenizer.from_pretrained(path, local_files_only=True)
        loaded = _Voice(model, tokenizer)
        self._voices[voice.id] = loaded
        self._languages.update(voice.languages)
        self._forward(loaded, ["warm up"], 1.0)  # first passes compile kernels and allocate
        return int(model.config.sampling_rate)

    def info(self) -> EngineInfo:
        rates = {v.model.config.sampling_rate for v in self._voices.values()}
        return EngineInfo(
            name="vits",
            languages=tuple(sorted(self._languages)),
            sample_rate=min(rates) if rates else 16000,
            device=self.device,
            voices=tuple(self._voices),
            controls=("speed",),
            extra={
                "dtype": str(self.dtype).removeprefix("torch."),
                "batching": True,
                "forward_passes": self._passes,
                "segments": self._segments,
            },
        )

    def synthesise(
        self,
        segment: Segment,
        voice: VoiceConfig,
        params: SynthesisParams,
        cancel: CancelToken | None = None,
    ) -> Iterator[AudioChunk]:
        yield from self.synthesise_batch([(segment, params, voice)])

    def synthesise_batch(
        self, items: list[tuple[Segment, SynthesisParams, VoiceConfig]]
    ) -> list[AudioChunk]:
        """Every item's audio from padded forward passes (one per voice and speed)."""
        results: dict[int, AudioChunk] = {}
        for voice_id, speed in {(voice.id, params.speed) for _, params, voice in items}:
            loaded = self._voices.get(voice_id)
            if loaded is None:
                raise EngineError(f"vits voice {voice_id!r} is not loaded")
            rate = int(loaded.model.config.sampling_rate)
            chosen = [
                i
                for i, (_, params, voice) in enumerate(items)
                if (voice.id, params.speed) == (voice_id, speed)
            ]
            waves = self._forward(loaded, [items[i][0].text for i in chosen], speed)
            for i, wave in zip(chosen, waves, strict=True):
                results[i] = AudioChunk(wave, rate, items[i][0].index)
        return [results[i] for i in range(len(items))]

    def _forward(self, voice: _Voice, texts: list[str], speed: float) -> list[np.ndarray]:
        inputs = voice.tokenizer(texts, padding=True, return_tensors="pt").to(self.device)
        with voice.lock, torch.inference_mode():
            voice.model.speaking_rate = speed
            output = voice.model(**inputs)
            self._passes += 1
            self._segments += len(texts)
        waves = output.waveform.float().cpu().numpy()
        lengths = output.sequence_lengths.cpu().numpy()
        return [waves[i, : int(lengths[i])].astype(np.float32) for i in range(len(texts))]


def build_random_checkpoint(path: str | Path, sampling_rate: int = 16000, seed: int = 0) -> Path:
    """Write a tiny VITS checkpoint with random weights (for tests and benchmarks).

    Its tokenizer knows Latin letters, punctuation and Devanagari; what it says is
    noise, but it goes through the same loader and forward pass as a real MMS model.
    """
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    symbols = ["<pad>", *" abcdefghijklmnopqrstuvwxyz'.,?!-"]
    symbols += [chr(c) for c in range(0x0900, 0x0980)]
    vocab_file = path / "vocab.json"
    vocab_file.write_text(json.dumps({s: i for i, s in enumerate(symbols)}, ensure_ascii=False))
    tokenizer = VitsTokenizer(
        vocab_file=str(vocab_file),
        add_blank=True,
        normalize=True,
        phonemize=False,
        pad_token="<pad>",
        unk_token="<pad>",
    )
    config = VitsConfig(
        vocab_size=len(symbols),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        ffn_dim=32,
        flow_size=16,
        spectrogram_bins=33,
        upsample_initial_channel=32,
        upsample_rates=[8, 8, 4],
        upsample_kernel_sizes=[16, 16, 8],
        resblock_kernel_sizes=[3],
        resblock_dilation_sizes=[[1, 3]],
        prior_encoder_num_flows=1,
        prior_encoder_num_wavenet_layers=1,
        posterior_encoder_num_wavenet_layers=1,
        duration_predictor_num_flows=1,
        duration_predictor_filter_channels=16,
        depth_separable_num_layers=1,
        sampling_rate=sampling_rate,
    )
    torch.manual_seed(seed)
    VitsModel(config).save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path
