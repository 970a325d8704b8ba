"""What a cached piece of speech is: the segments a voice speaks as one (a group), and
the key of everything that changes their audio.

A group is a segment, or a first clause cut for a sooner first audio
(``Segment.joins_next``) with the rest of its sentence: the Synthesiser may speak the
two as one, so they are cached, and found, together. The key holds the project, the
voice as registered (engine, parameters, rate) and as asked (language, speed, pitch,
quality, a built voice's design), and each segment as the voice reads it: its text
after normalisation, dictionaries and SSML (so ``₹500`` and ``पाँच सौ रुपये`` meet),
its phonemes, prosody and pauses, and the text around it that a voice may read with
it. Not in it: where the text sits in the input (the audio is mapped onto each
request's input as it is served) and what a request is billed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Sequence
from typing import Any

from deployments.messages import Segment, SynthesisParams
from deployments.synthesis import VoiceConfig

Group = tuple[Segment, ...]


def groups(segments: Sequence[Segment]) -> list[Group]:
    """``segments`` in the groups a voice speaks: each with the clauses joined to it."""
    found: list[Group] = []
    current: list[Segment] = []
    for segment in segments:
        current.append(segment)
        if not segment.joins_next:
            found.append(tuple(current))
            current = []
    if current:
        found.append(tuple(current))
    return found


def _read(segment: Segment) -> dict[str, Any]:
    """What of ``segment`` the voice hears."""
    return {
        "text": segment.text,
        "phonemes": [dataclasses.astuple(p) for p in segment.phonemes],
        "prosody": dataclasses.astuple(segment.prosody),
        "pauses": (segment.pause_before_ms, segment.pause_after_ms),
        "joins_next": segment.joins_next,
        "around": (segment.previous_text, segment.next_text),
    }


def group_key(
    project: str, model: str, voice: VoiceConfig, params: SynthesisParams, group: Group
) -> str:
    """The key of ``group`` spoken by ``voice`` as ``params`` ask, for ``project``."""
    design = params.design
    payload = {
        "project": project,
        "model": model,
        "voice": voice.model_dump(mode="json"),
        "asked": {
            "voice": params.voice,
            "language": params.language,
            "speed": params.speed,
            "pitch": params.pitch,
            "quality": params.quality,
            "design": dataclasses.astuple(design) if design is not None else None,
        },
        "segments": [_read(segment) for segment in group],
    }
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.blake2b(text.encode(), digest_size=20).hexdigest()
