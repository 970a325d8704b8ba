"""A long-form job's files made from its chunks' PCM: a WAV written as it is read."""

from __future__ import annotations

import itertools
import struct
import tracemalloc
from pathlib import Path

import numpy as np

from serve_app.speech.audio_store import FolderStore
from serve_app.speech.longform.audio import JobSettings, chunk_key, job_audio, wav_header
from tests.conftest import decode


def test_a_long_job_s_wav_is_written_without_holding_its_samples(tmp_path: Path) -> None:
    """An hour of a job's PCM made one WAV: written as read (a writer that held every
    sample took a job of pauses from 584 MB to 2.2 GB), its header true."""
    audio = FolderStore(tmp_path)
    block = (np.arange(22050 * 60, dtype="<i2") % 2000).tobytes()  # a minute a chunk
    for index in range(60):
        audio.put(chunk_key("job_wav", index), block)
    made = JobSettings(options="{}", format="wav", sample_rate=22050)
    tracemalloc.start()
    try:
        size = 0
        for part in job_audio(audio, "job_wav", range(60), made):
            size += len(part)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert size == 44 + 60 * len(block)
    assert peak < 4 * len(block), f"{peak:,} bytes at most held for {60 * len(block):,}"
    first = b"".join(itertools.islice(job_audio(audio, "job_wav", range(2), made), 2))
    samples, rate = decode(first + block)  # the header says two chunks' length
    assert rate == 22050 and samples.size == 2 * len(block) // 2


def test_a_wav_too_long_for_riff_s_sizes_says_its_length_is_unknown() -> None:
    assert wav_header(24000, 5 << 30)[4:8] == wav_header(24000, 5 << 30)[40:44] == b"\xff" * 4
    assert struct.unpack("<I", wav_header(24000, 1000)[40:44]) == (1000,)
