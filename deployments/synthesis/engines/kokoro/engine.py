"""The ``kokoro`` engine: Kokoro-82M, through ONNX Runtime or torch.

A neural voice at 24 kHz: text becomes phonemes through eSpeak NG
(:mod:`.phonemes`), phonemes become audio in one model call per passage of
at most ``max_tokens`` symbols (cut at sentence, then clause, then word ends),
so a long text never holds the engine in one call and a cancelled stream stops
between passages. Each passage's audio is trimmed and limited, and its words timed
from the frames the model gave their phonemes (:mod:`.passages`). On the ONNX
backend a sentence whose first clause was cut for a sooner first audio is read
once and rendered in two parts cut in the pause its reading makes after the
clause (:meth:`KokoroEngine.synthesise_parts`, :mod:`.parts`).

Two backends (:mod:`.backends`): the int8 ONNX export, one text per call,
where concurrency is several calls at once: on CPU a call that runs alone takes
a session with every core's threads and calls beside others take one-core
sessions (``parallel_calls`` of them, default one per core); and the model in
torch with float weights converted from the same export (:mod:`.model`),
where the engine batches: the segments of concurrent streams are spoken in one
forward pass (:class:`.batching.BatchingKokoroEngine`); :func:`.loading.load_kokoro`
makes the engine its options ask for.

Voice ``params``: ``style`` (the voice's name in kokoro-js, e.g. ``hf_alpha``),
``phonemes`` (eSpeak voice for its language: ``hi``, ``en-us``, ``en-gb``),
``speed`` (the voice's own pace, default 1.0). A request's ``VoiceDesign.blend``
mixes voices: the weighted sum of their style tables (and paces) is a new voice;
each voice is measured when it loads (deployments.voice_design.profiles) so the
ingress can choose blends. Engine options: ``device`` (``cpu`` or ``cuda``),
``backend`` (``onnx``, ``onnx-float``, ``torch``, or ``auto``: torch on CUDA), ``dtype`` (the torch
backend's), ``weights`` (the torch backend's file), ``threads`` (intra-op
threads; default the cores this process may use), ``parallel_calls``,
``max_tokens`` (per model call, at most 510), ``voices_dir`` (default: where the
install step put them).
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TypeVar

import numpy as np

from deployments.espeak_binding import EspeakError, espeak_library
from deployments.messages import AudioChunk, PhonemeSpan, Segment, SynthesisParams
from deployments.synthesis.engine import (
    CancelToken,
    EngineError,
    EngineInfo,
)
from deployments.synthesis.engines.kokoro.assets import load_style
from deployments.synthesis.engines.kokoro.backends import (
    Item,
    KokoroBackend,
    ReadingBackend,
    Voiced,
)
from deployments.synthesis.engines.kokoro.parts import cut_frame, heard_parts, split_point
from deployments.synthesis.engines.kokoro.passages import (
    SAMPLE_RATE,
    Passage,
    cut_passages,
    own_audio,
    spoken,
)
from deployments.synthesis.engines.kokoro.phonemes import KokoroPhonemizer, Phonemes
from deployments.synthesis.engines.kokoro.styles import StyleTables
from deployments.synthesis.options import KokoroVoiceParams
from deployments.synthesis.profiling import measure_profile
from deployments.synthesis.voices import VoiceConfig
from deployments.voice_design.profiles import ProfileCache, VoiceProfile

T = TypeVar("T")
MODEL_MAX_TOKENS = 510
PHONEME_VOICES = {"hi": "hi", "en": "en-us"}

# Tokens of the text around a segment (previous_text / next_text) read with it, at
# most, on each side: the words nearest the segment, enough for its prosody to
# continue theirs (a clause or so), few enough not to double the call.
SURROUNDING_TOKENS = 32


class KokoroEngine:
    """Kokoro voices: one model (an ONNX session or the torch model), a style table per voice."""

    def __init__(
        self,
        model: KokoroBackend,
        threads: int,
        parallel_calls: int,
        max_tokens: int,
        voices_dir: Path,
    ) -> None:
        self._model = model
        self.device = model.device
        self.threads = threads
        self.parallel_calls = parallel_calls
        self.max_tokens = max_tokens
        self._voices_dir = voices_dir
        self._phonemizer = KokoroPhonemizer(espeak_library())
        self._styles = StyleTables()
        self._params: dict[str, KokoroVoiceParams] = {}
        self._profiles: dict[str, VoiceProfile] = {}
        self._profile_cache = ProfileCache()
        self._languages: set[str] = set()
        self._warm = False
        self._calls = 0
        self._texts = 0
        self._model_s = 0.0
        self._audio_s = 0.0
        self._count_lock = threading.Lock()

    def add_voice(self, voice: VoiceConfig) -> int:
        params = KokoroVoiceParams.model_validate(voice.params)
        if voice.languages[0] not in PHONEME_VOICES and params.phonemes is None:
            raise EngineError(f"kokoro voice {voice.id!r}: no phonemes for {voice.languages[0]!r}")
        self._styles.add(voice.id, load_style(params.style, self._voices_dir), params.speed)
        self._params[voice.id] = params
        self._languages.update(voice.languages)
        if not self._warm:  # the first run of a session is several times slower
            tokens = self._phonemizer.tokens("ɹˈɛdi.")
            row = self._styles.table(voice.id)[len(tokens) - 1]
            self._model.warm_up([([0, *tokens, 0], row, 1.0)])
            self._warm = True
        profile = self._measure(voice, params)
        if profile is not None:
            self._profiles[voice.id] = profile
        return SAMPLE_RATE

    def _measure(self, voice: VoiceConfig, params: KokoroVoiceParams) -> VoiceProfile | None:
        """The voice's profile, keyed by its style table, phoneme set and pace."""
        style = hashlib.sha256(self._styles.table(voice.id).tobytes()).hexdigest()
        key = ProfileCache.key("kokoro", style, params.phonemes, params.speed, voice.languages[0])
        return measure_profile(self, voice, self._profile_cache, key, SAMPLE_RATE, pitched=False)

    def info(self) -> EngineInfo:
        return EngineInfo(
            name="kokoro",
            languages=tuple(sorted(self._languages)),
            sample_rate=SAMPLE_RATE,
            device=self.device,
            voices=self._styles.voices(),
            modes=("preset", "description", "reference"),
            controls=("speed",),
            blends=True,
            alignment=self._model.timed,
            phonemes=self._model.timed,
            profiles=dict(self._profiles),
            concurrency=self.parallel_calls,
            extra={
                "backend": self._model.name,
                "compiled": getattr(self._model, "compiled", "off"),
                "model_calls": self._calls,
                "texts": self._texts,
                "model_seconds": round(self._model_s, 3),
                "audio_seconds": round(self._audio_s, 3),
                "threads": self.threads,
                "parallel_calls": self.parallel_calls,
            },
        )

    def phonemes(
        self, text: str, voice: VoiceConfig, language: str, given: Sequence[PhonemeSpan] = ()
    ) -> str:
        """What the model is given for ``text`` (Kokoro phonemes with punctuation), with
        the phonemes ``given`` for parts of it."""
        return self.phonemize(text, voice, language, given).text

    def phonemize(
        self, text: str, voice: VoiceConfig, language: str, given: Sequence[PhonemeSpan] = ()
    ) -> Phonemes:
        """What the model is given for ``text``, with the word each symbol says."""
        params = self._params.get(voice.id)
        if params is None:
            raise EngineError(f"kokoro voice {voice.id!r} is not loaded")
        phoneme_set = params.phonemes or PHONEME_VOICES.get(language, "hi")
        try:
            return self._phonemizer.phonemize(text, phoneme_set, given)
        except EspeakError as e:
            raise EngineError(str(e)) from e

    def passages(self, phonemes: str) -> list[str]:
        """``phonemes`` cut into passages of at most ``max_tokens`` symbols, at sentence
        ends first, then clause ends, then word ends."""
        return cut_passages(
            phonemes, self.max_tokens, lambda text: len(self._phonemizer.tokens(text))
        )

    def synthesise(
        self,
        segment: Segment,
        voice: VoiceConfig,
        params: SynthesisParams,
        cancel: CancelToken | None = None,
    ) -> Iterator[AudioChunk]:
        said, passages = self._items(segment, voice, params)

        def voiced() -> Iterator[Voiced]:
            for passage in passages:
                if cancel is not None and cancel.cancelled:
                    return
                yield own_audio(self._run([passage.item])[0], passage)

        # each passage's chunk says how much of the segment has been spoken by its end,
        # so that the runner may give the engine to another stream between passages
        for i, heard in enumerate(spoken(said, passages, voiced()), start=1):
            if heard.audio.size:
                phonemes = heard.phonemes if params.with_phonemes else ()
                yield AudioChunk(
                    heard.audio,
                    SAMPLE_RATE,
                    segment.index,
                    heard.words,
                    phonemes=phonemes,
                    through=i / len(passages),
                )

    def synthesise_parts(
        self,
        segment: Segment,
        split_at: int,
        voice: VoiceConfig,
        params: SynthesisParams,
        cancel: CancelToken | None = None,
    ) -> Iterator[AudioChunk] | None:
        """``segment`` read as one text and rendered in two parts (:mod:`.parts`): the
        audio of ``segment.text[:split_at]``, then (when asked for the next) of the
        rest, each timed from its own start, the second's words as offsets of
        ``segment.text[split_at:]``. Reads the text before it returns (a model call of
        ~3% of the whole); None where the backend cannot render part of a reading,
        the text takes more than one call, or the reading makes no pause where it
        is to be cut."""
        model = self._model
        if not isinstance(model, ReadingBackend):
            return None
        said, passages = self._items(segment, voice, params)
        split = split_point(said, split_at)
        if len(passages) != 1 or split is None:
            return None
        (passage,) = passages
        reading = self._counted(lambda: model.read(passage.item))
        cut = cut_frame(reading, said, passage, split)
        if cut is None:
            return None

        def render(start: int, end: int) -> np.ndarray:
            return self._counted(lambda: model.render(reading, start, end), samples=len)

        def chunks() -> Iterator[AudioChunk]:
            parts = heard_parts(said, reading, passage, split, cut, render)
            for chars in (0, -split_at):  # the second's words in the text after split_at
                if chars and cancel is not None and cancel.cancelled:
                    return
                heard = next(parts).shifted(chars)
                phonemes = heard.phonemes if params.with_phonemes else ()
                yield AudioChunk(
                    heard.audio, SAMPLE_RATE, segment.index, heard.words, None, phonemes
                )

        return chunks()

    def _items(
        self, segment: Segment, voice: VoiceConfig, params: SynthesisParams
    ) -> tuple[Phonemes, list[Passage]]:
        """``segment``'s phonemes and the model calls they need: each passage of at
        most ``max_tokens`` as the model's input (tokens with their boundaries, the
        style row for their count, the speed)."""
        style, pace = self._styles.of(voice.id, params.design)
        speed = params.speed * pace
        said = self.phonemize(segment.text, voice, params.language, segment.phonemes)
        passages = []
        cursor = 0
        for text in self.passages(said.text):
            start = said.text.find(text, cursor)
            cursor = start + len(text) if start >= 0 else cursor
            tokens = self._phonemizer.tokens(text)
            if tokens:
                row = style[min(len(tokens), MODEL_MAX_TOKENS) - 1]
                passages.append(Passage(text, start, ([0, *tokens, 0], row, speed)))
        surrounded = segment.previous_text or segment.next_text
        if surrounded and len(passages) == 1 and self._model.timed:
            passages = [
                self._with_surrounding_text(passages[0], segment, voice, params, style, speed)
            ]
        return said, passages

    def _with_surrounding_text(
        self,
        passage: Passage,
        segment: Segment,
        voice: VoiceConfig,
        params: SynthesisParams,
        style: np.ndarray,
        speed: float,
    ) -> Passage:
        """``passage`` (all of ``segment``) read with the words nearest it of the text
        before and after it: up to :data:`SURROUNDING_TOKENS` of each, as room allows."""
        own = passage.item[0][1:-1]
        sides = bool(segment.previous_text) + bool(segment.next_text)
        share = min(SURROUNDING_TOKENS, (self.max_tokens - len(own)) // sides)

        def nearest(text: str, last: bool) -> list[int]:
            if not text.strip() or share <= 1:
                return []
            words = self.phonemize(text, voice, params.language).text.split(" ")
            kept: list[str] = []
            for word in reversed(words) if last else words:
                if len(self._phonemizer.tokens(" ".join([*kept, word]))) >= share:
                    break
                kept.append(word)
            if not kept:
                return []
            joined = " ".join(reversed(kept) if last else kept)
            return self._phonemizer.tokens(f"{joined} " if last else f" {joined}")

        before = nearest(segment.previous_text, last=True)
        after = nearest(segment.next_text, last=False)
        tokens = [*before, *own, *after]
        row = style[min(len(tokens), MODEL_MAX_TOKENS) - 1]
        item = ([0, *tokens, 0], row, speed)
        return Passage(passage.text, passage.start, item, len(before), len(after))

    def _run(self, items: list[Item]) -> list[Voiced]:
        """One model call for ``items`` (the ONNX backend runs them one by one)."""
        return self._counted(
            lambda: self._model.run(items),
            texts=len(items),
            samples=lambda voiced: sum(v.audio.size for v in voiced),
        )

    def _counted(
        self,
        call: Callable[[], T],
        texts: int = 0,
        samples: Callable[[T], int] | None = None,
        started: float | None = None,
    ) -> T:
        """``call`` (a model call, or part of one) timed (from ``started``, default now)
        and counted in :meth:`info`, with the texts it read and the ``samples`` of audio
        it made; a failure is an :class:`EngineError`."""
        started = time.perf_counter() if started is None else started
        try:
            result = call()
        except Exception as e:
            raise EngineError(f"the Kokoro model failed: {e}") from e
        with self._count_lock:
            self._calls += 1
            self._texts += texts
            self._model_s += time.perf_counter() - started
            self._audio_s += samples(result) / SAMPLE_RATE if samples is not None else 0.0
        return result
