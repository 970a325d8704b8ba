"""The service's own vocabulary: what a speech request asks for (its text, voice and
options, in the service's terms), what it is billed, the voices it may name and the
text a normalisation preview reads. Every surface maps its wire to these; the
service (this package) speaks nothing else.

These are pydantic models because our own API's bodies are exactly them (the native
surface reads them as they are); other surfaces build them from their own.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeVar

from pydantic import AfterValidator, AliasChoices, BaseModel, ConfigDict, Field

from deployments.synthesis import VOICE_ID_PATTERN
from deployments.voice_design import Report
from serve_app.settings import DEFAULT_MODEL_ID


def _valid_unicode(value: str) -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ValueError("text holds a lone surrogate code point") from e
    return value


UnicodeText = Annotated[str, AfterValidator(_valid_unicode)]


# Generation controls: (lowest, highest, default), the one home of their ranges.
CONTROLS = {"speed": (0.5, 2.0, 1.0), "pitch": (-1.0, 1.0, 0.0), "volume": (0.0, 2.0, 1.0)}


Speed = Annotated[float, Field(ge=CONTROLS["speed"][0], le=CONTROLS["speed"][1])]


Pitch = Annotated[float, Field(ge=CONTROLS["pitch"][0], le=CONTROLS["pitch"][1])]


Volume = Annotated[float, Field(ge=CONTROLS["volume"][0], le=CONTROLS["volume"][1])]


# The wire formats of deployments/encoding/writers.py (a test keeps them equal).
Format = Literal["pcm", "mp3", "wav", "ulaw", "alaw", "opus", "aac", "flac"]


StreamableFormat = Literal["pcm", "mp3", "ulaw", "alaw", "opus", "aac", "flac"]


StreamFormat = Literal["audio", "sse"]


Quality = Literal["fast", "balanced", "high"]


TextNormalization = Annotated[
    Literal["auto", "on", "off"],
    Field(
        description="`off`: the text is cleaned and cut into sentences, but numbers, "
        "dates, money and symbols are left as written for the voice to read as it can "
        "(ElevenLabs' apply_text_normalization); `auto` and `on`: read in words."
    ),
]


MAX_DICTIONARIES_PER_REQUEST = 3


class DictionaryLocator(BaseModel):
    """A project's pronunciation dictionary, at one of its versions (default: its latest)."""

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True)

    id: str = Field(
        validation_alias=AliasChoices("id", "pronunciation_dictionary_id"), max_length=64
    )
    version_id: str | None = Field(None, max_length=64)


Dictionaries = list[DictionaryLocator] | None
DICTIONARIES_FIELD = Field(
    None,
    max_length=MAX_DICTIONARIES_PER_REQUEST,
    description="Up to 3 of the project's pronunciation dictionaries, `{id, version_id}` "
    "(latest when no version_id), their rules applied to the text as written; when the "
    "field is not sent, the project's default dictionaries apply (docs/pronunciation.md).",
)


TextType = Annotated[
    Literal["text", "ssml"],
    Field(
        description="`ssml`: `input` is an SSML document (docs/pronunciation.md); plain text is "
        "never read as markup."
    ),
]


class VoiceOptions(BaseModel):
    """How to speak: the fields a speech request and a WebSocket session share."""

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True)

    model: str = Field(
        DEFAULT_MODEL_ID,
        validation_alias=AliasChoices("model", "model_id"),
        description="A model id from GET /v1/models; `model_id` is accepted too.",
    )
    language: str | None = Field(
        None, description="Language code, tag, name or endonym; default Hindi (`hi`)."
    )
    voice: str = Field("default", description="A registered voice id.")
    response_format: Format = "pcm"
    quality: Quality = "balanced"
    speed: Speed = CONTROLS["speed"][2]
    pitch: Pitch = CONTROLS["pitch"][2]
    volume: Volume = CONTROLS["volume"][2]
    sample_rate: int | None = Field(None, description="8000, 16000, 22050, 24000, 44100, 48000.")
    voice_description: str | None = Field(
        None,
        description="A voice described in words, English or Hindi (docs/voice-modes.md): "
        "'a calm, deep male voice, speaking slowly'.",
    )
    reference_audio: str | None = Field(
        None, description="Base64 WAV of a voice to match, 1-20 s (docs/voice-modes.md)."
    )
    pronunciation_dictionaries: Dictionaries = DICTIONARIES_FIELD
    apply_text_normalization: TextNormalization = "auto"
    seed: int | None = Field(
        None,
        ge=0,
        le=2**32 - 1,
        description="Accepted for clients that send one; it changes nothing: Kokoro voices "
        "are deterministic (the same request gives the same audio), eSpeak NG's differ by "
        "a few milliseconds from one call to the next.",
    )


