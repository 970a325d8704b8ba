"""ElevenLabs' ``stream-input`` and ``multi-stream-input`` WebSockets as wire
protocols of the shared session: their query (``output_format``, ``model_id``,
``language_code``), their frames (``xi_api_key``, ``context_id``, ...), their names
for the voice, and audio frames with ``normalizedAlignment`` (and ``contextId``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from serve_app.http.errors import NotFound
from serve_app.speech.vocabulary import VoiceOptions, preferring
from serve_app.surfaces.compat import client_language
from serve_app.surfaces.elevenlabs.protocol import LOCATORS, ElevenWsMessage, ElevenWsQuery
from serve_app.surfaces.elevenlabs.serving import output_format
from serve_app.surfaces.native.protocol import WsAudioMessage
from serve_app.surfaces.services import Services
from serve_app.surfaces.websocket.wire import ClientMessage, SessionQuery, parse


@dataclass(frozen=True)
class ElevenWire:
    multi: bool = False  # multi-stream-input: contexts
    dictionaries_param: str = LOCATORS

    def read_query(self, query: dict[str, str], voice_id: str, state: Services) -> SessionQuery:
        eleven = parse(ElevenWsQuery, query)
        wire = output_format(eleven.output_format)
        names = state.compat.elevenlabs
        model_id = eleven.model_id
        if model_id not in (None, state.config.model_id) and not names.names_model(model_id):
            raise NotFound("model_not_found", f"No model '{model_id}'.", "model_id")
        fields: dict[str, object] = {
            "language": eleven.language_code,
            "response_format": wire.format,
            "sample_rate": wire.sample_rate,
            "apply_text_normalization": eleven.apply_text_normalization,
        }
        return SessionQuery(
            fields,
            eleven.inactivity_timeout,
            wire.format,
            wire.bitrate_kbps,
            ssml=eleven.enable_ssml_parsing,
            phonemes=eleven.phoneme_timestamps,
            auto_mode=eleven.auto_mode,
            cache=eleven.cache,
        )

    def read_message(self, document: object) -> ClientMessage:
        return parse(ElevenWsMessage, document)

    def key_of(self, message: ClientMessage) -> str | None:
        if message.authorization is not None:
            return message.authorization
        xi_key = getattr(message, "xi_api_key", None)
        return f"Bearer {xi_key}" if xi_key else None

    def dictionaries_of(self, first: ClientMessage) -> list[dict[str, Any]] | None:
        assert isinstance(first, ElevenWsMessage)
        located = first.pronunciation_dictionary_locators
        return None if located is None else [d.model_dump() for d in located]

    # ElevenLabs' clients send no language: without a language_code, the voice
    # depends on the first text's script
    language_by_script: bool = True

    async def session_options(
        self, options: VoiceOptions, voice_id: str, state: Services
    ) -> VoiceOptions:
        """A language_code checked now; their voice ids name ours."""
        catalog = await state.catalog()
        if options.language is not None:
            language = client_language(catalog, options.language, "", "language_code")
            options = options.model_copy(update={"language": language})
        voice = state.compat.elevenlabs.voice(voice_id, catalog)
        if voice is None:  # perhaps the project's own
            return options.model_copy(update={"voice": voice_id})
        return preferring(options, voice.id)

    def audio_message(
        self, index: int, audio: str, alignment: dict[str, Any] | None, context_id: str
    ) -> dict[str, Any]:
        message = WsAudioMessage(audio=audio, index=index, alignment=alignment).model_dump()
        message["normalizedAlignment"] = alignment
        if self.multi:
            message["contextId"] = context_id
        return message


ELEVEN = ElevenWire()
ELEVEN_MULTI = ElevenWire(multi=True)
