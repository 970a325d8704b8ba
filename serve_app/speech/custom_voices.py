"""A project's own voices: a description or reference result saved under a voice id.

``POST /v1/voices`` builds the voice exactly as a speech request with
``voice_description`` or ``reference_audio`` would (``SpeechService.choose``) and
saves what it became: the registered voices of the blend and their weights, speed,
pitch, variant, range. A speech request (or a WebSocket path) naming that id with a
key of the project speaks it; no other project sees it. The definition names
registered voices, so it stays the same voice across calls and restarts.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel, ConfigDict

from deployments.messages import VoiceDesign
from deployments.voice_design import Report
from serve_app.accounts import AccountStore
from serve_app.http.errors import NotFound
from serve_app.speech.catalog import Catalog
from serve_app.speech.vocabulary import VoiceRecord

MAX_VOICES_PER_PROJECT = 100


class CustomVoice(BaseModel):
    """What a saved voice is: stored as JSON, one row per project and id."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    id: str
    name: str
    engine: str
    base: str  # the registered voice it was built from (its engine and sample rate)
    language: str
    gender: str
    sample_rate: int
    blend: list[tuple[str, float]]
    variant: str | None = None
    pitch_range: float = 0.0
    speed: float = 1.0
    pitch: float = 0.0
    source: str  # "description" or "reference"
    report: Report

    @property
    def design(self) -> VoiceDesign:
        return VoiceDesign(
            blend=tuple((voice, weight) for voice, weight in self.blend),
            variant=self.variant,
            pitch_range=self.pitch_range,
        )

    def record(self) -> VoiceRecord:
        return VoiceRecord(
            id=self.id,
            name=self.name,
            languages=[self.language],
            gender=self.gender,
            sample_rate=self.sample_rate,
            engine=self.engine,
            modes=["preset"],
            custom=True,
            design=self.report,
        )


def blend_gender(blend: list[tuple[str, float]], catalog: Catalog) -> str:
    """The gender holding most of a blend's weight."""
    weights: dict[str, float] = {}
    for voice_id, weight in blend:
        voice = catalog.voice(voice_id)
        gender = voice.gender if voice is not None else "neutral"
        weights[gender] = weights.get(gender, 0.0) + weight
    return max(weights, key=lambda g: weights[g])


class CustomVoices:
    """The projects' own voices, in the accounts database."""

    def __init__(self, store: AccountStore) -> None:
        self._store = store
        # told the project whose voices changed (the speech cache forgets its audio)
        self.on_change: list[Callable[[str], None]] = []

    async def get(self, project_id: str, voice_id: str) -> CustomVoice | None:
        stored = await self._store.call(self._store.project_voice, project_id, voice_id)
        return CustomVoice.model_validate_json(stored) if stored is not None else None

    async def all(self, project_id: str) -> list[CustomVoice]:
        rows = await self._store.call(self._store.project_voices, project_id)
        return [CustomVoice.model_validate_json(definition) for _, definition in rows]

    async def save(self, project_id: str, voice: CustomVoice) -> bool:
        """False when the project has its limit of voices and this id is new."""
        saved: bool = await self._store.call(
            self._store.save_voice,
            project_id,
            voice.id,
            voice.model_dump_json(),
            MAX_VOICES_PER_PROJECT,
        )
        self._changed(project_id)
        return saved

    async def delete(self, project_id: str, voice_id: str) -> bool:
        deleted: bool = await self._store.call(self._store.delete_voice, project_id, voice_id)
        self._changed(project_id)
        return deleted

    def _changed(self, project_id: str) -> None:
        for listener in self.on_change:
            listener(project_id)

    async def listed(self, catalog: Catalog, project_id: str | None) -> list[VoiceRecord]:
        """The public voices, and ``project_id``'s own after them."""
        records = catalog.voice_records()
        if project_id is not None:
            records.extend(v.record() for v in await self.all(project_id))
        return records

    async def record(self, catalog: Catalog, voice_id: str, project_id: str | None) -> VoiceRecord:
        """A public voice, or one of ``project_id``'s own (404 ``voice_not_found``)."""
        for record in catalog.voice_records():
            if record.id == voice_id:
                return record
        custom = await self.get(project_id, voice_id) if project_id else None
        if custom is None:
            raise NotFound("voice_not_found", f"No voice '{voice_id}'.", "voice_id")
        return custom.record()

    async def remove(self, project_id: str, voice_id: str) -> None:
        """Delete one of the project's voices (404 ``voice_not_found`` if it has none so
        called)."""
        if not await self.delete(project_id, voice_id):
            raise NotFound(
                "voice_not_found", f"Your project has no voice '{voice_id}'.", "voice_id"
            )
