"""A replica's warm-up: one request through every stage, before any client's."""

from __future__ import annotations

from deployments.messages import EncodeWork, SynthesisWork
from serve_app.speech.service import SpeechService
from serve_app.speech.vocabulary import SpeechRequest

# What a replica speaks before it takes requests: the first request of docs/getting-started.md.
WARM_UP_REQUEST = SpeechRequest.model_validate(
    {"input": "नमस्ते, आप कैसे हैं?", "response_format": "mp3"}
)


async def speak_unbilled(service: SpeechService, request: SpeechRequest = WARM_UP_REQUEST) -> None:
    """Speak ``request`` through every stage a client's request crosses (voice choice,
    text check, the normaliser, the encoder and the Synthesiser behind its handle),
    unbilled and unadmitted, and drop the audio: each stage's first call (its
    handle's connection, its lazy loads, the encoder's first MP3) is then paid before
    any client comes. Where the request's voice is not loaded (an application of
    eSpeak voices alone), the first voice that is."""
    catalog = await service.catalog()
    loaded = catalog.public_voices()
    if catalog.voice(request.voice) is None and loaded:
        request = request.model_copy(update={"voice": loaded[0].id})
    voicing = await service.choose(request, request.stream)
    given = await service.check_input(request.input, request.text_type)
    normalised = await service.normalise(given.text, voicing, ssml=given.markup)
    work = EncodeWork(SynthesisWork(normalised.segments, voicing.params), voicing.output)
    async for _ in service.pipeline.encode(work):  # to its end: the stream closes itself
        pass
