"""The text around a request: what a client that speaks a paragraph sentence by
sentence sends so each sentence continues the last (ElevenLabs' ``previous_text`` /
``next_text``, or ``previous_request_ids`` / ``next_request_ids`` naming its own
earlier requests).

The surrounding text is normalised as the request is (numbers read, in its
language), in the same call to the normaliser (``deployments/normaliser/surroundings.py``),
and given to the first and the last segment (``Segment.previous_text``,
``Segment.next_text``); engines that can (Kokoro) read it with the segment and speak
only the segment, others leave it. It is never billed.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

from deployments.messages import Surroundings
from serve_app.speech.vocabulary import SpeechRequest

# Characters of surrounding text kept as written (the engine reads the words nearest
# the request only; the normaliser keeps fewer once they are read out)
SURROUNDING_CHARS = 500
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


def surroundings(previous_text: str, next_text: str) -> Surroundings:
    """The text before and after a request as the normaliser is given it: the
    :data:`SURROUNDING_CHARS` of each nearest the request."""
    return Surroundings(
        previous_text[-SURROUNDING_CHARS:].strip(), next_text[:SURROUNDING_CHARS].strip()
    )
