"""A long-form job's audio: each chunk kept as 16-bit PCM at the job's rate, and the
job's files (whole, or a chapter's) made from them in its format, one stream, with
chapter marks where the format has them; a WAV written as it is read.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
from pydantic import BaseModel

from deployments.encoding import ChapterMark, has_chapter_marks, make_writer, mark_chapters
from deployments.priority import run_in_background
from serve_app.speech.audio_store import AudioStore, job_key

# Where a job's audio is written (each chunk's as it is made, the job's files as it
# ends: a book's MP3 is tens of seconds of encoding): threads below the process's
# priority, so that live requests keep the cores meanwhile (nice, not the idle class:
# a thread that holds the GIL must still get to give it back).
JOB_FILES = ThreadPoolExecutor(4, "job-files", initializer=run_in_background)


class JobSettings(BaseModel):
    """How a job's chunks are spoken and its audio made, kept with the job."""

    options: str  # VoiceOptions, JSON: the fields the request set
    format: str
    sample_rate: int  # of its audio, and of its chunks' PCM
    bitrate_kbps: int | None = None
    markup: bool = False  # each chunk's text is an SSML document
    # the pronunciation rules of the job's dictionaries as they were when it was
    # submitted (and held for): every chunk is spoken, and billed, with these
    rules: list[dict[str, Any]] | None = None
    # each chunk (a prompt) spoken through the speech cache, and kept there
    cache: bool = False


def chunk_key(job_id: str, index: int) -> str:
    """Where a chunk's audio is kept: an object per chunk (16-bit PCM at the job's rate)
    under its job's."""
    return job_key(job_id, f"{index:06d}.pcm")


def job_audio(
    audio: AudioStore,
    job_id: str,
    chunks: Iterable[int],
    settings: JobSettings,
    samples: dict[int, int] | None = None,
) -> Iterator[bytes]:
    """The audio of a job's ``chunks``, in order, as one stream of the job's format;
    each chunk's number of samples put in ``samples`` as it is read."""
    if settings.format == "wav":  # its header first, then the samples as they are
        yield from _wav_audio(audio, job_id, chunks, settings.sample_rate, samples)
        return
    writer = make_writer(settings.format, settings.sample_rate, settings.bitrate_kbps)
    for index in chunks:
        pcm = np.frombuffer(audio.get(chunk_key(job_id, index)), dtype="<i2")
        if samples is not None:
            samples[index] = pcm.size
        # to_int16's scale inverted: a job's PCM and WAV are its chunks' samples exactly
        if data := writer.write(pcm.astype(np.float32) / 32767.0):
            yield data
    if data := writer.finish():
        yield data


def _wav_audio(
    audio: AudioStore,
    job_id: str,
    chunks: Iterable[int],
    sample_rate: int,
    samples: dict[int, int] | None,
) -> Iterator[bytes]:
    """A job's WAV, written as it is read: its length is known from its chunks' sizes
    before a sample is read, so no sample is held (a writer that holds them all took
    a job of pauses to gigabytes)."""
    chunks = list(chunks)
    sizes = [audio.size(chunk_key(job_id, index)) or 0 for index in chunks]
    yield wav_header(sample_rate, sum(sizes))
    for index in chunks:
        pcm = audio.get(chunk_key(job_id, index))
        if samples is not None:
            samples[index] = len(pcm) // 2
        yield pcm


def wav_header(sample_rate: int, data_bytes: int) -> bytes:
    """The RIFF header of 16-bit mono PCM of ``data_bytes``; past what RIFF's 32-bit
    sizes hold (a day of speech), the sizes say "unknown" (0xFFFFFFFF), as a stream's
    do, and players read to the end."""
    riff = 36 + data_bytes if 36 + data_bytes <= 0xFFFF_FFFF else 0xFFFF_FFFF
    data = data_bytes if data_bytes <= 0xFFFF_FFFF else 0xFFFF_FFFF
    return (
        b"RIFF" + struct.pack("<I", riff) + b"WAVEfmt "
        + struct.pack("<IHHIIHH", 16, 1, 1, sample_rate, sample_rate * 2, 2, 16)
        + b"data" + struct.pack("<I", data)
    )  # fmt: skip


def write_job_audio(
    audio: AudioStore,
    key: str,
    job_id: str,
    chapters: Sequence[tuple[str, Sequence[int]]],
    settings: JobSettings,
) -> None:
    """The audio of a job's ``chapters`` (each its title and its chunks, in order) as
    the object ``key``, whole or not at all; with a mark where each chapter starts when
    there are several and the format has chapter marks."""
    chunks = [index for _, indices in chapters for index in indices]
    marked = len(chapters) > 1 and has_chapter_marks(settings.format)
    samples: dict[int, int] = {}
    with audio.scratch(key) as whole:
        with whole.open("wb") as out:
            for part in job_audio(audio, job_id, chunks, settings, samples):
                out.write(part)
        if not marked:
            audio.put_file(key, whole)
            return
        marks = _chapter_marks(chapters, samples, settings.sample_rate)
        with audio.scratch(key) as with_marks:
            mark_chapters(whole, with_marks, settings.format, marks)
            audio.put_file(key, with_marks)


def _chapter_marks(
    chapters: Sequence[tuple[str, Sequence[int]]], samples: dict[int, int], sample_rate: int
) -> list[ChapterMark]:
    """Where each chapter starts and ends in the job's audio: its chunks' ``samples``."""
    marks, end = [], 0
    for title, indices in chapters:
        start = end
        end += sum(samples[i] for i in indices)
        marks.append(ChapterMark(title, start * 1000 // sample_rate, end * 1000 // sample_rate))
    return marks
