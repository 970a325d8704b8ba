"""The comparison server of ``make bench``: one process that serves each request whole.

What a plain TTS server does: a FastAPI endpoint that normalises the text,
synthesises all of it with the eSpeak voice the bench asks the service for
(``hi-espeak-aditi``) and answers with the complete raw PCM. No accounts, no
streaming, no Ray. The bench measures it with the same client as the service,
so "time to first audio" here is the whole synthesis.

    python -m loadtest.baseline --port 8200
"""

from __future__ import annotations

import argparse

import numpy as np
import uvicorn
from fastapi import FastAPI, Response
from pydantic import BaseModel

from deployments.encoding.writers import to_int16
from deployments.messages import SynthesisParams
from deployments.normaliser.normaliser import TextNormaliser
from deployments.reading import ReadingOptions
from deployments.synthesis.registry import load_engine
from deployments.synthesis.synthesiser import CONFIGS, Synthesiser
from deployments.synthesis.voices import VoiceRegistry

ESPEAK_VOICE = "hi-espeak-aditi"


class SpeechBody(BaseModel):
    input: str


def espeak_synthesiser() -> Synthesiser:
    """A Synthesiser holding only the bench's eSpeak voice, as its ``default``."""
    voice = VoiceRegistry.from_file(CONFIGS / "voices.yaml").get(ESPEAK_VOICE)
    assert voice is not None, f"configs/voices.yaml has no {ESPEAK_VOICE}"
    registry = VoiceRegistry([voice.model_copy(update={"id": "default"})])
    return Synthesiser(registry, {"espeak": load_engine("espeak")})


def create_app() -> FastAPI:
    synthesiser = espeak_synthesiser()
    normaliser = TextNormaliser()
    params = SynthesisParams("default", "hi")
    app = FastAPI()

    @app.get("/ready")
    def ready() -> dict[str, str]:
        return {"status": "ready"}

    @app.post("/v1/audio/speech")
    def speech(body: SpeechBody) -> Response:  # a plain def: FastAPI runs it on a thread
        segments = normaliser.normalise(body.input, ReadingOptions("hi")).segments
        audio = [synthesiser.speak(segment, params).samples for segment in segments]
        pcm = to_int16(np.concatenate(audio)).tobytes()
        return Response(pcm, media_type="audio/pcm")

    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=8200)
    args = parser.parse_args()
    uvicorn.run(create_app(), host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
