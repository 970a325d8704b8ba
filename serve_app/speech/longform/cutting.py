"""A job's input as its chapters and chunks: a long text (or its chapters) cut as a
reader hears it (``chunks.py``, ``ssml.py``), or an IVR's prompts, each a chunk of its
own."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from deployments.normaliser import clean_text
from serve_app.http.errors import InvalidRequest
from serve_app.speech.longform.chunks import (
    MAX_CHAPTERS,
    Chapter,
    Chunk,
    chapter_title,
    chapters_of,
    chunks_of,
)
from serve_app.speech.longform.ssml import ssml_chunks
from serve_app.speech.longform.vocabulary import JobTextType


def cut(
    given: Sequence[tuple[str, str]], text_type: JobTextType
) -> tuple[list[Chapter], list[Chunk]]:
    """Each (title, text) cut into chapters and the chapters into chunks, their
    paragraphs cleaned as a speech request's input is (what is billed is what is
    spoken; SSML's chunks are, as each is read); empty ones left out."""
    given = [(chapter_title(title), unicodedata.normalize("NFC", t)) for title, t in given]
    if text_type == "ssml":
        return ssml_chunks(given)
    chapters: list[Chapter] = []
    for title, text in given:
        for chapter in chapters_of(text, text_type):
            cleaned = (clean_text(p) for p in chapter.paragraphs)
            paragraphs = tuple(p for p in cleaned if p.strip())
            if paragraphs:
                chapters.append(Chapter(chapter_title(chapter.title) or title, paragraphs))
            if len(chapters) > MAX_CHAPTERS:  # refused: no need to cut the rest
                return chapters, []
    return chapters, chunks_of(chapters)


def prompt_chunks(prompts: list[str], text_type: JobTextType) -> tuple[list[Chapter], list[Chunk]]:
    """Each prompt a chunk of its own, read with nothing around it (as a speech
    request of it is, so that its sentences are kept as that request looks them up);
    one chapter of them all."""
    if text_type == "markdown":
        raise InvalidRequest(
            "invalid_value", "Prompts are text or SSML, not Markdown.", "text_type"
        )
    if text_type == "text":
        prompts = [clean_text(unicodedata.normalize("NFC", p)) for p in prompts]
    spoken = [p for p in prompts if p.strip()]
    if not spoken:
        raise InvalidRequest("empty_input", "prompts have nothing to speak.", "prompts")
    chunks = [Chunk(i, 0, text, "", "") for i, text in enumerate(spoken)]
    return [Chapter("", tuple(spoken))], chunks
