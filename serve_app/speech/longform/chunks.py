"""A long text cut for a long-form job: chapters, each cut into chunks of whole
sentences that the Synthesiser replicas speak side by side, each with the text around
it read with it, not spoken (so that prosody flows across a join).

Markdown is read as a reader hears it: its headings start chapters (at the highest
level the document uses) and are spoken as their chapter's first line; paragraphs,
list items and quotes are spoken as text, links by their text, images by their alt
text; code blocks and raw HTML are not spoken. Plain text is one chapter unless the
caller names the chapters.

A job holds at most :data:`MAX_CHAPTERS` chapters, however they are made (the most
an MP3's table of contents lists), and Markdown nested at most
:data:`MARKDOWN_NESTING` deep (quotes and lists in each other): deeper text is not
dropped, the document is refused. A chapter's title is one line of what a reader
shows: no control or format character (bidi overrides included), spaces collapsed.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Literal

from markdown_it import MarkdownIt
from markdown_it.token import Token

from deployments.normaliser import SegmentationProfile, clean_text, segment
from serve_app.http.errors import InvalidRequest

TextFormat = Literal["text", "markdown"]

# A chunk: about a minute of speech (Hindi at ~15 characters a second), long enough
# that its surrounding text is a small part of the work, short enough that a job of a few
# thousand characters is still spread over every replica.
CHUNK_CHARS = 1_000
# Text read around a chunk, not spoken: about a sentence each side.
SURROUNDING_CHARS = 200
# Chapters of a job: an MP3's table of contents (ID3's CTOC) counts its entries in a byte.
MAX_CHAPTERS = 255
# Markdown's blocks in each other (a quote in a quote, a list in a list): past this the
# document is refused. It is parsed to a depth of _PARSED_NESTING (a parser that stops
# there drops what is deeper: seen, not lost) and no deeper (its parser recurses).
MARKDOWN_NESTING = 20
_PARSED_NESTING = 100


@dataclass(frozen=True)
class Chapter:
    title: str
    paragraphs: tuple[str, ...]


@dataclass(frozen=True)
class Chunk:
    """One piece of a job's speech: ``text`` is spoken, ``before`` and ``after`` are
    read with it, not spoken (the chapter's text on either side, never another chapter's)."""

    index: int  # in the job, from 0
    chapter: int
    text: str
    before: str
    after: str


def chapters_of(text: str, text_format: TextFormat) -> list[Chapter]:
    """The chapters of a document, empty ones left out."""
    if text_format == "markdown":
        return _markdown_chapters(text)
    paragraphs = tuple(p for p in (" ".join(b.split()) for b in text.split("\n\n")) if p)
    return [Chapter("", paragraphs)] if paragraphs else []


def chunks_of(chapters: Iterable[Chapter], chunk_chars: int = CHUNK_CHARS) -> list[Chunk]:
    """Every chapter cut into chunks of whole paragraphs where they fit in
    ``chunk_chars``, else of whole sentences; numbered across the job."""
    chunks: list[Chunk] = []
    for number, chapter in enumerate(chapters):
        texts = list(_packed(chapter.paragraphs, chunk_chars))
        for k, spoken in enumerate(texts):
            before = " ".join(texts[:k])[-SURROUNDING_CHARS:]
            after = " ".join(texts[k + 1 :])[:SURROUNDING_CHARS]
            chunks.append(Chunk(len(chunks), number, spoken, before.lstrip(), after.rstrip()))
    return chunks


def _packed(paragraphs: Iterable[str], chunk_chars: int) -> Iterator[str]:
    """Paragraphs (or, for one too long, its sentences) joined up to ``chunk_chars``."""
    current: list[str] = []
    size = 0
    for unit in _units(paragraphs, chunk_chars):
        if current and size + 1 + len(unit) > chunk_chars:
            yield " ".join(current)
            current, size = [], 0
        current.append(unit)
        size += len(unit) + (1 if size else 0)
    if current:
        yield " ".join(current)


def _units(paragraphs: Iterable[str], chunk_chars: int) -> Iterator[str]:
    # a sentence longer than a chunk is cut at a space, as the segmenter cuts any text
    profile = SegmentationProfile(first_clause_min=None, max_chars=chunk_chars)
    for paragraph in paragraphs:
        if len(paragraph) <= chunk_chars:
            yield paragraph
        else:
            yield from (s.text for s in segment(paragraph, profile))


def chapter_title(title: str) -> str:
    """A chapter's title as a reader shows it: cleaned as spoken text is (control and
    format characters gone, NUL, ESC and bidi overrides with them), on one line."""
    return " ".join(clean_text(title).split())


def check_chapters(chapters: list[Chapter], param: str = "input") -> list[Chapter]:
    """``chapters``, if a job holds that many: else 400 ``invalid_value``."""
    if len(chapters) > MAX_CHAPTERS:
        raise InvalidRequest(
            "invalid_value",
            f"{param} makes {len(chapters)} chapters; a job holds {MAX_CHAPTERS} (Markdown: "
            "each heading of the top level starts one; use a lower level for sections).",
            param,
        )
    return chapters


def _markdown_chapters(text: str) -> list[Chapter]:
    tokens = MarkdownIt("commonmark", {"maxNesting": _PARSED_NESTING}).parse(text)
    if max((t.level for t in tokens), default=0) >= MARKDOWN_NESTING:
        raise InvalidRequest(
            "invalid_value",
            f"input: Markdown nested deeper than {MARKDOWN_NESTING} levels (quotes and "
            "lists in each other).",
            "input",
        )
    top = min((int(t.tag[1]) for t in tokens if t.type == "heading_open"), default=None)
    chapters: list[Chapter] = []
    title, paragraphs = "", list[str]()
    for i, token in enumerate(tokens):
        if token.type != "inline":
            continue
        spoken = _spoken(token.children or [])
        opener = tokens[i - 1]
        if opener.type == "heading_open" and int(opener.tag[1]) == top:
            if paragraphs:
                chapters.append(Chapter(title, tuple(paragraphs)))
            title, paragraphs = spoken, [spoken] if spoken else []
        elif spoken:
            paragraphs.append(spoken)
    if paragraphs:
        chapters.append(Chapter(title, tuple(paragraphs)))
    return chapters


def _spoken(children: list[Token]) -> str:
    """An inline run as it is read: its text, links by their text, images by their alt
    text, code spans as written; line breaks are spaces, raw HTML is dropped."""
    words = []
    for child in children:
        if child.type in ("text", "code_inline"):
            words.append(child.content)
        elif child.type == "image":
            words.append(_spoken(child.children or []))
        elif child.type in ("softbreak", "hardbreak"):
            words.append(" ")
    return " ".join("".join(words).split())