Options = TypeVar("Options", bound=VoiceOptions)


def preferring(options: Options, voice: str) -> Options:
    """``options`` naming ``voice`` as a preference, not a choice (another API's name
    for one of our voices): the service takes the language's own voice where that one
    does not speak it, as when a request names no voice (SpeechService.choose)."""
    preferred = options.model_copy(update={"voice": voice})
    preferred.__pydantic_fields_set__.discard("voice")
    return preferred


class SpeechRequest(VoiceOptions):
    """Body of POST /v1/audio/speech. Only ``input`` is required; unknown fields are refused."""

    input: UnicodeText = Field(description="Text to speak; 1..4096 characters after NFC.")
    text_type: TextType = "text"
    stream: bool = True
    stream_format: StreamFormat = "audio"
    previous_text: UnicodeText | None = Field(
        None,
        max_length=4096,
        description="The text spoken before this one (the last sentence of a paragraph "
        "sent sentence by sentence): read for prosody, not spoken, not billed "
        "(docs/voice-agents.md).",
    )
    next_text: UnicodeText | None = Field(
        None, max_length=4096, description="The text to be spoken after this one: as above."
    )
    previous_request_ids: list[Annotated[str, Field(max_length=128)]] | None = Field(
        None,
        max_length=3,
        description="Ids (x-request-id) of this project's own earlier requests whose "
        "text comes before this one, in place of previous_text.",
    )
    next_request_ids: list[Annotated[str, Field(max_length=128)]] | None = Field(
        None, max_length=3, description="As previous_request_ids, for the text after."
    )
    cache: bool = Field(
        True,
        description="Whether its audio may come from the speech cache, and go into it "
        "(the project's earlier requests of the same sentences, voice and controls; "
        "docs/speech-cache.md). x-service-cache says what the cache had of it.",
    )
    phoneme_timestamps: bool = Field(
        False,
        description="With stream_format `sse`: each audio.delta carries the phonemes its "
        "audio says (IPA, start and duration in ms from the chunk's start, the input's "
        "offsets of their word) and visemes (docs/voice-agents.md).",
    )


class VoiceRecord(BaseModel):
    id: str
    name: str
    languages: list[str]
    gender: str
    sample_rate: int
    engine: str
    modes: list[str]
    custom: bool | None = Field(
        default=None, description="True for a voice of the caller's project (POST /v1/voices)."
    )
    design: Report | None = Field(
        default=None,
        description="A custom voice's blend and speed, as x-service-voice-design says.",
    )


class CustomVoiceRequest(BaseModel):
    """Body of POST /v1/voices: a voice of the project's own, built from a description
    or a reference recording, saved under ``id`` (saving an id again replaces it)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    id: str = Field(pattern=VOICE_ID_PATTERN)
    name: str | None = Field(None, max_length=100)
    language: str | None = None
    voice: str = Field("default", description="The voice (and so the engine) to build from.")
    voice_description: str | None = None
    reference_audio: str | None = None


class RequestUsage(BaseModel):
    """What one request was billed for (SSE ``audio.done``, headers, WebSocket)."""

    characters: int
    audio_ms: int
    cost_deci_micros: int


class NormalizeRequest(BaseModel):
    """Body of POST /v1/text/normalize: the text and language fields of a speech request."""

    model_config = ConfigDict(extra="forbid", strict=True)

    input: UnicodeText
    text_type: TextType = "text"
    language: str | None = None
    quality: Quality = "balanced"
    pronunciation_dictionaries: Dictionaries = DICTIONARIES_FIELD
    apply_text_normalization: TextNormalization = "auto"
