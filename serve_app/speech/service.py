"""Speech requests: what to speak and how, checked against what is loaded.

:meth:`SpeechService.choose` turns the options a client sent into a
:class:`Voicing` (``voice_choice.py``); :meth:`SpeechService.prepare` adds the text, normalised and
paid for with a hold; :meth:`SpeechService.deliver` starts the audio, metered and
settled by its :class:`Delivery`. The surfaces frame what comes back
(``surfaces/framing.py``; a WebSocket's ``speech/streams/session.py`` hands it audio to send).
"""

from __future__ import annotations

import contextlib
import unicodedata
from collections.abc import AsyncGenerator, Awaitable, Callable

from deployments.messages import (
    AudioChunk,
    EncodedChunk,
    EncodeWork,
    NormalisedText,
    Surroundings,
    SynthesisWork,
)
from deployments.normaliser import base_language, clean_text, off_loop_if_long, ssml
from deployments.reading import ReadingOptions, SsmlText
from serve_app.accounts import ApiKey
from serve_app.http.errors import InvalidRequest, ServiceError
from serve_app.settings import IngressConfig
from serve_app.speech.admission import Admission
from serve_app.speech.billing import Meter
from serve_app.speech.cache import Lookup, SpeechCache, Status
from serve_app.speech.catalog import Catalog
from serve_app.speech.checked import (
    BilledText,
    CheckedRequest,
    Input,
    Voicing,
    elapsed_ms,
    speakable,
    with_timings,
)
from serve_app.speech.continuity import RecentTexts, surroundings
from serve_app.speech.custom_voices import CustomVoices
from serve_app.speech.delivery import Delivery
from serve_app.speech.dictionaries import Dictionaries
from serve_app.speech.metrics import Metrics
from serve_app.speech.pipeline import Pipeline
from serve_app.speech.vocabulary import NormalizeRequest, SpeechRequest, VoiceOptions
from serve_app.speech.voice_choice import VoiceChooser


