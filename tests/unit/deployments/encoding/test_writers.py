import struct

import numpy as np
import pytest

from deployments.encoding.writers import (
    FORMATS,
    G711_FRAME_SAMPLES,
    STREAMABLE_FORMATS,
    Mp3Writer,
    content_type,
    make_writer,
    to_int16,
)
from tests.conftest import decode

RATE = 22050


def tone(seconds: float, rate: int = RATE) -> np.ndarray:
    t = np.arange(int(seconds * rate)) / rate
    return (0.5 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)


def write_all(fmt: str, samples: np.ndarray, pieces: int = 7, rate: int = RATE) -> bytes:
    return b"".join(write_pieces(fmt, samples, pieces, rate))


def write_pieces(fmt: str, samples: np.ndarray, pieces: int, rate: int = RATE) -> list[bytes]:
    writer = make_writer(fmt, rate, 64)
    return [writer.write(p) for p in np.array_split(samples, pieces)] + [writer.finish()]


def pitch_hz(samples: np.ndarray, rate: int) -> float:
    spectrum = np.abs(np.fft.rfft(samples * np.hanning(samples.size)))
    return float(np.argmax(spectrum) * rate / samples.size)


def test_pcm_is_signed_16_bit_little_endian_and_clipped() -> None:
    data = make_writer("pcm", RATE).write(np.array([0.0, 0.5, -1.0, 2.0], dtype=np.float32))
    assert struct.unpack("<4h", data) == (0, 16384, -32767, 32767)
    assert to_int16(np.array([1.0])).dtype.str == "<i2"


def test_mp3_stream_concatenates_into_one_valid_file() -> None:
    data = write_all("mp3", tone(2.0), pieces=20)
    samples, rate = decode(data)
    assert rate == RATE
    assert abs(samples.size / rate - 2.0) < 0.1  # LAME adds under a frame of padding


@pytest.mark.parametrize("rate", [8000, 16000, 24000, 44100, 48000])
def test_mp3_keeps_the_asked_rate(rate: int) -> None:
    samples, decoded_rate = decode(write_all("mp3", tone(1.0, rate), rate=rate))
    assert decoded_rate == rate
    assert abs(samples.size / rate - 1.0) < 0.2  # encoder delay and padding


def test_wav_has_true_sizes() -> None:
    data = write_all("wav", tone(1.5))
    assert data[:4] == b"RIFF" and data[8:12] == b"WAVE"
    assert struct.unpack("<I", data[4:8])[0] == len(data) - 8
    samples, rate = decode(data)
    assert (rate, samples.size) == (RATE, int(1.5 * RATE))


def test_content_types() -> None:
    assert content_type("pcm", 16000) == "audio/L16;rate=16000;channels=1"
    assert content_type("mp3", 16000) == "audio/mpeg"
    assert content_type("wav", 16000) == "audio/wav"
    assert content_type("ulaw", 8000) == "audio/PCMU;rate=8000;channels=1"
    assert content_type("opus", 48000) == "audio/ogg;codecs=opus"
    with pytest.raises(ValueError):
        make_writer("ogg", RATE)


@pytest.mark.parametrize(("fmt", "rate"), [("opus", 48000), ("aac", 24000), ("flac", 22050)])
def test_compressed_streams_decode_to_the_same_tone(fmt: str, rate: int) -> None:
    """Ogg Opus, AAC and FLAC written in pieces decode (libsndfile for Opus and FLAC,
    FFmpeg for AAC) to the tone that went in, at its length; bytes leave as they are
    encoded, not all at the end."""
    pieces = write_pieces(fmt, tone(2.0, rate), pieces=20, rate=rate)
    assert sum(1 for p in pieces[:-1] if p) >= 10
    samples, decoded_rate = decode(b"".join(pieces), fmt)
    assert decoded_rate == rate
    assert abs(samples.size / rate - 2.0) < 0.1
    assert abs(pitch_hz(samples[rate // 2 : rate], rate) - 440) < 5


@pytest.mark.parametrize("fmt", ["ulaw", "alaw"])
def test_g711_comes_in_whole_20_ms_frames(fmt: str) -> None:
    pieces = write_pieces(fmt, tone(1.01, 8000), pieces=13, rate=8000)
    assert all(len(p) % G711_FRAME_SAMPLES == 0 for p in pieces)  # one byte a sample
    data = b"".join(pieces)
    assert len(data) == 8160  # 1.01 s padded to a whole frame
    samples, rate = decode(data, fmt)
    assert rate == 8000 and abs(pitch_hz(samples[:8000], 8000) - 440) < 5
    assert np.abs(samples[8080:]).max() < 0.01  # the padding is silence


def test_every_format_but_wav_streams() -> None:
    assert set(FORMATS) - set(STREAMABLE_FORMATS) == {"wav"}


def test_an_mp3_stream_that_never_began_finishes_with_nothing() -> None:
    assert Mp3Writer(24_000, 64).finish() == b""
