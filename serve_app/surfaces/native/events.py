"""The SSE events of a streamed speech request."""

from __future__ import annotations

from deployments.timings import Timings
from serve_app.speech.vocabulary import RequestUsage
from serve_app.surfaces.framing import sse_event
from serve_app.surfaces.native.protocol import AudioDelta, AudioDone


class SpecEvents:
    """The SSE events: ``audio.delta`` (index, base64 delta, ttfa_ms first; phonemes
    and visemes when asked), ``audio.done`` (chunks, usage), ``error``."""

    def delta(
        self, index: int, audio: str, ttfa_ms: float | None, timings: Timings | None = None
    ) -> bytes:
        delta = AudioDelta(index=index, delta=audio, ttfa_ms=ttfa_ms)
        if timings is not None:
            delta = delta.model_copy(update=timings.as_wire())
        return sse_event("audio.delta", delta)

    def done(self, chunks: int, usage: RequestUsage) -> bytes:
        return sse_event("audio.done", AudioDone(chunks=chunks, usage=usage))

    def error(self, body: dict[str, object]) -> bytes:
        return sse_event("error", body)
