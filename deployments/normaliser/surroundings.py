"""The text around a request, read as the request is and given to its first and last
segment: only the words nearest the request, which is all an engine that reads
surrounding text (Kokoro) takes of it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from deployments.messages import NormalisedText, Surroundings

# Characters of surrounding text kept once read out (500 digits read out are thousands
# of characters, which the engine would turn into phonemes before it keeps its few
# nearest words: unbilled work past what the request itself costs).
SURROUNDING_READ_CHARS = 200


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


def with_surroundings(
    normalised: NormalisedText, around: Surroundings, read: Callable[[str], str]
) -> NormalisedText:
    """``normalised`` with ``around`` read (``read``: a text as the request is read,
    without its markup) and its nearest words given to the first and last segment."""
    segments = list(normalised.segments)
    if not segments or not around:
        return normalised
    previous = read(around.previous_text) if around.previous_text else ""
    following = read(around.next_text) if around.next_text else ""
    segments[0] = replace(segments[0], previous_text=nearest(previous, last=True))
    segments[-1] = replace(segments[-1], next_text=nearest(following, last=False))
    return replace(normalised, segments=tuple(segments))
