"""Plain data that crosses deployment handles: dataclasses of primitives and numpy arrays.

Nothing here knows of HTTP or Ray. ``*Params`` travel with a request; startup
configuration lives in each package's ``*Config`` types.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from deployments.reading import AppliedRule
from deployments.timings import Alignment, PhonemeTiming, Timings, WordTiming


@dataclass(frozen=True)
class PhonemeSpan:
    """``text[start:end]`` of a segment, to be said as ``phonemes`` (``alphabet``: ipa,
    or espeak: eSpeak NG's own notation)."""

    start: int
    end: int
    phonemes: str
    alphabet: str


@dataclass(frozen=True)
class Prosody:
    """How a segment is spoken relative to its request (SSML ``prosody``): a speed
    multiplier, a pitch offset in the API's units, a volume gain."""

    speed: float = 1.0
    pitch: float = 0.0
    volume: float = 1.0


@dataclass(frozen=True)
class Segment:
    """A piece of text the engine speaks in one call.

    ``text`` is exactly what the engine is given; ``start``/``end`` are offsets of the
    piece in the request's input, so audio can be mapped back to what the user sent.
    """

    index: int
    text: str
    start: int
    end: int
    # parts of ``text`` a pronunciation rule gives phonemes for (engines that take
    # phonemes say them so; the others read the text, which is those words' reading)
    phonemes: tuple[PhonemeSpan, ...] = ()
    prosody: Prosody = Prosody()
    # silence before and after the segment's speech (SSML breaks, paragraph ends)
    pause_before_ms: int = 0
    pause_after_ms: int = 0
    # characters billed once this segment is spoken, where they are not ``end`` (SSML:
    # the text a listener hears, not the markup; aliases: what they add to it)
    billed_end: int | None = None
    # cut from the segment after it only for a sooner first audio (a first sentence's
    # first clause): a Synthesiser reads the two as one and renders them in two parts
    # where the engine can, else speaks them as one unless it has room to spend a
    # model call on the cut (deployments.synthesis.runner, ``joined``)
    joins_next: bool = False
    # where each word of ``text`` came from in the input: (start, end) in ``text``,
    # (start, end) in the input; words a reading made (``₹5`` -> "five rupees") share
    # the span of what they read
    sources: tuple[tuple[int, int, int, int], ...] = ()
    # the text around the request (the API's previous_text / next_text, read as the
    # request is: the first segment's and the last's), read with the segment by
    # engines that can, never spoken or billed
    previous_text: str = ""
    next_text: str = ""

    def source_of(self, start: int, end: int) -> tuple[int, int]:
        """The input's span of the word at ``text[start:end]``; (-1, -1) if unknown."""
        for said_start, said_end, source_start, source_end in self.sources:
            if said_start <= start < said_end or (start == said_start == end):
                return source_start, source_end
        return -1, -1

    @property
    def billed_through(self) -> int:
        return self.end if self.billed_end is None else self.billed_end


def joined(first: Segment, second: Segment) -> Segment | None:
    """``first`` and ``second`` spoken as one segment, a space between their texts, under
    ``second``'s index (its audio completes what ``second`` bills); None where they
    may not be (a pause or a change of prosody between them)."""
    if first.prosody != second.prosody or first.pause_after_ms or second.pause_before_ms:
        return None
    shift = len(first.text) + 1
    return replace(
        second,
        text=f"{first.text} {second.text}",
        start=first.start,
        phonemes=first.phonemes
        + tuple(replace(p, start=p.start + shift, end=p.end + shift) for p in second.phonemes),
        pause_before_ms=first.pause_before_ms,
        previous_text=first.previous_text,
        sources=first.sources
        + tuple((a + shift, b + shift, c, d) for a, b, c, d in second.sources),
    )


@dataclass(frozen=True)
class NormalisedText:
    """What the normaliser made of a request's input."""

    language: str
    representation: str
    text: str
    segments: tuple[Segment, ...]
    # the pronunciation rules that matched the input, where they matched
    applied: tuple[AppliedRule, ...] = ()
    # characters that aliases (dictionary rules, SSML sub and say-as) add to what is
    # heard beyond the text they replace: billed too (segments' billed_through count them)
    expansion: int = 0


@dataclass(frozen=True)
class Surroundings:
    """The text before and after a request, as written (the API's ``previous_text``
    and ``next_text``, or its earlier requests' texts): read with the request in one
    call to the normaliser and given to its first and last segment
    (``Segment.previous_text``, ``Segment.next_text``), never spoken or billed."""

    previous_text: str = ""
    next_text: str = ""

    def __bool__(self) -> bool:
        return bool(self.previous_text or self.next_text)


@dataclass(frozen=True)
class VoiceDesign:
    """A voice built from registered ones (the description and reference modes).

    ``blend``: voice ids of one engine and their weights (summing to 1), mixed by
    engines that can (Kokoro's style tables); others speak the first.
    ``variant``: an eSpeak variant in place of the voice's own. ``pitch_range``:
    -1..1 relative to the voice's, for engines with that control (eSpeak)."""

    blend: tuple[tuple[str, float], ...] = ()
    variant: str | None = None
    pitch_range: float = 0.0


@dataclass(frozen=True)
class SynthesisParams:
    """Per-request voice controls, in API units (speed 0.5..2, pitch -1..1)."""

    voice: str
    language: str
    speed: float = 1.0
    pitch: float = 0.0
    quality: str = "balanced"
    with_alignment: bool = False
    with_phonemes: bool = False  # phoneme timings and visemes (AudioChunk.timings)
    design: VoiceDesign | None = None
    # whose request it is (a project): the Synthesiser's queues take tenants in turn
    tenant: str = ""
    # no listener waits for any of its audio (a long-form job's chunk): every segment
    # waits behind streams' segments, first and later, and runs at the idle priority
    background: bool = False

    def fully_timed(self) -> SynthesisParams:
        """These params asking for every timing a voice gives (character alignment,
        phonemes and visemes): audio kept to serve every later request (the speech
        cache) is asked for all of them, each request served only what it asked."""
        return replace(self, with_alignment=True, with_phonemes=True)


@dataclass(frozen=True)
class SynthesisWork:
    """Everything a Synthesiser needs to speak one request."""

    segments: tuple[Segment, ...]
    params: SynthesisParams

    def without(self, cached: CachedAudio | None) -> SynthesisWork:
        """The work of the segments ``cached`` has no audio of."""
        if cached is None:
            return self
        segments = tuple(s for s in self.segments if s.index not in cached.segments)
        return replace(self, segments=segments)


@dataclass
class AudioChunk:
    """Float32 mono samples in [-1, 1] at ``sample_rate``, all from segment ``segment``.

    ``words`` are the engine's word timings (segment-relative), where it gives them;
    ``alignment`` is the segment's character alignment when the work asked for it;
    ``phonemes`` the engine's phoneme timings (segment-relative), where it gives them;
    ``timings`` the phonemes (words in the input) and visemes when the work asked;
    ``through`` the share of its segment's audio heard by this chunk's end (1.0: the
    whole segment; less for a piece of a long one), by which its text is billed.
    """

    samples: np.ndarray
    sample_rate: int
    segment: int
    words: tuple[WordTiming, ...] = ()
    alignment: Alignment | None = None
    phonemes: tuple[PhonemeTiming, ...] = ()
    timings: Timings | None = None
    through: float = 1.0

    def as_asked(self, params: SynthesisParams) -> AudioChunk:
        """This chunk with only the timings ``params`` ask for (it may have been
        synthesised with more: :meth:`SynthesisParams.fully_timed`)."""
        alignment = self.alignment if params.with_alignment else None
        timings = self.timings if params.with_phonemes else None
        if alignment is self.alignment and timings is self.timings:
            return self
        return replace(self, alignment=alignment, timings=timings)


def billed_ends(segments: Sequence[Segment]) -> dict[int, tuple[int, int]]:
    """Each segment's billed characters, as (where they start, where they end): from the
    end of the one before (the first: from the text's start) to its own."""
    ends, start = {}, 0
    for segment in segments:
        ends[segment.index] = (start, segment.billed_through)
        start = segment.billed_through
    return ends


def billed_through(chunk: AudioChunk, ends: dict[int, tuple[int, int]]) -> int:
    """The characters billed once ``chunk`` has been heard: its segment's in proportion
    to its share of the segment's audio (a hang-up in a long segment's first piece is
    billed that piece's share, not the whole segment)."""
    start, end = ends[chunk.segment]
    return start + round((end - start) * min(1.0, max(0.0, chunk.through)))


@dataclass(frozen=True)
class OutputParams:
    """How a request wants its audio: container, rate (None = the voice's own, or the
    one the format carries), gain, bit rate in kbps (MP3, Opus, AAC)."""

    format: str
    sample_rate: int | None = None
    volume: float = 1.0
    bitrate_kbps: int | None = None


@dataclass(frozen=True)
class CachedAudio:
    """Audio of some of a request's segments, spoken before (the speech cache):
    ``segments`` the indices it covers, ``chunks`` their audio in order, on the
    request's segment indices."""

    segments: frozenset[int]
    chunks: tuple[AudioChunk, ...]


@dataclass(frozen=True)
class EncodeWork:
    """One request's audio: what to synthesise and how to encode it.

    ``cached``: audio some of its segments already have, spoken in their place
    (only the others are synthesised); ``keep_audio``: each encoded chunk brings
    back the synthesised audio it holds (``EncodedChunk.spoken``), for the cache."""

    synthesis: SynthesisWork
    output: OutputParams
    cached: CachedAudio | None = None
    keep_audio: bool = False

    @property
    def to_synthesise(self) -> SynthesisWork:
        """The work of the segments that have no cached audio (asked for every timing
        where its audio is kept: the encoder frames only what the request asked)."""
        work = self.synthesis.without(self.cached)
        return replace(work, params=work.params.fully_timed()) if self.keep_audio else work


@dataclass
class EncodedChunk:
    """Encoded bytes ready for the wire, with what they hold.

    ``audio_samples`` counts the output samples whose encoding this chunk completes,
    ``end_char`` is the input offset up to which the text has been spoken once
    this chunk is delivered; ``spoken``, where the work asked to keep its audio,
    the synthesised chunks whose encoding this chunk completes (or began).
    """

    data: bytes
    sample_rate: int
    audio_samples: int
    end_char: int
    alignment: Alignment | None = None
    timings: Timings | None = None
    spoken: tuple[AudioChunk, ...] = ()
