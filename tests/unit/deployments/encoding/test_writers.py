import struct

import numpy as np
import pytest

from deployments.encoding.writers import content_type, make_writer, to_int16
from tests.conftest import decode

RATE = 22050


def tone(seconds: float, rate: int = RATE) -> np.ndarray:
    t = np.arange(int(seconds * rate)) / rate
    return (0.5 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)


def write_all(fmt: str, samples: np.ndarray, pieces: int = 7, rate: int = RATE) -> bytes:
    writer = make_writer(fmt, rate, 64)
    out = b"".join(writer.write(p) for p in np.array_split(samples, pieces))
    return out + writer.finish()


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
    with pytest.raises(ValueError):
        make_writer("ogg", RATE)
