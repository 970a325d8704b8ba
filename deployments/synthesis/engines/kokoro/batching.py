"""Kokoro on the torch backend, batched: the segments of concurrent streams in one
forward pass, launched on the device and collected apart, so that the runner
prepares and launches the next batch while the device runs this one."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from deployments.messages import AudioChunk, Segment, SynthesisParams
from deployments.synthesis.engine import EngineError
from deployments.synthesis.engines.kokoro.backends import Voiced
from deployments.synthesis.engines.kokoro.engine import KokoroEngine
from deployments.synthesis.engines.kokoro.passages import SAMPLE_RATE, own_audio, spoken
from deployments.synthesis.engines.kokoro.torch_backend import Launch, TorchKokoro
from deployments.synthesis.voices import VoiceConfig


class BatchingKokoroEngine(KokoroEngine):
    """Kokoro on the torch backend (:func:`.loading.load_kokoro` makes one there)."""

    _model: TorchKokoro

    def synthesise_batch(
        self, items: list[tuple[Segment, SynthesisParams, VoiceConfig]]
    ) -> list[AudioChunk]:
        """Every item's audio, all of their passages spoken in one forward pass (a
        voice is only a style row: items of any voices share it)."""
        return self.launch_batch(items)()

    def launch_batch(
        self, items: list[tuple[Segment, SynthesisParams, VoiceConfig]]
    ) -> Callable[[], list[AudioChunk]]:
        """:meth:`synthesise_batch` in two steps: the text made into the model's input
        and the pass queued on the device, here; the call it returns waits for the
        audio and trims, limits and times each passage (off the thread that launches)."""
        calls = [self._items(segment, voice, params) for segment, params, voice in items]
        flat = [passage.item for _, passages in calls for passage in passages]
        started = time.perf_counter()
        try:
            launch = self._model.launch(flat) if flat else None
        except Exception as e:
            raise EngineError(f"the Kokoro model failed: {e}") from e

        def collect() -> list[AudioChunk]:
            voiced = iter(self._collected(launch, len(flat), started))
            chunks = []
            for (segment, params, _), (said, passages) in zip(items, calls, strict=True):
                heard = list(spoken(said, passages, [own_audio(next(voiced), p) for p in passages]))
                parts = [h.audio for h in heard]
                samples = np.concatenate(parts) if parts else np.zeros(0, np.float32)
                words = tuple(word for h in heard for word in h.words)
                phonemes = (
                    tuple(p for h in heard for p in h.phonemes) if params.with_phonemes else ()
                )
                chunks.append(
                    AudioChunk(samples, SAMPLE_RATE, segment.index, words, phonemes=phonemes)
                )
            return chunks

        return collect

    def _collected(self, launch: Launch | None, texts: int, started: float) -> list[Voiced]:
        """``launch``'s items, counted in :meth:`info` as one model call from ``started``."""
        if launch is None:
            return []
        return self._counted(
            launch.collect,
            texts=texts,
            samples=lambda voiced: sum(v.audio.size for v in voiced),
            started=started,
        )
