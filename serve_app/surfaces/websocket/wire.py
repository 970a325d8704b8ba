"""What a stream-input session needs of the protocol it speaks: how the URL's query
and each frame are read, how the voice is chosen, how audio is written.

The session (session.py) is the same for every protocol; each surface brings its
adapter: ours (``surfaces/native/websocket.py``) and ElevenLabs' two
(``surfaces/elevenlabs/websocket.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from serve_app.http.errors import from_validation_error
from serve_app.speech.vocabulary import VoiceOptions
from serve_app.surfaces.native.protocol import WsGenerationConfig
from serve_app.surfaces.services import Services

M = TypeVar("M", bound=BaseModel)


class ClientMessage(Protocol):
    """A client frame, as every protocol's message model reads it."""

    @property
    def text(self) -> str | None: ...

    @property
    def voice_settings(self) -> BaseModel | None: ...

    @property
    def generation_config(self) -> WsGenerationConfig | None: ...

    @property
    def authorization(self) -> str | None: ...

    @property
    def flush(self) -> bool: ...

    @property
    def flush_id(self) -> str | None: ...

    @property
    def clear(self) -> bool: ...

    @property
    def try_trigger_generation(self) -> bool: ...


@dataclass(frozen=True)
class SessionQuery:
    """What the URL's query sets for a session."""

    fields: dict[str, object]  # VoiceOptions fields
    inactivity_s: float
    response_format: str
    bitrate_kbps: int | None = None
    ssml: bool = False  # every text is SSML (docs/pronunciation.md)
    phonemes: bool = False  # audio messages carry phoneme timings and visemes
    auto_mode: bool = False  # no chunk schedule: pieces end at sentences and flushes
    cache: bool = True  # texts spoken before may be heard from the speech cache


class WireProtocol(Protocol):
    """One WebSocket protocol."""

    @property
    def multi(self) -> bool:
        """Several contexts on one socket, each ended with its own final message."""
        ...

    def read_query(self, query: dict[str, str], voice_id: str, state: Services) -> SessionQuery:
        """The URL's query checked (400 or 404 as the API says)."""
        ...

    def read_message(self, document: object) -> ClientMessage:
        """A client frame, parsed."""
        ...

    def key_of(self, message: ClientMessage) -> str | None:
        """The key a first message carries, as an Authorization header value."""
        ...

    @property
    def dictionaries_param(self) -> str:
        """The field that names dictionaries, as errors name it."""
        ...

    def dictionaries_of(self, first: ClientMessage) -> list[dict[str, Any]] | None:
        """The pronunciation dictionaries the first message names (None: it names none,
        and the project's defaults apply)."""
        ...

    @property
    def language_by_script(self) -> bool:
        """Whether, where a session names no language, its first text's script chooses
        it (the protocol's clients send none)."""
        ...

    async def session_options(
        self, options: VoiceOptions, voice_id: str, state: Services
    ) -> VoiceOptions:
        """The session's options as the protocol reads them: the URL's ``voice_id`` in
        our names, the language it names checked."""
        ...

    def audio_message(
        self, index: int, audio: str, alignment: dict[str, Any] | None, context_id: str
    ) -> dict[str, Any]:
        """A frame of base64 ``audio`` (``index``-th of its context)."""
        ...


def parse(model: type[M], document: object) -> M:
    """``document`` as ``model``, or the API's 400 for what is wrong with it."""
    try:
        return model.model_validate(document)
    except ValidationError as e:
        raise from_validation_error(e) from None
