"""Character alignment: when each character of a segment is spoken.

Engines report word timings (eSpeak through its WORD events); this spreads each
word's time over its characters, the shape ElevenLabs-style clients expect.
"""

from __future__ import annotations

from deployments.timings import Alignment, WordTiming


def char_alignment(text: str, words: list[WordTiming], duration_ms: int) -> Alignment:
    """Spread each word's time (until the next word starts) evenly over its characters.

    Characters outside words (spaces, punctuation) take the time at which they fall
    and a duration of zero.
    """
    starts = [-1] * len(text)
    durations = [0] * len(text)
    ordered = sorted((w for w in words if 0 <= w.start < w.end <= len(text)), key=lambda w: w.start)
    for i, word in enumerate(ordered):
        next_ms = ordered[i + 1].start_ms if i + 1 < len(ordered) else duration_ms
        span = max(0, next_ms - word.start_ms)
        count = word.end - word.start
        edges = [word.start_ms + span * j // count for j in range(count + 1)]
        for j in range(count):
            starts[word.start + j] = edges[j]
            durations[word.start + j] = edges[j + 1] - edges[j]
    clock = 0
    for i, start in enumerate(starts):
        if start < 0:
            starts[i] = clock
        else:
            clock = start + durations[i]
    return Alignment(tuple(text), tuple(starts), tuple(durations))
