"""A speech request once checked: the voicing chosen for it and what carries its
text, bill and admission ticket to the pipeline."""

from __future__ import annotations

import time
import unicodedata
from dataclasses import dataclass, replace

from deployments.encoding import AUDIO_FORMATS, STREAMABLE_FORMATS, bitrate_kbps, content_type
from deployments.messages import (
    EncodeWork,
    NormalisedText,
    OutputParams,
    SynthesisParams,
    SynthesisWork,
)
from deployments.reading import PronunciationRule, ReadingOptions, SsmlText
from deployments.synthesis import VoiceConfig
from deployments.voice_design import Report
from serve_app.http.errors import InvalidRequest
from serve_app.settings import PCM_DEFAULT_RATE, SAMPLE_RATES
from serve_app.speech.admission import Ticket
from serve_app.speech.billing import Bill
from serve_app.speech.vocabulary import SpeechRequest, VoiceOptions
from serve_app.speech.voice_modes import (
    header_value,
)


@dataclass(frozen=True)
class Input:
    """A request's text once checked: what the normaliser reads (an SSML document
    where ``document``, as read once) and how many characters are billed (the ones a
    listener hears)."""

    text: str
    billed: int
    document: SsmlText | None = None

    @property
    def ssml(self) -> bool:
        return self.document is not None

    @property
    def markup(self) -> bool | SsmlText:
        """What the normaliser is told of the text's markup: the document, or none."""
        return self.document if self.document is not None else False


@dataclass(frozen=True)
class BilledText:
    """A text as its voice will be given it, and the characters it is billed for."""

    text: NormalisedText
    characters: int


@dataclass(frozen=True)
class Voicing:
    """Validated choices of voice, language, controls and output format."""

    voice: VoiceConfig
    params: SynthesisParams
    output: OutputParams
    design_report: Report | None = None  # for a built voice
    rules: tuple[PronunciationRule, ...] = ()  # of the request's dictionaries
    reads_text: bool = True  # numbers and symbols read in words (else as written)

    def in_background(self) -> Voicing:
        """This voicing for work no listener waits for (a long-form job's chunks): its
        text read, and its audio spoken, below live requests'."""
        return replace(self, params=replace(self.params, background=True))

    def reading(self, ssml: bool | SsmlText = False) -> ReadingOptions:
        """How this voicing reads a text (``ssml``: the text's SSML document): in its
        language and quality, with its rules, in the background where it speaks there."""
        params = self.params
        return ReadingOptions(
            params.language, params.quality, self.rules, ssml, self.reads_text, params.background
        )

    @property
    def sample_rate(self) -> int:
        return self.output.sample_rate or self.voice.sample_rate

    @property
    def content_type(self) -> str:
        return content_type(self.output.format, self.sample_rate)


@dataclass
class CheckedRequest:
    """A validated, normalised request with a hold on its worst-case cost."""

    request_id: str
    voicing: Voicing
    text: NormalisedText
    bill: Bill
    received_at: float
    ticket: Ticket
    # whether its audio may come from the speech cache (and go into it); once its
    # delivery has begun, what the cache had of it (x-service-cache)
    cacheable: bool = True
    cache: str = "off"

    @property
    def work(self) -> EncodeWork:
        synthesis = SynthesisWork(self.text.segments, self.voicing.params)
        return EncodeWork(synthesis, self.voicing.output)

    def headers(self) -> dict[str, str]:
        headers = {
            "x-service-language": self.text.language,
            "x-service-representation": self.text.representation,
            "x-service-sample-rate": str(self.voicing.sample_rate),
            "x-service-quality": self.voicing.params.quality,
            "x-service-cache": self.cache,
            "cache-control": "no-store",
        }
        if self.voicing.design_report is not None:
            headers["x-service-voice-design"] = header_value(self.voicing.design_report)
        return headers


def default_rate(response_format: str) -> int | None:
    """The rate of a format when the request names none: 24 kHz for pcm, else the
    voice's own (None)."""
    return PCM_DEFAULT_RATE if response_format == "pcm" else None


def speakable(text: NormalisedText) -> bool:
    """Whether ``text`` holds anything a voice says: a letter or a digit. Punctuation
    and symbols alone would be billed as near-silent audio."""
    return any(unicodedata.category(ch)[0] in "LN" for ch in text.text)


def with_alignment(voicing: Voicing, output: OutputParams, phonemes: bool = False) -> Voicing:
    """``voicing`` asking the engine for character alignment (and phoneme timings),
    encoded as ``output``."""
    params = replace(voicing.params, with_alignment=True, with_phonemes=phonemes)
    return replace(voicing, params=params, output=output)


def with_timings(voicing: Voicing, request: SpeechRequest, framed: bool) -> Voicing:
    """``voicing`` with the timings ``request`` gets: on a surface that frames them
    (``framed``: ElevenLabs' with-timestamps), character alignment and, if asked,
    phonemes; elsewhere phonemes only in SSE events, asked for with
    ``phoneme_timestamps`` (400 ``unsupported_feature`` on any other framing)."""
    phonemes = request.phoneme_timestamps
    if phonemes and not framed and not (request.stream and request.stream_format == "sse"):
        raise InvalidRequest(
            "unsupported_feature",
            "Phoneme timings come where timings are sent: SSE events (stream: true, "
            'stream_format: "sse") or the /with-timestamps routes.',
            "phoneme_timestamps",
        )
    if framed:
        return with_alignment(voicing, voicing.output, phonemes)
    if phonemes:
        return replace(voicing, params=replace(voicing.params, with_phonemes=True))
    return voicing


def elapsed_ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000.0, 2)


def output_of(options: VoiceOptions, stream: bool, bitrate: int | None = None) -> OutputParams:
    """How ``options`` want their audio (400 for a format that cannot stream, a rate
    that is not offered or not the format's own); ``bitrate`` (kbps), where a
    surface's format names one, overrides the quality's."""
    if stream and options.response_format not in STREAMABLE_FORMATS:
        raise InvalidRequest(
            "unsupported_format_for_stream",
            f"'{options.response_format}' is only for buffered delivery (stream: false);"
            f" streams carry {', '.join(STREAMABLE_FORMATS)}.",
            "response_format",
        )
    if options.sample_rate is not None and options.sample_rate not in SAMPLE_RATES:
        raise InvalidRequest(
            "invalid_value",
            f"sample_rate must be one of {', '.join(map(str, SAMPLE_RATES))}.",
            "sample_rate",
        )
    fixed_rate = AUDIO_FORMATS[options.response_format].sample_rate
    if fixed_rate and options.sample_rate not in (None, fixed_rate):
        raise InvalidRequest(
            "invalid_value",
            f"'{options.response_format}' is always {fixed_rate} Hz.",
            "sample_rate",
        )
    return OutputParams(
        format=options.response_format,
        sample_rate=options.sample_rate or fixed_rate or default_rate(options.response_format),
        volume=options.volume,
        bitrate_kbps=bitrate or bitrate_kbps(options.response_format, options.quality),
    )
