"""Chapter marks in a finished audio file, where its format has them: MP3 in an ID3v2
tag's CHAP frames (with a table of contents, CTOC), Ogg Opus in Vorbis comments
(``CHAPTER001=00:00:00.000``, ``CHAPTER001NAME=...``). Podcast and audiobook players
show them as a list to jump through; the audio itself is unchanged.

FFmpeg writes both (its muxers, through PyAV): the file is copied packet by packet
into a new container that carries the chapters, nothing decoded or encoded again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import av

# Our formats whose container has chapter marks, and FFmpeg's muxer that writes them.
# (FLAC could carry them in a Vorbis comment too, but FFmpeg's FLAC muxer drops them;
# WAV, PCM, AAC (ADTS) and G.711 have no place for them.)
CHAPTER_MUXERS = {"mp3": "mp3", "opus": "ogg"}
# MP3: no Xing frame before the audio (the copy is the encoder's frames exactly; a
# decoder that does not know the frame would play it as a silent one).
_MUXER_OPTIONS = {"mp3": {"write_xing": "0", "id3v2_version": "3"}}
_MILLISECONDS = Fraction(1, 1000)


@dataclass(frozen=True)
class ChapterMark:
    """A chapter of a file: its title and where it starts and ends."""

    title: str
    start_ms: int
    end_ms: int


def has_chapter_marks(fmt: str) -> bool:
    return fmt in CHAPTER_MUXERS


def mark_chapters(source: Path, dest: Path, fmt: str, marks: Sequence[ChapterMark]) -> None:
    """``source`` (a file of format ``fmt``) copied to ``dest`` with ``marks``."""
    if not has_chapter_marks(fmt):
        raise ValueError(f"{fmt} files have no chapter marks")
    with av.open(str(source)) as reader:
        audio = reader.streams.audio[0]
        with av.open(
            str(dest), "w", format=CHAPTER_MUXERS[fmt], options=_MUXER_OPTIONS.get(fmt, {})
        ) as writer:
            copy = writer.add_stream_from_template(audio)
            if fmt == "opus":
                writer.metadata.update(_vorbis_chapters(marks))
            else:
                writer.set_chapters(
                    [
                        {
                            "id": number,
                            "start": mark.start_ms,
                            "end": mark.end_ms,
                            "time_base": _MILLISECONDS,
                            "metadata": {"title": mark.title},
                        }
                        for number, mark in enumerate(marks, 1)
                    ]
                )
            for packet in reader.demux(audio):
                if packet.dts is None:  # the demuxer's flush packet: nothing to copy
                    continue
                packet.stream = copy
                writer.mux(packet)


def _vorbis_chapters(marks: Sequence[ChapterMark]) -> dict[str, str]:
    """``marks`` as Vorbis comments (Xiph's chapter extension). Written here, not by
    FFmpeg's muxer from chapters: it rounds each start to the nearest whole second
    before adding its milliseconds (2.5 s became 00:00:03.500)."""
    comments = {}
    for number, mark in enumerate(marks, 1):
        seconds, ms = divmod(mark.start_ms, 1000)
        minutes, seconds = divmod(seconds, 60)
        hours, minutes = divmod(minutes, 60)
        comments[f"CHAPTER{number:03d}"] = f"{hours:02d}:{minutes:02d}:{seconds:02d}.{ms:03d}"
        comments[f"CHAPTER{number:03d}NAME"] = mark.title
    return comments
