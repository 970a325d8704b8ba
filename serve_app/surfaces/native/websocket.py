"""Our stream-input WebSocket as a wire protocol of the shared
session: our query (``response_format``, ``quality``, ...), our frames."""

from __future__ import annotations

from typing import Any

from serve_app.http.errors import InvalidRequest
from serve_app.speech.vocabulary import VoiceOptions
from serve_app.surfaces.native.protocol import WsAudioMessage, WsInputMessage, WsQuery
from serve_app.surfaces.services import Services
from serve_app.surfaces.websocket.wire import ClientMessage, SessionQuery, parse


class NativeWire:
    multi = False
    dictionaries_param = "pronunciation_dictionaries"

    def read_query(self, query: dict[str, str], voice_id: str, state: Services) -> SessionQuery:
        ours = parse(WsQuery, query)
        fields: dict[str, object] = {
            "model": ours.model,
            "language": ours.language,
            "voice": voice_id,
            "response_format": ours.response_format,
            "quality": ours.quality,
            "sample_rate": ours.sample_rate,
            "apply_text_normalization": ours.apply_text_normalization,
        }
        ssml = ours.text_type == "ssml"
        return SessionQuery(
            fields,
            ours.inactivity_timeout,
            ours.response_format,
            ssml=ssml,
            phonemes=ours.phoneme_timestamps,
            auto_mode=ours.auto_mode,
            cache=ours.cache,
        )

    def read_message(self, document: object) -> ClientMessage:
        message = parse(WsInputMessage, document)
        if message.text is None and not message.clear:
            raise InvalidRequest("missing_field", "The field 'text' is required.", "text")
        return message

    def key_of(self, message: ClientMessage) -> str | None:
        return message.authorization

    def dictionaries_of(self, first: ClientMessage) -> list[dict[str, Any]] | None:
        assert isinstance(first, WsInputMessage)
        located = first.pronunciation_dictionaries
        return None if located is None else [d.model_dump() for d in located]

    language_by_script = False  # the URL names our voice id, the query its language

    async def session_options(
        self, options: VoiceOptions, voice_id: str, state: Services
    ) -> VoiceOptions:
        return options

    def audio_message(
        self, index: int, audio: str, alignment: dict[str, Any] | None, context_id: str
    ) -> dict[str, Any]:
        return WsAudioMessage(audio=audio, index=index, alignment=alignment).model_dump()


NATIVE = NativeWire()
