"""Chapter marks in finished files: read back by FFmpeg as players read them, the
audio untouched."""

from __future__ import annotations

import io
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
import pytest

from deployments.encoding.chapters import ChapterMark, has_chapter_marks, mark_chapters
from deployments.encoding.writers import make_writer
from tests.conftest import decode, speech_like

RATE = 24_000
MARKS = (
    ChapterMark("भूमिका", 0, 1200),
    ChapterMark("पहला पाठ", 1200, 2500),
    ChapterMark("Appendix", 2500, 3000),
)


def read_marks(data: bytes) -> list[tuple[str, int, int]]:
    with av.open(io.BytesIO(data)) as reader:
        return [
            (
                c["metadata"]["title"],
                int(c["start"] * (c["time_base"] or Fraction(1)) * 1000),
                int(c["end"] * (c["time_base"] or Fraction(1)) * 1000),
            )
            for c in reader.chapters()
        ]


@pytest.mark.parametrize(("fmt", "bitrate"), [("mp3", 64), ("opus", None)])
def test_marks_are_read_where_each_chapter_starts_and_the_audio_is_the_same(
    tmp_path: Path, fmt: str, bitrate: int | None
) -> None:
    writer = make_writer(fmt, RATE, bitrate)
    plain = tmp_path / f"plain.{fmt}"
    plain.write_bytes(writer.write(speech_like(160.0, 3.0, RATE)) + writer.finish())
    marked = tmp_path / f"marked.{fmt}"
    mark_chapters(plain, marked, fmt, MARKS)
    assert read_marks(plain.read_bytes()) == []
    found = read_marks(marked.read_bytes())
    assert [title for title, _, _ in found] == [m.title for m in MARKS]
    assert [start for _, start, _ in found] == [m.start_ms for m in MARKS]
    before, rate = decode(plain.read_bytes(), fmt)
    after, rate_after = decode(marked.read_bytes(), fmt)
    assert rate_after == rate and after.size == before.size
    if fmt == "mp3":  # the encoder's frames copied as they were
        assert np.array_equal(after, before)


def test_only_formats_with_a_place_for_marks_take_them(tmp_path: Path) -> None:
    assert has_chapter_marks("mp3") and has_chapter_marks("opus")
    for fmt in ("wav", "pcm", "flac", "aac", "ulaw"):
        assert not has_chapter_marks(fmt)
    with pytest.raises(ValueError, match="wav files have no chapter marks"):
        mark_chapters(tmp_path / "a.wav", tmp_path / "b.wav", "wav", MARKS)
