"""A group's audio as the cache keeps it, and as it is served to a request.

An entry holds the voice's own samples, at its own rate, with every timing the voice
gives (words, character alignment, phonemes and visemes: its audio is synthesised
asking for all of them, whatever the request that made it asked), each chunk on its
position in the group: so one entry serves every format, rate, surface and timing
(encoding stays per request, and each request is served the timings it asked for),
and any request whose text reads the same wherever it sits in its input.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace

from deployments.messages import AudioChunk, Segment, SynthesisParams, joined
from deployments.timings import Timings
from serve_app.speech.cache.keys import Group


@dataclass(frozen=True)
class Entry:
    """``chunks`` of a group (``segment``: its position in the group), and whether
    they were synthesised asking for character alignment and phoneme timings."""

    chunks: tuple[AudioChunk, ...]
    alignment: bool
    phonemes: bool

    @property
    def nbytes(self) -> int:
        return sum(chunk.samples.nbytes for chunk in self.chunks) + 256 * len(self.chunks)

    def serves(self, params: SynthesisParams) -> bool:
        """Whether it holds every timing ``params`` ask for."""
        return (self.alignment or not params.with_alignment) and (
            self.phonemes or not params.with_phonemes
        )


def entry_of(group: Group, chunks: list[AudioChunk], params: SynthesisParams) -> Entry | None:
    """The entry of ``group`` made of ``chunks`` (its audio as synthesised for
    ``params``), or None if they are not all of it."""
    position = {segment.index: i for i, segment in enumerate(group)}
    if not chunks or any(chunk.segment not in position for chunk in chunks):
        return None
    last = chunks[-1]
    if last.segment != group[-1].index or last.through < 1.0:
        return None
    kept = tuple(replace(chunk, segment=position[chunk.segment]) for chunk in chunks)
    return Entry(kept, params.with_alignment, params.with_phonemes)


def served(entry: Entry, group: Group, params: SynthesisParams) -> list[AudioChunk]:
    """``entry``'s chunks for a request whose ``group`` reads the same: on its segments'
    indices, their phonemes' words mapped onto its input, with only the timings
    ``params`` ask for."""
    chunks: list[AudioChunk] = []
    done = -1  # the group's last position whose audio has begun
    spoken: Segment = group[0]
    for chunk in entry.chunks:
        position = chunk.segment
        if position > done:
            # a chunk that follows positions with none of their own speaks them joined
            spoken = functools.reduce(_joined, group[done + 1 : position + 1])
            done = position
        asked = chunk.as_asked(params)
        chunks.append(
            replace(asked, segment=group[position].index, timings=_timings(asked.timings, spoken))
        )
    return chunks


def _joined(first: Segment, second: Segment) -> Segment:
    return joined(first, second) or second


def _timings(timings: Timings | None, segment: Segment) -> Timings | None:
    """``timings`` with each phoneme's word in ``segment``'s input."""
    if timings is None:
        return None
    phonemes = tuple(p.in_input(segment) for p in timings.phonemes)
    return replace(timings, phonemes=phonemes)
