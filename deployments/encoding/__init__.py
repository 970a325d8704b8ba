"""The AudioEncoder stage: a request's samples resampled, levelled and written in its
format, one stream however many pieces, chapters marked where a format has them.

This is the stage's public face: what the ingress (``serve_app``) may use of it,
named here (``tests/unit/test_layout.py`` keeps it so); the stage's own modules import
each other by their paths, never through this face. Its Serve deployment is
``deployments.encoding.deployment``.
"""

from deployments.encoding.chapters import ChapterMark, has_chapter_marks, mark_chapters
from deployments.encoding.encoder import StreamEncoder, encode_stream, encode_work, interleaved
from deployments.encoding.writers import (
    AUDIO_FORMATS,
    FORMATS,
    STREAMABLE_FORMATS,
    bitrate_kbps,
    content_type,
    make_writer,
)

__all__ = [
    "AUDIO_FORMATS",
    "FORMATS",
    "STREAMABLE_FORMATS",
    "ChapterMark",
    "StreamEncoder",
    "bitrate_kbps",
    "content_type",
    "encode_stream",
    "encode_work",
    "has_chapter_marks",
    "interleaved",
    "make_writer",
    "mark_chapters",
]
