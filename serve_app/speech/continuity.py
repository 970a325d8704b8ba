"""The text around a request: what a client that speaks a paragraph sentence by
sentence sends so each sentence continues the last (ElevenLabs' ``previous_text`` /
``next_text``, or ``previous_request_ids`` / ``next_request_ids`` naming its own
earlier requests).

The surrounding text is normalised as the request is (numbers read, in its
language) and given to the first and the last segment (``Segment.previous_text``,
``Segment.next_text``); engines that can (Kokoro) read it with the segment and speak
only the segment, others leave it. It is never billed.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import replace

from deployments.messages import NormalisedText
from serve_app.speech.checked import Voicing
from serve_app.speech.pipeline import Pipeline
from serve_app.speech.vocabulary import SpeechRequest

# Characters of surrounding text kept (the engine reads the words nearest the
# request only), as written and once read out (500 digits read out are thousands of
# characters, which the engine would turn into phonemes before it keeps its few
# nearest words: unbilled work past what the request itself costs).
SURROUNDING_CHARS = 500
SURROUNDING_READ_CHARS = 200
# Requests remembered, per project, and projects, for previous_request_ids: each
# request's text as far as it is read around another (its first and last
# SURROUNDING_CHARS), so at most ~16 MB however large the texts (16 x 256 x 1,000
# characters of 4 bytes).
REQUESTS_KEPT = 16
PROJECTS_KEPT = 256


class RecentTexts:
    """The input texts of each project's latest requests, by request id: bounded, in
    this process (a request served by another replica is not found, and its id is
    ignored). Of each text only its ends are kept: what is read of it around another."""

    def __init__(self, per_project: int = REQUESTS_KEPT, projects: int = PROJECTS_KEPT) -> None:
        self._per_project = per_project
        self._projects = projects
        self._texts: OrderedDict[str, OrderedDict[str, str]] = OrderedDict()

    def remember(self, project_id: str, request_id: str, text: str) -> None:
        texts = self._texts.pop(project_id, None) or OrderedDict()
        self._texts[project_id] = texts
        if len(text) > 2 * SURROUNDING_CHARS:  # what is read of it: its two ends
            text = f"{text[:SURROUNDING_CHARS]} {text[-SURROUNDING_CHARS:]}"
        texts[request_id] = text
        while len(texts) > self._per_project:
            texts.popitem(last=False)
        while len(self._texts) > self._projects:
            self._texts.popitem(last=False)

    def joined(self, project_id: str, request_ids: Sequence[str]) -> str:
        """The texts of ``request_ids`` that are still here, in the order given."""
        texts = self._texts.get(project_id)
        return " ".join(texts[r] for r in request_ids if r in texts) if texts else ""

    def around(self, project_id: str, request: SpeechRequest) -> tuple[str, str]:
        """The text before and after ``request``: the project's requests it names by
        id where they are still remembered, else the texts it sends."""
        previous_text = self.joined(project_id, request.previous_request_ids or ())
        next_text = self.joined(project_id, request.next_request_ids or ())
        return previous_text or request.previous_text or "", next_text or request.next_text or ""


def nearest(text: str, last: bool, limit: int = SURROUNDING_READ_CHARS) -> str:
    """The words of ``text`` nearest the request, at most ``limit`` characters: its
    last words (``last``: the text before it) or its first, cut between words."""
    if len(text) <= limit:
        return text
    if last:
        kept = text[-limit:]
        return kept.split(" ", 1)[1] if " " in kept else kept
    kept = text[:limit]
    return kept.rsplit(" ", 1)[0] if " " in kept else kept


async def with_surrounding_text(
    normalised: NormalisedText,
    previous_text: str,
    next_text: str,
    pipeline: Pipeline,
    voicing: Voicing,
) -> NormalisedText:
    """``normalised`` with the text before and after it (``previous_text`` and
    ``next_text``, as written) read as ``voicing`` reads the request and given to its
    first and last segment (``Segment.previous_text``, ``Segment.next_text``)."""
    previous_text = previous_text[-SURROUNDING_CHARS:].strip()
    next_text = next_text[:SURROUNDING_CHARS].strip()
    segments = list(normalised.segments)
    if not segments or not (previous_text or next_text):
        return normalised
    reading = voicing.reading()

    async def read(text: str) -> str:
        if not text:
            return ""
        said = await pipeline.normalise(text, reading)
        return said.text

    # both read at once: two calls to the normaliser, not one after the other
    previous, following = await asyncio.gather(read(previous_text), read(next_text))
    segments[0] = replace(segments[0], previous_text=nearest(previous, last=True))
    segments[-1] = replace(segments[-1], next_text=nearest(following, last=False))
    return replace(normalised, segments=tuple(segments))
