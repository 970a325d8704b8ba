"""Saving a project's own voice: built exactly as a speech request would build it
(:meth:`SpeechService.choose`), then kept under the id the client chose."""

from __future__ import annotations

from serve_app.http.errors import InvalidRequest
from serve_app.speech.custom_voices import MAX_VOICES_PER_PROJECT, CustomVoice, blend_gender
from serve_app.speech.service import SpeechService
from serve_app.speech.vocabulary import CustomVoiceRequest, VoiceOptions


async def save_voice(
    speech: SpeechService, body: CustomVoiceRequest, project_id: str
) -> CustomVoice:
    """Build the voice ``body`` describes or matches, as a speech request would, and
    save it as ``project_id``'s own under ``body.id``. Admitted like speech (503
    past capacity): analysing a reference takes CPU."""
    ticket = speech.admission.enter()
    try:
        return await _save_voice(speech, body, project_id)
    finally:
        ticket.release()


async def _save_voice(
    speech: SpeechService, body: CustomVoiceRequest, project_id: str
) -> CustomVoice:
    catalog = await speech.catalog()
    if catalog.voice(body.id) is not None:
        raise InvalidRequest(
            "invalid_value", f"'{body.id}' is a registered voice; choose another id.", "id"
        )
    if body.voice_description is None and body.reference_audio is None:
        raise InvalidRequest(
            "missing_field",
            "A custom voice needs voice_description or reference_audio.",
            "voice_description",
        )
    fields = body.model_dump(
        include={"language", "voice", "voice_description", "reference_audio"},
        exclude_unset=True,
    )
    voicing = await speech.choose(VoiceOptions.model_validate(fields), stream=False)
    design = voicing.params.design
    assert design is not None and voicing.design_report is not None
    voice = CustomVoice(
        id=body.id,
        name=body.name or body.id,
        engine=voicing.voice.engine,
        base=voicing.voice.id,
        language=voicing.params.language,
        gender=blend_gender(list(design.blend), catalog),
        sample_rate=voicing.voice.sample_rate,
        blend=list(design.blend),
        variant=design.variant,
        pitch_range=design.pitch_range,
        speed=voicing.params.speed,
        pitch=voicing.params.pitch,
        source="description" if body.voice_description is not None else "reference",
        report=voicing.design_report,
    )
    if not await speech.voices.save(project_id, voice):
        raise InvalidRequest(
            "too_many_voices",
            f"A project keeps at most {MAX_VOICES_PER_PROJECT} voices; delete one first.",
            "id",
        )
    return voice
