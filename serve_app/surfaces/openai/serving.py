"""POST /v1/audio/speech as OpenAI's clients expect it.

One rule decides: a request whose ``model`` is an OpenAI model id (``tts-1``,
``gpt-4o-mini-tts``, ... in ``configs/compat.yaml``) is an OpenAI request. It is
read with OpenAI's fields and defaults and answered as OpenAI answers; any other
request is our own, unchanged. An OpenAI request becomes our own
:class:`SpeechRequest` here, so the same pipeline speaks both:

- ``voice``: OpenAI's names (``alloy``, ``ash``, ...) or ``{"id": ...}``, mapped to
  our voices; our own voice ids work too.
- ``language`` (ours, optional): when absent, the language of the text's script
  (Devanagari -> Hindi, Latin -> English, Tamil -> Tamil, ...), since OpenAI's
  clients never send one.
- ``response_format`` defaults to ``mp3``; ``pcm`` is 24 kHz (what every OpenAI
  client assumes) unless ``sample_rate`` says otherwise; every format but ``wav``
  streams, ``wav`` is sent whole (OpenAI's clients read the body either way).
- ``speed`` 0.25-4.0 (engines clamp to what they can do).
- ``instructions`` is a voice description (``voice_description``,
  docs/voice-modes.md) where the voice's engine builds voices from descriptions;
  for a voice whose engine cannot, it is accepted and not applied, and the response says so
  (``x-service-instructions: ignored``).
- ``stream_format: "sse"`` gets OpenAI's events (``speech.audio.delta``,
  ``speech.audio.done``), not ours.
"""

from __future__ import annotations

import json

from deployments.encoding import STREAMABLE_FORMATS
from deployments.timings import Timings
from serve_app.http.body import validate
from serve_app.speech.catalog import Catalog
from serve_app.speech.vocabulary import RequestUsage, SpeechRequest
from serve_app.surfaces.compat import ClientNames, client_language
from serve_app.surfaces.openai.protocol import OpenAISpeechRequest, VoiceRef


class OpenAIRequest:
    """An OpenAI request as ours, and how its answer is framed."""

    def __init__(self, request: SpeechRequest, instructions_ignored: bool) -> None:
        self.request = request
        self.instructions_ignored = instructions_ignored

    def headers(self) -> dict[str, str]:
        return {"x-service-instructions": "ignored"} if self.instructions_ignored else {}


def is_openai_request(document: object, names: ClientNames) -> bool:
    return isinstance(document, dict) and names.names_model(document.get("model"))


def from_openai(
    document: object, names: ClientNames, catalog: Catalog, model_id: str
) -> OpenAIRequest:
    """The OpenAI request ``document`` as our :class:`SpeechRequest` (400/404 with our
    codes for what is wrong in it)."""
    openai = validate(OpenAISpeechRequest, document)
    language = client_language(catalog, openai.language, openai.input, "language")
    name = openai.voice.id if isinstance(openai.voice, VoiceRef) else openai.voice
    voice = names.voice(name, catalog)  # None: perhaps the project's own
    fields: dict[str, object] = {
        "input": openai.input,
        "model": model_id,
        "language": language,
        "voice": voice.id if voice is not None else name,
        "response_format": openai.response_format,
        "quality": openai.quality,
        "speed": openai.speed,
        "sample_rate": openai.sample_rate,  # pcm: 24 kHz unless it says (as ours)
        "stream": openai.response_format in STREAMABLE_FORMATS,
        "stream_format": openai.stream_format,
    }
    instructions = (openai.instructions or "").strip() or None
    # a project's own voice is already built: its instructions are not applied
    describes = voice is not None and "description" in catalog.engine_of(voice).modes
    if instructions is not None and describes:
        fields["voice_description"] = instructions
    # Validated above with OpenAI's ranges (speed 0.25-4.0), wider than ours.
    # a name of ours is a preference: the language's own voice where it does not speak it
    chosen = set(fields) - ({"voice"} if voice is not None else set())
    request = SpeechRequest.model_construct(_fields_set=chosen, **fields)
    return OpenAIRequest(request, instructions_ignored=instructions is not None and not describes)


class OpenAIEvents:
    """OpenAI's speech SSE events, data lines only: ``speech.audio.delta`` with
    ``audio``, then ``speech.audio.done`` (with our usage: we bill characters, not
    tokens), or ``error``."""

    def delta(
        self, index: int, audio: str, ttfa_ms: float | None, timings: Timings | None = None
    ) -> bytes:
        return _data({"type": "speech.audio.delta", "audio": audio})

    def done(self, chunks: int, usage: RequestUsage) -> bytes:
        return _data({"type": "speech.audio.done", "usage": usage.model_dump()})

    def error(self, body: dict[str, object]) -> bytes:
        return _data({"type": "error", **body})


def _data(payload: dict[str, object]) -> bytes:
    return f"data: {json.dumps(payload, ensure_ascii=False, separators=(',', ':'))}\n\n".encode()
