"""The work of long-form jobs: a process claims a chunk (the accounts database hands
each to one process at a time), speaks it whole as a buffered request of the job's
settings would be spoken, with its chapter's text around it read with it, stores
its audio, and marks it done, charged, in one transaction.

A chunk is background work: no listener waits for any of its audio, so every one of
its segments waits behind live streams' segments, first and later, and is spoken on
workers of its own at the OS's idle priority (``deployments.synthesis.scheduler``);
among jobs, projects take their turns.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from deployments.messages import EncodeWork, SynthesisWork
from deployments.reading import PronunciationRule
from serve_app.accounts import AccountStore
from serve_app.accounts.longform.claims import ClaimedChunk, Completion
from serve_app.http.errors import InvalidRequest, ServiceError
from serve_app.speech.audio_store import AudioStore
from serve_app.speech.billing import Meter
from serve_app.speech.checked import BilledText, Input, Voicing
from serve_app.speech.continuity import surroundings
from serve_app.speech.longform import idle_waits
from serve_app.speech.longform.audio import JOB_FILES, JobSettings, chunk_key
from serve_app.speech.longform.idle_waits import IdleWait, Wakeup
from serve_app.speech.service import SpeechService
from serve_app.speech.vocabulary import VoiceOptions

logger = logging.getLogger(__name__)
# A chunk that fails this many times fails its job (its error is the job's). A process
# lost mid-chunk is not the chunk's failure: its lease runs out and another takes it.
MAX_ATTEMPTS = 3
# A failed chunk is tried again after this long: a stage that died has time to restart.
RETRY_AFTER_S = 5.0
# A chunk's claim lasts this long, renewed every third of it while the chunk is spoken:
# a process lost mid-chunk holds it back this long at most.
LEASE_S = 60.0
# Silence a job's SSML asks for (breaks, paragraph ends) is billed as the speech it
# stands in for: this many characters a second of it (Hindi's pace). Else a character
# and a <break> made ten seconds of audio, and a job's audio had no bound in its price.
PAUSE_CHARACTERS_PER_S = 15
# The most audio a chunk may make for each character it is billed: speech at the
# slowest speed and rate is about a quarter of a second; more is a chunk that fails
# its job, not audio stored and served.
MAX_AUDIO_MS_PER_CHARACTER = 500
# ... and for a chunk of few characters, at least this much.
MIN_AUDIO_ALLOWED_MS = 5_000
# How often a chunk being spoken looks whether its claim still holds: a job cancelled
# or deleted stops its chunks' synthesis within this long.
CLAIM_CHECK_S = 0.5
# The voices of this many jobs kept by a speaker, the latest used: a job's voice is
# chosen (a custom voice read, a reference analysed, its dictionaries found) once,
# not for each chunk, and speaks every chunk alike.
VOICINGS_KEPT = 32
# Claims being given back by workers that were stopped.
_RELEASING: set[asyncio.Future[None]] = set()


@dataclass(frozen=True)
class Rendered:
    """A chunk spoken whole."""

    audio: bytes
    characters: int  # billed: what a listener hears
    audio_ms: int


def job_characters(given: Input, said: BilledText) -> int:
    """What a chunk is billed for: the characters heard, and its SSML's silence at
    :data:`PAUSE_CHARACTERS_PER_S`."""
    paused_ms = sum(p.ms for p in given.document.pauses) if given.document is not None else 0
    return said.characters + paused_ms * PAUSE_CHARACTERS_PER_S // 1000


def most_audio_ms(characters: int) -> int:
    """The most audio a chunk billed ``characters`` may make."""
    return max(MIN_AUDIO_ALLOWED_MS, characters * MAX_AUDIO_MS_PER_CHARACTER)


class TooMuchAudio(InvalidRequest):
    """A chunk made more audio than its price allows: its job fails at once."""

    def __init__(self, audio_ms: int, characters: int) -> None:
        super().__init__(
            "audio_too_long",
            f"A chunk made {audio_ms / 1000:.1f} s of audio for {characters} characters; "
            f"a job makes at most {MAX_AUDIO_MS_PER_CHARACTER / 1000:g} s a character.",
            "input",
        )


class ChunkSpeaker:
    """Speaks claimed chunks with ``service`` and keeps their audio in ``audio``."""

    def __init__(
        self,
        service: SpeechService,
        store: AccountStore,
        meter: Meter,
        audio: AudioStore,
        when_done: Callable[[str, str], Awaitable[object]] | None = None,
    ) -> None:
        """``when_done(job_id, project_id)``: run beside the lanes once the chunk spoken
        here was its job's last (the job's whole file made then, not when first asked
        for, while the lane that spoke the chunk takes the next)."""
        self._service = service
        self._store = store
        self._meter = meter
        self._audio = audio
        self._when_done = when_done
        self._ending: set[asyncio.Task[None]] = set()  # the loop holds tasks weakly
        self._voicings: OrderedDict[str, Voicing] = OrderedDict()  # by job id

    async def render(self, chunk: ClaimedChunk) -> Rendered:
        """``chunk`` spoken as its job's settings ask."""
        service = self._service
        settings = JobSettings.model_validate_json(chunk.settings)
        voicing = await self._voicing(chunk, settings)
        given = await service.check_input(chunk.text, "ssml" if settings.markup else "text")
        said = await service.read(given, voicing, around=surroundings(chunk.before, chunk.after))
        if said is None:
            return Rendered(b"", 0, 0)
        characters = job_characters(given, said)
        # kept as PCM: the job's format is made when its audio is read (job_audio), as
        # one stream (MP3 frames of separate encoders, WAV headers do not concatenate)
        pcm = replace(voicing.output, format="pcm", sample_rate=voicing.sample_rate)
        work = EncodeWork(SynthesisWork(said.text.segments, voicing.params), pcm)
        audio, samples = bytearray(), 0
        # a job of prompts speaks through the speech cache, and keeps them there; a
        # book's chunks are each read once, with the text around them: not kept
        spoken = service.encode(work, voicing, settings.cache)
        async with contextlib.aclosing(spoken) as stream:
            async for encoded in stream:  # closed when cancelled: the synthesis stops
                audio += encoded.data
                samples += encoded.audio_samples
        if settings.cache and service.cache is not None:
            # done once every replica can hear its prompt: kept in the shared store too
            await service.cache.settled()
        audio_ms = samples * 1000 // voicing.sample_rate
        if audio_ms > most_audio_ms(characters):
            raise TooMuchAudio(audio_ms, characters)
        return Rendered(bytes(audio), characters, audio_ms)

    async def _voicing(self, chunk: ClaimedChunk, settings: JobSettings) -> Voicing:
        """The voice ``chunk``'s job speaks in, chosen for its first chunk spoken here."""
        voicing = self._voicings.get(chunk.job_id)
        if voicing is not None:
            self._voicings.move_to_end(chunk.job_id)
            return voicing
        options = VoiceOptions.model_validate_json(settings.options)
        if settings.rules is not None:  # its dictionaries as they were: not looked up again
            options = options.model_copy(update={"pronunciation_dictionaries": []})
        chosen = await self._service.choose(options, False, chunk.project_id)
        if settings.rules is not None:
            pinned = tuple(PronunciationRule(**rule) for rule in settings.rules)
            chosen = replace(chosen, rules=pinned)
        voicing = chosen.in_background()
        self._voicings[chunk.job_id] = voicing
        while len(self._voicings) > VOICINGS_KEPT:
            self._voicings.popitem(last=False)
        return voicing

    async def speak(self, chunk: ClaimedChunk) -> Completion:
        """Speak ``chunk``, store its audio and mark it done, charged (``JOB_DONE`` if
        it was the job's last); false where the claim was lost meanwhile (the job
        cancelled or deleted, the lease run out): then nothing is charged and its audio
        is not part of the job."""
        rendered = await self.render(chunk)
        store = self._store
        # written only under a claim still held: a claim that lapsed meanwhile (another
        # process speaks the chunk now, or has) never overwrites that one's audio
        if not await store.call(store.renew_claim, chunk.job_id, chunk.index, LEASE_S):
            return Completion.LOST
        key = chunk_key(chunk.job_id, chunk.index)
        await asyncio.get_running_loop().run_in_executor(
            JOB_FILES, self._audio.put, key, rendered.audio
        )
        # a job is one request: its first chunk carries the per-request price
        cost = self._meter.cost(rendered.characters, delivered=chunk.index == 0)
        completion = await self._store.call(
            self._store.complete_chunk,
            chunk.job_id,
            chunk.index,
            rendered.characters,
            rendered.audio_ms,
            cost,
        )
        if completion is Completion.JOB_GONE:
            # the job was deleted meanwhile: what was written for it goes too
            await asyncio.to_thread(self._audio.delete_job, chunk.job_id)
        elif completion is Completion.JOB_DONE and self._when_done is not None:
            ending = asyncio.create_task(self._end(chunk.job_id, chunk.project_id))
            self._ending.add(ending)
            ending.add_done_callback(self._ending.discard)
        return completion

    async def _end(self, job_id: str, project_id: str) -> None:
        assert self._when_done is not None
        try:
            await self._when_done(job_id, project_id)
        except Exception:  # the job stays done: its audio is made when asked for
            logger.exception("making job %s's audio failed", job_id)


