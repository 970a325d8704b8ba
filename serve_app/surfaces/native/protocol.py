"""Wire models: request bodies, response bodies and SSE event payloads, in one place."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, AliasChoices, BaseModel, ConfigDict, Field

from deployments.synthesis.voices import VOICE_ID_PATTERN
from deployments.voice_design.description import Report
from serve_app.accounts import Usage
from serve_app.settings import DEFAULT_MODEL_ID
from serve_app.surfaces.websocket.text_buffer import DEFAULT_SCHEDULE


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
    "field is not sent, the project's default dictionaries apply (README 'Pronunciation "
    "dictionaries').",
)


TextType = Annotated[
    Literal["text", "ssml"],
    Field(
        description="`ssml`: `input` is an SSML document (README 'SSML'); plain text is "
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
        description="A voice described in words, English or Hindi (README 'Voice modes'): "
        "'a calm, deep male voice, speaking slowly'.",
    )
    reference_audio: str | None = Field(
        None, description="Base64 WAV of a voice to match, 1-20 s (README 'Voice modes')."
    )
    pronunciation_dictionaries: Dictionaries = DICTIONARIES_FIELD
    apply_text_normalization: TextNormalization = "auto"
    seed: int | None = Field(
        None,
        ge=0,
        le=2**32 - 1,
        description="Accepted for clients that send one: every voice here is "
        "deterministic (the same request gives the same audio), so it changes nothing.",
    )


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
        "(README 'Continuity across requests').",
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
    phoneme_timestamps: bool = Field(
        False,
        description="With stream_format `sse`: each audio.delta carries the phonemes its "
        "audio says (IPA, start and duration in ms from the chunk's start, the input's "
        "offsets of their word) and visemes (README 'Phoneme timings and visemes').",
    )


class HealthStatus(BaseModel):
    status: Literal["ok"] = "ok"


class ModelEntry(BaseModel):
    id: str
    object: Literal["model"] = "model"
    owned_by: str


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelEntry]


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


class VoiceList(BaseModel):
    object: Literal["list"] = "list"
    data: list[VoiceRecord]


class PipelineStage(BaseModel):
    """Where a stage runs ("deployment", "ingress", or "deployment; espeak in the
    ingress") and its running replicas (a stage in the ingress runs in each)."""

    placement: str
    replicas: int | None


class EngineStatus(BaseModel):
    name: str
    modes: list[str] = Field(default_factory=list)
    device: str
    sample_rate: int
    voices: list[str]
    controls: list[str]
    alignment: bool
    state: Literal["running", "scaled_to_zero"] = Field(
        "running",
        description="scaled_to_zero: its Synthesiser deployment has no replica while idle "
        "(what its last replica had loaded is shown); the next request starts one and "
        "waits for it.",
    )
    stats: dict[str, Any] = Field(default_factory=dict, description="Engine counters.")


class ReplicaStatus(BaseModel):
    """The ingress replica that answered: what it holds open now (leaks show here)."""

    asyncio_tasks: int
    open_fds: int
    threads: int
    active_requests: int
    warm_up_s: float | None = Field(
        default=None,
        description="Seconds this replica spent serving its warm-up request before it "
        "took any (None: not warmed up, or the warm-up failed).",
    )


class Readiness(BaseModel):
    status: Literal["ready"] = "ready"
    model: str
    sample_rate: int
    languages: list[str]
    voices: list[str]
    loras: list[str]
    stream_formats: list[str]
    modes: list[str]
    language_policy_version: str
    pipeline: dict[str, PipelineStage]
    engines: list[EngineStatus]
    replica: ReplicaStatus | None = None


class UsageTotals(BaseModel):
    requests: int
    characters: int
    audio_ms: int
    spent_deci_micros: int


class UsageResponse(BaseModel):
    balance_deci_micros: int
    usage: UsageTotals

    @classmethod
    def of(cls, usage: Usage) -> UsageResponse:
        """The API's usage object for a project's ledger totals."""
        return cls(
            balance_deci_micros=usage.balance,
            usage=UsageTotals(
                requests=usage.requests,
                characters=usage.characters,
                audio_ms=usage.audio_ms,
                spent_deci_micros=usage.spent,
            ),
        )


class RequestUsage(BaseModel):
    """What one request was billed for (SSE ``audio.done``, headers, WebSocket)."""

    characters: int
    audio_ms: int
    cost_deci_micros: int


class AudioDelta(BaseModel):
    type: Literal["audio.delta"] = "audio.delta"
    index: int
    delta: str
    ttfa_ms: float | None = None
    phonemes: dict[str, list[str] | list[int]] | None = None
    visemes: dict[str, list[str] | list[int]] | None = None


class AudioDone(BaseModel):
    type: Literal["audio.done"] = "audio.done"
    chunks: int
    usage: RequestUsage


class ErrorInfo(BaseModel):
    message: str
    type: str
    code: str
    param: str | None
    request_id: str


class ErrorResponse(BaseModel):
    error: ErrorInfo


class WsVoiceSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    speed: Speed = CONTROLS["speed"][2]
    pitch: Pitch = CONTROLS["pitch"][2]
    volume: Volume = CONTROLS["volume"][2]


class WsGenerationConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    chunk_length_schedule: list[Annotated[int, Field(ge=1, le=1000)]] = Field(
        default_factory=lambda: list(DEFAULT_SCHEDULE), min_length=1, max_length=10
    )


FlushId = Annotated[
    str | None,
    Field(
        max_length=128,
        description="Names a flush: once the last audio of the text it flushed is sent, "
        '`{"flushDone": true, "flushId": ...}` follows.',
    ),
]


class WsInputMessage(BaseModel):
    """A client frame. The first may carry settings and the key; then text, flush, end.
    ``text`` is required but in a ``clear``."""

    model_config = ConfigDict(extra="forbid", strict=True)

    text: UnicodeText | None = None
    voice_settings: WsVoiceSettings | None = None
    generation_config: WsGenerationConfig | None = None
    authorization: str | None = None
    flush: bool = False
    flush_id: FlushId = None
    clear: bool = False
    try_trigger_generation: bool = False
    pronunciation_dictionaries: Dictionaries = DICTIONARIES_FIELD


class WsQuery(BaseModel):
    """Query parameters of the WebSocket URL (never the key)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    language: str | None = None
    response_format: StreamableFormat = "pcm"
    sample_rate: int | None = None
    quality: Quality = "balanced"
    model: str = Field(DEFAULT_MODEL_ID, validation_alias=AliasChoices("model", "model_id"))
    inactivity_timeout: float = Field(20.0, gt=0, le=180)
    text_type: TextType = "text"
    phoneme_timestamps: bool = False
    auto_mode: bool = False
    apply_text_normalization: TextNormalization = "auto"
    # alignment in the message of its own audio: always so here (ElevenLabs' choice)
    sync_alignment: bool = True


class WsAudioMessage(BaseModel):
    audio: str
    isFinal: Literal[False] = False
    index: int
    alignment: dict[str, list[str] | list[int]] | None


class WsFinalMessage(BaseModel):
    isFinal: Literal[True] = True
    usage: RequestUsage