class SpeechService:
    """Turns speech requests into streams of encoded audio, metered by ``meter``."""

    def __init__(
        self,
        pipeline: Pipeline,
        catalog: Callable[[], Awaitable[Catalog]],
        meter: Meter,
        config: IngressConfig,
        admission: Admission,
        metrics: Metrics,
        voices: CustomVoices,
        dictionaries: Dictionaries,
        cache: SpeechCache | None = None,
    ) -> None:
        self.pipeline = pipeline
        self.cache = cache
        self.meter = meter
        self.admission = admission
        self.metrics = metrics
        self.voices = voices
        self.dictionaries = dictionaries
        self.recent = RecentTexts()  # for previous_request_ids
        self._catalog = catalog
        self._config = config
        self._chooser = VoiceChooser(catalog, config.model_id, voices, dictionaries)

    async def catalog(self) -> Catalog:
        """The voices and engines loaded now."""
        return await self._catalog()

    async def choose(
        self,
        options: VoiceOptions,
        stream: bool,
        project_id: str | None = None,
        dictionaries_param: str = "pronunciation_dictionaries",
        bitrate: int | None = None,
    ) -> Voicing:
        """The voicing ``options`` ask for (:meth:`VoiceChooser.choose`)."""
        return await self._chooser.choose(options, stream, project_id, dictionaries_param, bitrate)

    async def check_text(self, text: str, param: str = "input") -> str:
        """``text`` cleaned of what no voice says (``deployments.normaliser.cleaning``:
        format characters, marks stacked past any script's), if it is within the
        length limit (in NFC, as sent) and not blank. The cleaned text is what is
        spoken and billed: a word followed by thousands of invisible characters
        costs the word."""
        text = unicodedata.normalize("NFC", text)
        limit = self._config.max_input_chars
        if len(text) > limit:
            raise InvalidRequest(
                "input_too_long", f"{param} is {len(text)} characters; the limit is {limit}.", param
            )
        text = await off_loop_if_long(clean_text, text)
        if not text.strip():
            raise InvalidRequest("empty_input", f"{param} has nothing to speak.", param)
        return text

    async def check_input(self, text: str, text_type: str, param: str = "input") -> Input:
        """``text`` checked (:meth:`check_text`) and, for ``text_type`` ``ssml``, read as
        SSML: malformed markup is a 400 that says where, an unknown ``xml:lang`` a 400
        too. What is billed is the text a listener hears, not the markup."""
        sent = text
        text = await self.check_text(text, param)
        if text_type != "ssml":
            return Input(text, len(text))
        try:
            document = await off_loop_if_long(ssml.parse, text)
        except ssml.SsmlError:
            try:  # the markup as sent, so that lines and columns are the client's
                await off_loop_if_long(ssml.parse, unicodedata.normalize("NFC", sent))
            except ssml.SsmlError as where:
                e = where
            raise InvalidRequest("invalid_value", f"{param}: {e}", param) from None
        catalog = await self._catalog()
        for mark in document.marks:
            tag = mark.get("xml:lang")
            if tag is not None and catalog.policy.canonical(base_language(tag)) != base_language(
                tag
            ):
                raise InvalidRequest(
                    "unsupported_language", f"{param}: <lang xml:lang=\"{tag}\"> is not a language "
                    "this service reads.", param,
                )  # fmt: skip
        if not document.text.strip():
            raise InvalidRequest("empty_input", f"{param} has nothing to speak.", param)
        return Input(text, len(document.text), document)

    async def preview(self, request: NormalizeRequest, project_id: str) -> NormalisedText:
        """What the voice would be given for ``request`` (with the pronunciation
        dictionaries it names, else ``project_id``'s defaults): no voice, no charge, but
        admitted like speech (503 past capacity)."""
        ticket = self.admission.enter()
        try:
            catalog = await self._catalog()
            language = catalog.policy.canonical(request.language)
            if language is None:
                raise InvalidRequest(
                    "unsupported_language", f"Unknown language '{request.language}'.", "language"
                )
            located = request.pronunciation_dictionaries
            rules = await self.dictionaries.rules_for(project_id, located)
            given = await self.check_input(request.input, request.text_type)
            reads = request.apply_text_normalization != "off"
            reading = ReadingOptions(language, request.quality, rules, given.markup, reads)
            return await self.pipeline.normalise(given.text, reading)
        finally:
            ticket.release()

    async def normalise(
        self,
        text: str,
        voicing: Voicing,
        param: str = "input",
        ssml: bool | SsmlText = False,
        around: Surroundings | None = None,
    ) -> NormalisedText:
        """``text`` as the voice will be given it (with the text ``around`` it given
        to its first and last segment), if that is within the spoken limit."""
        normalised = await self.pipeline.normalise(text, voicing.reading(ssml), around)
        limit = self._config.max_spoken_chars
        # what is heard: the text read out, and what aliases and phonemes add to it
        heard = len(normalised.text) + normalised.expansion
        if heard > limit:
            raise InvalidRequest(
                "input_too_long",
                f"{param} reads out as {heard} characters (numbers and symbols in words, "
                f"aliases and phonemes as heard); the limit is {limit}.",
                param,
            )
        return normalised

    async def prepare(
        self,
        request: SpeechRequest,
        key: ApiKey,
        request_id: str,
        received_at: float,
        alignment: bool = False,
        bitrate_kbps: int | None = None,
        dictionaries_param: str = "pronunciation_dictionaries",
        cache: bool = True,
    ) -> CheckedRequest:
        """Admit ``request`` (503 past capacity), validate it, normalise its text and
        hold its worst-case cost. ``alignment``: the surface frames timings (checked.py
        ``with_timings``); ``bitrate_kbps`` overrides the quality's; ``cache`` False
        (the client's ``Cache-Control: no-cache``) keeps it from the speech cache, as
        the request's own ``cache`` field does. The :class:`Delivery` of
        :meth:`deliver` settles the request's bill."""
        ticket = self.admission.enter()
        try:
            voicing = await self.choose(
                request, request.stream, key.project_id, dictionaries_param, bitrate_kbps
            )
            voicing = with_timings(voicing, request, framed=alignment)
            given = await self.check_input(request.input, request.text_type)
            around = surroundings(*self.recent.around(key.project_id, request))
            said = await self.read(given, voicing, around=around)
            if said is None:
                raise InvalidRequest(
                    "empty_input", "input has nothing to speak (no letters or digits).", "input"
                )
            bill = await self.meter.open_bill(key, said.characters)
        except BaseException:
            ticket.release()
            raise
        self.recent.remember(key.project_id, request_id, request.input)
        return CheckedRequest(
            request_id, voicing, said.text, bill, received_at, ticket, request.cache and cache
        )

    async def read(
        self,
        given: Input,
        voicing: Voicing,
        param: str = "input",
        around: Surroundings | None = None,
    ) -> BilledText | None:
        """``given`` as ``voicing`` will speak it (the text ``around`` it read in the
        same call, for its first and last segment), and the characters it is billed
        for (what a listener hears, aliases as heard); None if it says nothing (no
        letter or digit). The one step from checked text to a paid request, for a
        request's input, a job's chunk and a WebSocket's pieces alike."""
        normalised = await self.normalise(given.text, voicing, param, given.markup, around)
        if not speakable(normalised):
            return None
        return BilledText(normalised, given.billed + normalised.expansion)

    async def synthesise(
        self, said: BilledText, voicing: Voicing, cache: bool = True
    ) -> AsyncGenerator[AudioChunk, None]:
        """The audio of ``said`` as ``voicing`` speaks it, not yet encoded (a
        text stream encodes all its pieces' audio as one stream): what the speech
        cache has of it (unless ``cache`` is False), the rest synthesised and kept.
        Closing the stream stops its synthesis."""
        work = SynthesisWork(said.text.segments, voicing.params)
        looked = await self._looked_up(work, voicing, cache)
        if looked is None:
            audio = self.pipeline.synthesise(work)
        else:
            speech_cache, lookup = looked
            spoken = self.pipeline.synthesise(lookup.spoken(work), lookup.cached)
            audio = speech_cache.kept(lookup, spoken)
        async with contextlib.aclosing(audio):
            async for chunk in audio:
                yield chunk

    async def deliver(self, speech: CheckedRequest, transport: str) -> Delivery:
        """The request's audio on its way, its first chunk already in hand; the delivery
        meters it and settles the request's bill when closed.

        Awaiting this raises :class:`ServiceError` if synthesis fails before any
        audio exists, or ends with none (``empty_input``); the bill is then settled,
        nothing charged, so the caller can still answer with an HTTP error.
        """
        stream = self._encoded(speech)
        delivery = Delivery(
            self.meter,
            self.metrics,
            speech.bill,
            speech.received_at,
            voicing=speech.voicing,
            ticket=speech.ticket,
        )
        delivery.synthesising()
        try:
            first = await anext(stream)
        except StopAsyncIteration:
            await delivery.aclose()  # nothing heard: nothing charged
            raise InvalidRequest(
                "empty_input",
                "input makes no sound: what it asks to be said (a phoneme string of no "
                "sounds the voice has, say) gives no audio.",
                "input",
            ) from None
        except BaseException as e:
            # the service's own failure spends nothing; a cancel (the client left before
            # any audio) or the client's error spends the time it ran
            if isinstance(e, Exception) and (not isinstance(e, ServiceError) or e.status >= 500):
                delivery.failed_by_the_service()
            await delivery.aclose()
            raise
        self.metrics.first_audio(
            elapsed_ms(speech.received_at), transport, speech.voicing.output.format
        )
        delivery.attach(stream, first)
        return delivery

    def _encoded(self, speech: CheckedRequest) -> AsyncGenerator[EncodedChunk, None]:
        """The request's encoded audio; ``speech.cache`` says what the speech cache had
        of it (by its first chunk)."""

        def found(status: Status) -> None:
            speech.cache = status

        return self.encode(speech.work, speech.voicing, speech.cacheable, found)

    async def encode(
        self,
        work: EncodeWork,
        voicing: Voicing,
        cache: bool = True,
        found: Callable[[Status], None] | None = None,
    ) -> AsyncGenerator[EncodedChunk, None]:
        """``work`` (spoken as ``voicing`` asks) encoded: what the speech cache has of it
        from there (unless ``cache`` is False; ``found`` is told what it had), the rest
        synthesised and kept. Closing the stream stops its synthesis."""
        looked = await self._looked_up(work.synthesis, voicing, cache)
        if looked is None:
            stream = self.pipeline.encode(work)
        else:
            speech_cache, lookup = looked
            if found is not None:
                found(lookup.status)
            stream = speech_cache.recorded(lookup, self.pipeline.encode(lookup.applied(work)))
        async with contextlib.aclosing(stream):
            async for chunk in stream:
                yield chunk

    async def _looked_up(
        self, work: SynthesisWork, voicing: Voicing, allowed: bool
    ) -> tuple[SpeechCache, Lookup] | None:
        """The speech cache and what it has of ``work``; None where it is not asked:
        there is none, the request keeps out of it (``allowed`` False), the speech is
        of no project (none is made so: its audio would be anyone's), or its project
        keeps its speech out (a budget of 0)."""
        cache = self.cache
        project = voicing.params.tenant
        if cache is None or not allowed or not project:
            return None
        setting = await cache.setting_of(project)
        if setting.budget_mb == 0:
            return None
        lookup = await cache.lookup(work, voicing.voice, setting)
        self.metrics.speech_cache(lookup.found, len(lookup.missing), cache.memory.stats)
        return cache, lookup

    async def open_delivery(self, key: ApiKey, received_at: float) -> Delivery:
        """A delivery with no audio yet, for a session whose texts arrive as it runs:
        a hold of nothing to begin with, grown by :meth:`Delivery.extend`."""
        bill = await self.meter.open_bill(key, 0)
        return Delivery(self.meter, self.metrics, bill, received_at)