class JobWorker:
    """Claims chunks of long-form jobs and speaks them, ``at_once`` at a time, until
    cancelled: one per ingress replica, so that every replica's Synthesisers work."""

    def __init__(
        self,
        speaker: ChunkSpeaker,
        store: AccountStore,
        at_once: int,
        owner_lease_s: float,
        lease_s: float = LEASE_S,
        idle_s: float = idle_waits.FIRST_S,
        retry_after_s: float = RETRY_AFTER_S,
        wakeup: Wakeup | None = None,
        most_idle_s: float = idle_waits.MOST_S,
        ended: Wakeup | None = None,
        check_s: float = CLAIM_CHECK_S,
    ) -> None:
        """``owner_lease_s``: how long a process may go without heartbeating before its
        claims are anyone's (the holds' lease); ``wakeup``: woken when this process
        submits a job (its lanes look at once, not after their rest; a job submitted to
        another replica is found within ``most_idle_s``); ``ended``: woken here when a
        job this worker spoke ends (its webhook's sender looks at once)."""
        self._speaker = speaker
        self._store = store
        self._at_once = at_once
        self._owner_lease_s = owner_lease_s
        self._lease_s = lease_s
        self._wakeup = wakeup or Wakeup()
        self._ended = ended or Wakeup()
        self._idle_s = (idle_s, most_idle_s)  # each lane's IdleWait
        self._retry_after_s = retry_after_s
        self._check_s = check_s

    async def run(self) -> None:
        await asyncio.gather(*(self._lane() for _ in range(self._at_once)))

    async def _lane(self) -> None:
        idle = IdleWait(self._wakeup, *self._idle_s)
        while True:
            try:
                store = self._store
                chunk = await store.call(store.claim_chunk, self._lease_s, self._owner_lease_s)
            except Exception:  # the database away a moment: the lane waits, not ends
                logger.exception("claiming a long-form chunk failed; retrying")
                chunk = None
            if chunk is None:
                await idle.rest()
            else:
                idle.found()
                await self.work(chunk)

    async def work(self, chunk: ClaimedChunk) -> None:
        """Speak one claimed chunk, its claim kept while it takes long and looked at
        every :data:`CLAIM_CHECK_S`: a claim lost meanwhile (the job cancelled or
        deleted) stops the chunk's synthesis there. A failure puts it back for another
        try, or fails its job (:data:`MAX_ATTEMPTS`)."""
        speaking = asyncio.ensure_future(self._speaker.speak(chunk))
        try:
            if not await self._held_while(chunk, speaking):
                speaking.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await speaking
                logger.info("chunk %s/%s stopped: its claim was lost", chunk.job_id, chunk.index)
                return
            if speaking.result() is Completion.JOB_DONE:
                self._ended.wake()
        except asyncio.CancelledError:  # stopping: the chunk is another process's at once
            speaking.cancel()
            store = self._store
            release = asyncio.ensure_future(
                store.call(store.release_claim, chunk.job_id, chunk.index)
            )
            _RELEASING.add(release)  # the loop holds tasks weakly
            release.add_done_callback(_RELEASING.discard)
            await asyncio.shield(release)
            raise
        except Exception as e:
            # what the job says to its owner: the API's message, never an internal one
            error = f"{e.code}: {e}" if isinstance(e, ServiceError) else "internal error"
            logger.warning("chunk %s/%s failed: %r", chunk.job_id, chunk.index, e)
            # too much audio for its price is the text's own: it comes again each try
            tries = 1 if isinstance(e, TooMuchAudio) else MAX_ATTEMPTS
            store = self._store
            failed = await store.call(
                store.fail_chunk,
                chunk.job_id,
                chunk.index,
                error,
                tries,
                self._retry_after_s,
            )
            if failed:  # the job ended with it
                self._ended.wake()

    async def _held_while(self, chunk: ClaimedChunk, speaking: asyncio.Future[Completion]) -> bool:
        """Wait for ``speaking`` to end, the chunk's claim renewed every third of its
        lease and looked at every :data:`CLAIM_CHECK_S`; False as soon as it is seen
        lost (``speaking`` still running), True once ``speaking`` has ended."""
        store = self._store
        renewed = asyncio.get_running_loop().time()
        while True:
            done, _ = await asyncio.wait({speaking}, timeout=self._check_s)
            if done:
                return True
            now = asyncio.get_running_loop().time()
            try:
                if now - renewed >= self._lease_s / 3:
                    held = await store.call(
                        store.renew_claim, chunk.job_id, chunk.index, self._lease_s
                    )
                    renewed = now
                else:
                    held = await store.call(store.claim_held, chunk.job_id, chunk.index)
            except Exception:  # the database away a moment: the chunk goes on
                logger.exception("looking at chunk %s/%s's claim failed", chunk.job_id, chunk.index)
                held = True
            if not held and not speaking.done():
                return False
