"""Our discovery bodies (GET /ready, /v1/models, /v1/capabilities) rendered from the
service's :class:`~serve_app.speech.catalog.Catalog`."""

from __future__ import annotations

from typing import get_args

from deployments.encoding import AUDIO_FORMATS, STREAMABLE_FORMATS, content_type
from deployments.normaliser import FULL_RULES, number_languages
from deployments.synthesis import VISEMES
from serve_app.settings import PCM_DEFAULT_RATE, REFERENCE_LIMITS, SAMPLE_RATES
from serve_app.speech.catalog import Catalog
from serve_app.speech.vocabulary import CONTROLS, Quality
from serve_app.surfaces.native.capabilities import (
    AudioFormatInfo,
    Capabilities,
    ControlChoices,
    ControlRange,
    GenerationControls,
    Limits,
    Modelling,
    PhonemeTimestampsInfo,
    StreamingInfo,
    TextNormalizationInfo,
    UnavailableFeature,
    WebSocketInfo,
)
from serve_app.surfaces.native.protocol import (
    EngineStatus,
    ModelEntry,
    ModelList,
    PipelineStage,
    Readiness,
)

STREAM_FORMATS = ("audio", "sse")


UNAVAILABLE = {
    "description": "voice_description: no loaded engine builds a voice from a description.",
    "reference": "reference_audio: no loaded engine matches a voice to reference audio.",
}


def models(catalog: Catalog) -> ModelList:
    return ModelList(
        data=[ModelEntry(id=catalog.config.model_id, owned_by=catalog.config.model_owner)]
    )


def readiness(catalog: Catalog) -> Readiness:
    """The readiness report: only what GET /v1/voices may show (no private voice)."""
    public = {v.id for v in catalog.public_voices()}
    return Readiness(
        model=catalog.config.model_id,
        sample_rate=catalog.default_sample_rate(),
        languages=catalog.languages(),
        voices=[v.id for v in catalog.public_voices()],
        loras=catalog.loras(),
        stream_formats=list(STREAM_FORMATS),
        modes=catalog.modes(),
        language_policy_version=catalog.policy.version,
        pipeline={
            stage: PipelineStage(
                placement=where,
                replicas=catalog.replicas.get(
                    stage if where.startswith("deployment") else "Ingress"
                ),
            )
            for stage, where in {"Ingress": "deployment", **catalog.stages}.items()
        },
        engines=[
            EngineStatus(
                name=i.name,
                device=i.device,
                sample_rate=i.sample_rate,
                voices=[v for v in i.voices if v in public],
                modes=list(i.modes),
                controls=list(i.controls),
                alignment=i.alignment,
                state="scaled_to_zero" if i.name in catalog.scaled_to_zero else "running",
                stats=dict(i.extra),
            )
            for i in catalog.engines.values()
        ],
    )


def capabilities(catalog: Catalog) -> Capabilities:
    modes = catalog.modes()
    return Capabilities(
        models=[catalog.config.model_id],
        streaming=streaming(catalog),
        audio_formats=audio_formats(),
        sample_rates=list(SAMPLE_RATES),
        default_sample_rate=catalog.default_sample_rate(),
        modelling=Modelling(
            modes=modes,
            loras=catalog.loras(),
            engines=catalog.mode_engines(),
            reference_audio=REFERENCE_LIMITS,
        ),
        generation_controls=generation_controls(catalog),
        languages=catalog.languages(),
        default_language=catalog.policy.default,
        default_voice="default",
        voices=catalog.voice_records(),
        text_normalization=TextNormalizationInfo(
            endpoint="/v1/text/normalize",
            numbers=number_languages(),
            full_reading_rules=list(FULL_RULES),
            romanised_hindi=True,
        ),
        phoneme_timestamps=phoneme_timestamps(catalog),
        language_policy_version=catalog.policy.version,
        unavailable=[
            UnavailableFeature(feature=feature, reason=reason)
            for feature, reason in UNAVAILABLE.items()
            if feature not in modes
        ],
        limits=Limits(
            max_input_characters=catalog.config.max_input_chars,
            max_body_bytes=catalog.config.max_body_bytes,
        ),
    )


def streaming(catalog: Catalog) -> StreamingInfo:
    """The transports and what each streams."""
    return StreamingInfo(
        transports=["http_chunked", "sse", "websocket"],
        websocket=WebSocketInfo(
            path="/v1/audio/speech/stream-input/{voice_id}",
            protocol="elevenlabs-stream-input",
            formats=list(STREAMABLE_FORMATS),
            alignment_engines=sorted(
                name for name, info in catalog.engines.items() if info.alignment
            ),
        ),
        stream_formats=list(STREAM_FORMATS),
        default_stream_format="audio",
        sse_content_type="text/event-stream",
        sse_events=["audio.delta", "audio.done", "error"],
    )


def audio_formats() -> list[AudioFormatInfo]:
    return [
        AudioFormatInfo(
            format=f.name,
            content_type=content_type(f.name, "{sample_rate}"),
            encoding=f.encoding,
            streamed=f.streamed,
            sample_rate=f.sample_rate,
            bitrates_kbps=dict(f.bitrates_kbps) if f.bitrates_kbps else None,
        )
        for f in AUDIO_FORMATS.values()
    ]


def generation_controls(catalog: Catalog) -> GenerationControls:
    """Each control's range and default (pitch: the engines that honour it)."""
    controls = {
        control: ControlRange(
            min=low,
            max=high,
            default=default,
            # pitch is the control only some engines honour
            engines=catalog.engines_with(control) if control == "pitch" else None,
        )
        for control, (low, high, default) in CONTROLS.items()
    }
    return GenerationControls(
        **controls,
        quality=ControlChoices(values=list(get_args(Quality)), default="balanced"),
        sample_rate=ControlChoices(
            values=list(SAMPLE_RATES),
            default=f"{PCM_DEFAULT_RATE} for pcm, else the voice's native rate",
        ),
    )


def phoneme_timestamps(catalog: Catalog) -> PhonemeTimestampsInfo:
    return PhonemeTimestampsInfo(
        engines=sorted(name for name, info in catalog.engines.items() if info.phonemes),
        voices_without=[
            v.id
            for v in catalog.public_voices()
            if not (info := catalog.engines.get(v.engine)) or not info.phonemes
        ],
        visemes=list(VISEMES),
    )
