"""Container writers: float32 samples in, wire bytes out, one writer per response.

``write()`` takes float32 mono samples in [-1, 1] at the writer's rate and returns
whatever bytes are ready; ``finish()`` returns the rest. PCM is signed 16-bit
little-endian. MP3 comes from one LAME encoder, so the concatenated output is one
valid file. WAV is only for buffered delivery: its header needs the true sizes.
"""

from __future__ import annotations

import io
from typing import Protocol

import lameenc
import numpy as np
import soundfile

FORMATS = ("pcm", "mp3", "wav")
STREAMABLE_FORMATS = ("pcm", "mp3")
# Between our own stages only (never on the wire): float32 little-endian, so a
# stage that encodes again (a WebSocket session's one MP3 stream over many
# pieces) gets the samples as they were, not int16 to convert back.
FLOAT_FORMAT = "f32"
MP3_SAMPLE_RATES = (8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000)


def content_type(fmt: str, sample_rate: int | str) -> str:
    """The HTTP content type of an audio body in ``fmt``."""
    if fmt == "pcm":
        return f"audio/L16;rate={sample_rate};channels=1"
    return {"mp3": "audio/mpeg", "wav": "audio/wav"}[fmt]


def to_int16(samples: np.ndarray) -> np.ndarray:
    """Float samples to little-endian int16, clipping what is out of range."""
    scaled = np.clip(samples, -1.0, 1.0) * 32767.0
    result: np.ndarray = np.round(scaled).astype("<i2")
    return result


class Writer(Protocol):
    def write(self, samples: np.ndarray) -> bytes: ...

    def finish(self) -> bytes: ...


class PcmWriter:
    def write(self, samples: np.ndarray) -> bytes:
        return to_int16(samples).tobytes()

    def finish(self) -> bytes:
        return b""


class FloatWriter:
    def write(self, samples: np.ndarray) -> bytes:
        return np.asarray(samples, dtype="<f4").tobytes()

    def finish(self) -> bytes:
        return b""


def float_samples(data: bytes) -> np.ndarray:
    """The samples of ``FLOAT_FORMAT`` bytes."""
    samples: np.ndarray = np.frombuffer(data, dtype="<f4")
    return samples


class Mp3Writer:
    """One LAME stream: mono, constant bit rate, at the input rate."""

    def __init__(self, sample_rate: int, bitrate_kbps: int) -> None:
        if sample_rate not in MP3_SAMPLE_RATES:
            raise ValueError(f"MP3 cannot carry {sample_rate} Hz")
        self._encoder = lameenc.Encoder()
        self._encoder.set_channels(1)
        self._encoder.set_in_sample_rate(sample_rate)
        self._encoder.set_out_sample_rate(sample_rate)
        self._encoder.set_bit_rate(bitrate_kbps)
        self._encoder.set_quality(5)

    def write(self, samples: np.ndarray) -> bytes:
        if samples.size == 0:
            return b""
        return bytes(self._encoder.encode(to_int16(samples).tobytes()))

    def finish(self) -> bytes:
        return bytes(self._encoder.flush())


class WavWriter:
    """Holds the samples and writes one RIFF file with true sizes at the end."""

    def __init__(self, sample_rate: int) -> None:
        self._sample_rate = sample_rate
        self._parts: list[np.ndarray] = []

    def write(self, samples: np.ndarray) -> bytes:
        self._parts.append(to_int16(samples))
        return b""

    def finish(self) -> bytes:
        samples = np.concatenate(self._parts) if self._parts else np.zeros(0, dtype="<i2")
        buffer = io.BytesIO()
        soundfile.write(buffer, samples, self._sample_rate, format="WAV", subtype="PCM_16")
        return buffer.getvalue()


def make_writer(fmt: str, sample_rate: int, mp3_bitrate_kbps: int = 64) -> Writer:
    if fmt == "pcm":
        return PcmWriter()
    if fmt == "mp3":
        return Mp3Writer(sample_rate, mp3_bitrate_kbps)
    if fmt == "wav":
        return WavWriter(sample_rate)
    if fmt == FLOAT_FORMAT:
        return FloatWriter()
    raise ValueError(f"unknown audio format {fmt!r}")
