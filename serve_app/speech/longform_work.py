"""The work of long-form jobs: a process claims a chunk (the accounts database hands
each to one process at a time), speaks it whole as a buffered request of the job's
settings would be spoken, with its chapter's text around it read as context, stores
its audio, and marks it done, charged, in one transaction.

A chunk is background work: no listener waits for its first audio, so every one of
its segments waits behind live streams' first segments, and the project takes its
turn in the Synthesiser's queues like any other.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

from deployments.messages import EncodeJob, SynthesisJob
from serve_app.accounts import AccountStore
from serve_app.accounts.longform import ClaimedChunk
from serve_app.speech.billing import Meter
from serve_app.speech.continuity import in_context
from serve_app.speech.service import SpeechService
from serve_app.speech.vocabulary import VoiceOptions


@dataclass(frozen=True)
class Rendered:
    """A chunk spoken whole."""

    audio: bytes
    characters: int  # billed: what a listener hears
    audio_ms: int


def chunk_path(root: Path, job_id: str, index: int) -> Path:
    """Where a chunk's audio is kept: a folder per job, a file per chunk."""
    return root / job_id / f"{index:06d}"


class ChunkSpeaker:
    """Speaks claimed chunks with ``service`` and keeps their audio under ``root``."""

    def __init__(
        self, service: SpeechService, store: AccountStore, meter: Meter, root: Path
    ) -> None:
        self._service = service
        self._store = store
        self._meter = meter
        self._root = root

    async def render(self, chunk: ClaimedChunk) -> Rendered:
        """``chunk`` spoken as its job's settings ask."""
        service = self._service
        options = VoiceOptions.model_validate_json(chunk.settings)
        voicing = await service.choose(options, False, chunk.project_id)
        voicing = replace(voicing, params=replace(voicing.params, background=True))
        reading = await service.read(await service.check_input(chunk.text, "text"), voicing)
        if reading is None:
            return Rendered(b"", 0, 0)
        text = await in_context(reading.text, chunk.before, chunk.after, service.pipeline, voicing)
        job = EncodeJob(SynthesisJob(text.segments, voicing.params), voicing.output)
        audio, samples = bytearray(), 0
        async for encoded in service.pipeline.encode(job):
            audio += encoded.data
            samples += encoded.audio_samples
        return Rendered(bytes(audio), reading.characters, samples * 1000 // voicing.sample_rate)

    async def speak(self, chunk: ClaimedChunk) -> bool:
        """Speak ``chunk``, store its audio and mark it done, charged; False where the
        claim was lost meanwhile (the job cancelled, the lease run out): then nothing
        is charged, and the audio, if written, is another claim's to overwrite."""
        rendered = await self.render(chunk)
        path = chunk_path(self._root, chunk.job_id, chunk.index)
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.part")
        partial.write_bytes(rendered.audio)
        partial.replace(path)  # whole or absent: a reader never sees half a chunk
        cost = self._meter.cost(rendered.characters, delivered=False)
        return await self._store.call(
            self._store.complete_chunk,
            chunk.job_id,
            chunk.index,
            rendered.characters,
            rendered.audio_ms,
            cost,
        )
