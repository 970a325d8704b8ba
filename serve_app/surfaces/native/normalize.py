"""The wire models of POST /v1/text/normalize: what a voice will be given for a text."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from deployments.messages import NormalisedText, Prosody


class PhonemeRecord(BaseModel):
    """``text[start:end]`` of a segment is said with these phonemes where the voice's
    engine takes them (docs/pronunciation.md)."""

    start: int
    end: int
    phonemes: str
    alphabet: str


class ProsodyRecord(BaseModel):
    """How an SSML ``prosody`` element changes a segment: a speed multiplier, a pitch
    offset (API units), a volume gain."""

    speed: float
    pitch: float
    volume: float


class SegmentRecord(BaseModel):
    text: str
    start: int
    end: int
    phonemes: list[PhonemeRecord] = []
    # SSML: silence before and after the segment, its prosody (absent: the request's)
    pause_before_ms: int = 0
    pause_after_ms: int = 0
    prosody: ProsodyRecord | None = None


class AppliedRuleRecord(BaseModel):
    """A pronunciation rule that matched ``input[start:end]``."""

    start: int
    end: int
    type: Literal["alias", "phoneme"]
    string_to_replace: str
    alias: str | None = None
    phoneme: str | None = None


class NormalizeResponse(BaseModel):
    """What a voice would be given: ``text`` (the segments, joined as in the input), each
    segment with its ``start``/``end`` offsets in ``input``, and the pronunciation rules
    that matched."""

    language: str
    representation: str
    text: str
    segments: list[SegmentRecord]
    rules: list[AppliedRuleRecord] = []

    @classmethod
    def of(cls, result: NormalisedText) -> NormalizeResponse:
        return cls(
            language=result.language,
            representation=result.representation,
            text=result.text,
            segments=[
                SegmentRecord(
                    text=s.text,
                    start=s.start,
                    end=s.end,
                    phonemes=[PhonemeRecord(**vars(p)) for p in s.phonemes],
                    pause_before_ms=s.pause_before_ms,
                    pause_after_ms=s.pause_after_ms,
                    prosody=None if s.prosody == Prosody() else ProsodyRecord(**vars(s.prosody)),
                )
                for s in result.segments
            ],
            rules=[
                AppliedRuleRecord(
                    start=applied.start,
                    end=applied.end,
                    type=applied.rule.type,
                    string_to_replace=applied.rule.string_to_replace,
                    alias=applied.rule.alias or None,
                    phoneme=applied.rule.phoneme or None,
                )
                for applied in result.applied
            ],
        )
