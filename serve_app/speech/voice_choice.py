"""Choosing a request's voice: the options a client sent checked against the voices,
engines and formats loaded now, and the voice a custom voice, a description or a
reference asks for built from them, as one :class:`Voicing` (how its text is read
included)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from deployments.messages import SynthesisParams
from deployments.synthesis import VoiceConfig, is_voice_id
from serve_app.http.errors import InvalidRequest, NotFound
from serve_app.speech.catalog import Catalog
from serve_app.speech.checked import Voicing, output_of
from serve_app.speech.custom_voices import CustomVoice, CustomVoices
from serve_app.speech.dictionaries import Dictionaries
from serve_app.speech.vocabulary import VoiceOptions
from serve_app.speech.voice_modes import (
    DesignedVoice,
    analyse_reference,
    apply,
    check_description,
    designed,
)


class VoiceChooser:
    """Chooses voices from the ``catalog`` loaded now, a project's custom ``voices``
    and its pronunciation ``dictionaries``, for the service's model ``model_id``."""

    def __init__(
        self,
        catalog: Callable[[], Awaitable[Catalog]],
        model_id: str,
        voices: CustomVoices,
        dictionaries: Dictionaries,
    ) -> None:
        self._catalog = catalog
        self._model_id = model_id
        self._voices = voices
        self._dictionaries = dictionaries

    async def choose(
        self,
        options: VoiceOptions,
        stream: bool,
        project_id: str | None = None,
        dictionaries_param: str = "pronunciation_dictionaries",
        bitrate: int | None = None,
    ) -> Voicing:
        """Check ``options`` against the loaded voices, engines and formats, and build
        the voice a description, a reference or a custom voice of ``project_id`` asks
        for. ``bitrate`` (kbps), where a surface's format names one, overrides the
        quality's.

        Raises :class:`ServiceError` subclasses with the API's codes.
        """
        catalog = await self._catalog()
        self._check(options)
        output = output_of(options, stream, bitrate)
        voice, custom = await self._voice(options, catalog, project_id)
        voice, language = self._language(options, catalog, voice, custom)
        controls = catalog.engine_of(voice).controls
        if options.pitch != 0.0 and "pitch" not in controls:
            raise InvalidRequest(
                "unsupported_feature",
                f"Voice '{voice.id}' cannot change its pitch "
                f"(its engine, {voice.engine}, offers: {', '.join(controls)}).",
                "pitch",
            )
        params = SynthesisParams(
            voice=voice.id,
            language=language,
            speed=options.speed,
            pitch=options.pitch,
            quality=options.quality,
            tenant=project_id or "",
        )
        located = options.pronunciation_dictionaries
        rules = await self._dictionaries.rules_for(project_id, located, dictionaries_param)
        built = await self._build(options, catalog, voice, params, custom)
        report = None
        if built is not None:
            voice, params, report = built.voice, built.params, built.report
        reads = options.apply_text_normalization != "off"
        return Voicing(voice, params, output, report, rules, reads)

    def _check(self, options: VoiceOptions) -> None:
        """What ``options`` alone may not ask: another model, two voice modes at once,
        a description that cannot be read."""
        if options.model != self._model_id:
            raise NotFound("model_not_found", f"No model '{options.model}'.", "model")
        if options.voice_description is not None and options.reference_audio is not None:
            raise InvalidRequest(
                "invalid_value",
                "Send voice_description or reference_audio, not both.",
                "reference_audio",
            )
        if options.voice_description is not None:
            check_description(options.voice_description)

    async def _voice(
        self, options: VoiceOptions, catalog: Catalog, project_id: str | None
    ) -> tuple[VoiceConfig, CustomVoice | None]:
        """The voice ``options`` name: loaded here, or one of ``project_id``'s own (then
        the loaded voice it is built on, and the custom voice)."""
        if not is_voice_id(options.voice):
            raise InvalidRequest("invalid_value", "That is not a valid voice id.", "voice")
        voice = catalog.voice(options.voice)
        custom = None
        if voice is None and project_id is not None:
            custom = await self._voices.get(project_id, options.voice)
            voice = self._custom_base(custom, catalog) if custom is not None else None
        if voice is None:
            raise NotFound("voice_not_found", f"No voice '{options.voice}'.", "voice")
        return voice, custom

    @staticmethod
    def _language(
        options: VoiceOptions, catalog: Catalog, voice: VoiceConfig, custom: CustomVoice | None
    ) -> tuple[VoiceConfig, str]:
        """The language spoken (canonical), and the voice that speaks it: a voice named
        without a language speaks its own; a language without a voice gets its own."""
        asked_language = options.language
        if custom is not None and asked_language is None:
            asked_language = custom.language
        if asked_language is None and "voice" in options.model_fields_set:
            # a voice named without a language speaks its own (the first it speaks)
            asked_language = next(iter(catalog.voice_languages(voice)), None)
        language = catalog.policy.canonical(asked_language)
        if language is not None and "voice" not in options.model_fields_set:
            # No voice asked for: the default, or the language's own voice.
            voice = catalog.voice_for_language(language, voice)
        spoken = [custom.language] if custom else catalog.voice_languages(voice)
        if language is None or language not in spoken:
            raise InvalidRequest(
                "unsupported_language",
                f"Voice '{custom.id if custom else voice.id}' does not speak "
                f"'{asked_language}'. "
                f"It speaks: {', '.join(spoken)}.",
                "language",
            )
        return voice, language

    @staticmethod
    def _custom_base(custom: CustomVoice, catalog: Catalog) -> VoiceConfig:
        voice = catalog.voice(custom.base)
        if voice is None or any(catalog.voice(v) is None for v, _ in custom.blend):
            raise NotFound(
                "voice_not_found",
                f"Voice '{custom.id}' is built from voices that are not loaded now.",
                "voice",
            )
        return voice

    async def _build(
        self,
        options: VoiceOptions,
        catalog: Catalog,
        voice: VoiceConfig,
        params: SynthesisParams,
        custom: CustomVoice | None,
    ) -> DesignedVoice | None:
        """The voice a custom voice, a description or a reference makes of ``voice``
        (None: ``voice`` as it is)."""
        if custom is not None:
            if options.voice_description is not None or options.reference_audio is not None:
                raise InvalidRequest(
                    "invalid_value",
                    f"Voice '{custom.id}' is already built; describe or match a registered "
                    "voice instead.",
                    "voice",
                )
            own = {key: value for key, value in custom.report.items() if key != "mode"}
            report = {"mode": "custom", "voice": custom.id, "source": custom.source, **own}
            return apply(catalog, voice, params, custom.design, custom.speed, custom.pitch, report)
        for field, mode in (("voice_description", "description"), ("reference_audio", "reference")):
            if getattr(options, field) is not None and mode not in catalog.engine_of(voice).modes:
                able = catalog.mode_engines()[mode]
                raise InvalidRequest(
                    "unsupported_feature",
                    f"Voice '{voice.id}' ({voice.engine}) cannot take {field}; "
                    + (f"voices of {', '.join(able)} can." if able else "no loaded engine can."),
                    field,
                )
        if options.voice_description is not None:
            return designed(catalog, voice, params, description=options.voice_description)
        if options.reference_audio is not None:
            heard = await asyncio.to_thread(analyse_reference, options.reference_audio)
            return designed(catalog, voice, params, heard=heard)
        return None
