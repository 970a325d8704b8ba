"""One response's audio path: resampling, gain, and its container writer."""

from __future__ import annotations

import numpy as np
import soxr

from deployments.encoding.writers import AUDIO_FORMATS, make_writer
from deployments.messages import OutputParams


class AudioPath:
    """Turns a request's float32 chunks at the voice's rate into its wire bytes.

    Resampling is streamed (soxr keeps the filter state between chunks), so the
    output is the same as resampling the whole utterance at once.
    """

    def __init__(self, output: OutputParams, input_rate: int) -> None:
        fixed = AUDIO_FORMATS[output.format].sample_rate if output.format in AUDIO_FORMATS else None
        self.sample_rate = fixed or output.sample_rate or input_rate
        self._volume = np.float32(output.volume)
        self._resampler = (
            soxr.ResampleStream(input_rate, self.sample_rate, 1, dtype="float32", quality="HQ")
            if self.sample_rate != input_rate
            else None
        )
        self._writer = make_writer(output.format, self.sample_rate, output.bitrate_kbps)
        # Compressing (MP3 ~4 ms per second of audio here) and resampling run in C
        # that releases the GIL: worth a thread. Writing PCM or WAV is a copy.
        copies = ("pcm", "wav")
        self.offload = output.format not in copies or self._resampler is not None

    def _prepare(self, samples: np.ndarray, last: bool) -> np.ndarray:
        samples = np.asarray(samples, dtype=np.float32)
        if self._resampler is not None:
            samples = self._resampler.resample_chunk(samples, last=last)
        if self._volume != 1.0:
            samples = samples * self._volume
        return samples

    def encode(self, samples: np.ndarray) -> tuple[bytes, int]:
        """Encode a chunk; returns the bytes ready now and how many output samples went in."""
        prepared = self._prepare(samples, last=False)
        return self._writer.write(prepared), int(prepared.size)

    def finish(self) -> tuple[bytes, int]:
        """Flush the resampler and the writer; returns the last bytes and samples."""
        prepared = self._prepare(np.zeros(0, dtype=np.float32), last=True)
        data = self._writer.write(prepared) if prepared.size else b""
        return data + self._writer.finish(), int(prepared.size)
