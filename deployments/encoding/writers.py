"""Container writers: float32 samples in, wire bytes out, one writer per response.

``write()`` takes float32 mono samples in [-1, 1] at the writer's rate and returns
whatever bytes are ready; ``finish()`` returns the rest. PCM is signed 16-bit
little-endian. MP3 comes from one LAME encoder, so the concatenated output is one
valid file. WAV is only for buffered delivery: its header needs the true sizes.
Ogg Opus, AAC (ADTS), FLAC and G.711 (mu-law, A-law) come from PyAV: FFmpeg's
encoders and muxers behind one API, streamed to memory page by page.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

import av
import lameenc
import numpy as np
import soundfile


@dataclass(frozen=True)
class AudioFormat:
    """What a response format is on the wire."""

    name: str
    content_type: str  # "{rate}" stands for the sample rate
    encoding: str
    streamed: bool = True
    sample_rate: int | None = None  # the one rate the format carries (G.711, Opus)
    bitrates_kbps: Mapping[str, int] | None = None  # by quality profile


AUDIO_FORMATS = {
    f.name: f
    for f in (
        AudioFormat("pcm", "audio/L16;rate={rate};channels=1", "signed_16_bit_pcm"),
        AudioFormat(
            "mp3", "audio/mpeg", "mp3", bitrates_kbps={"fast": 48, "balanced": 64, "high": 128}
        ),
        AudioFormat("wav", "audio/wav", "signed_16_bit_pcm", streamed=False),
        # Telephony: 8 kHz G.711, no header, in whole 20 ms frames.
        AudioFormat("ulaw", "audio/PCMU;rate=8000;channels=1", "g711_mu_law", sample_rate=8000),
        AudioFormat("alaw", "audio/PCMA;rate=8000;channels=1", "g711_a_law", sample_rate=8000),
        AudioFormat(
            "opus",
            "audio/ogg;codecs=opus",
            "opus_in_ogg",
            sample_rate=48000,
            bitrates_kbps={"fast": 24, "balanced": 32, "high": 64},
        ),
        AudioFormat(
            "aac",
            "audio/aac",
            "aac_lc_adts",
            bitrates_kbps={"fast": 48, "balanced": 64, "high": 96},
        ),
        AudioFormat("flac", "audio/flac", "flac"),
    )
}
FORMATS = tuple(AUDIO_FORMATS)
STREAMABLE_FORMATS = tuple(f.name for f in AUDIO_FORMATS.values() if f.streamed)
MP3_SAMPLE_RATES = (8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000)
AAC_SAMPLE_RATES = (8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000)
G711_FRAME_SAMPLES = 160  # 20 ms at 8 kHz: what RTP and media-stream bridges carry


def content_type(fmt: str, sample_rate: int | str) -> str:
    """The HTTP content type of an audio body in ``fmt``."""
    return AUDIO_FORMATS[fmt].content_type.replace("{rate}", str(sample_rate))


def bitrate_kbps(fmt: str, quality: str) -> int | None:
    """The bit rate ``fmt`` is encoded at for a quality profile, if it has one."""
    rates = AUDIO_FORMATS[fmt].bitrates_kbps
    return rates[quality] if rates else None


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
        self._started = False  # LAME refuses to flush a stream it never encoded

    def write(self, samples: np.ndarray) -> bytes:
        if samples.size == 0:
            return b""
        self._started = True
        return bytes(self._encoder.encode(to_int16(samples).tobytes()))

    def finish(self) -> bytes:
        return bytes(self._encoder.flush()) if self._started else b""


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


class _Sink:
    """A write-only file for PyAV's muxer: what it writes is taken as it comes (and,
    not seekable, nothing already sent is rewritten)."""

    def __init__(self) -> None:
        self._parts: list[bytes] = []

    def write(self, data: bytes) -> int:
        self._parts.append(bytes(data))
        return len(data)

    def take(self) -> bytes:
        data = b"".join(self._parts)
        self._parts.clear()
        return data


# format -> (PyAV container, codec, muxer options)
_AV_CODECS = {
    # an Ogg page every 20 ms instead of every second: audio leaves as it is encoded
    "opus": ("ogg", "libopus", {"page_duration": "20000"}),
    "aac": ("adts", "aac", {}),
    "flac": ("flac", "flac", {}),
    "ulaw": ("mulaw", "pcm_mulaw", {}),
    "alaw": ("alaw", "pcm_alaw", {}),
}


class AvWriter:
    """One FFmpeg encoder and muxer (PyAV) writing a stream to memory."""

    def __init__(self, fmt: str, sample_rate: int, bitrate: int | None = None) -> None:
        container, codec, options = _AV_CODECS[fmt]
        if fmt == "aac" and sample_rate not in AAC_SAMPLE_RATES:
            raise ValueError(f"AAC cannot carry {sample_rate} Hz")
        self._sink = _Sink()
        self._container = av.open(self._sink, mode="w", format=container, options=options)
        stream = self._container.add_stream(codec, rate=sample_rate, layout="mono")
        assert isinstance(stream, av.audio.stream.AudioStream)
        self._stream = stream
        if bitrate:
            self._stream.bit_rate = bitrate * 1000
        self._rate = sample_rate
        self._pts = 0

    def write(self, samples: np.ndarray) -> bytes:
        if samples.size:
            frame = av.AudioFrame.from_ndarray(
                to_int16(samples)[None, :], format="s16", layout="mono"
            )
            frame.sample_rate = self._rate
            frame.pts = self._pts
            self._pts += samples.size
            self._mux(frame)
        return self._sink.take()

    def finish(self) -> bytes:
        self._mux(None)
        self._container.close()
        return self._sink.take()

    def _mux(self, frame: av.AudioFrame | None) -> None:
        for packet in self._stream.encode(frame):
            self._container.mux(packet)


class G711Writer:
    """mu-law or A-law at 8 kHz in whole 20 ms frames (160 bytes): a media-stream
    bridge (Twilio, Exotel, Plivo, Asterisk) can forward every chunk unchanged. The
    last frame is padded with silence."""

    def __init__(self, fmt: str) -> None:
        self._writer = AvWriter(fmt, 8000)
        self._held = np.zeros(0, dtype=np.float32)

    def write(self, samples: np.ndarray) -> bytes:
        held = np.concatenate([self._held, np.asarray(samples, dtype=np.float32)])
        whole = held.size - held.size % G711_FRAME_SAMPLES
        self._held = held[whole:]
        return self._writer.write(held[:whole]) if whole else b""

    def finish(self) -> bytes:
        padding = (-self._held.size) % G711_FRAME_SAMPLES
        tail = np.concatenate([self._held, np.zeros(padding, dtype=np.float32)])
        return self._writer.write(tail) + self._writer.finish()


def make_writer(fmt: str, sample_rate: int, bitrate: int | None = None) -> Writer:
    """The writer for ``fmt`` at ``sample_rate`` (``bitrate`` in kbps where it has one)."""
    if fmt == "pcm":
        return PcmWriter()
    if fmt == "mp3":
        return Mp3Writer(sample_rate, bitrate or 64)
    if fmt == "wav":
        return WavWriter(sample_rate)
    if fmt in ("ulaw", "alaw"):
        return G711Writer(fmt)
    if fmt in _AV_CODECS:
        return AvWriter(fmt, sample_rate, bitrate)
    raise ValueError(f"unknown audio format {fmt!r}")
