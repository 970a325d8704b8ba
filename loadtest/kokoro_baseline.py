"""The neural comparison server of ``make bench``: Kokoro served the plain way.

One process, one ONNX Runtime session (intra-op threads = the cores), no Ray: a
FastAPI endpoint that cuts the text into sentences and, for each in turn,
phonemises it, runs the model under the session's lock and streams the raw
output as PCM. What a single-process Kokoro server does; the bench sends it the
same text as the service's default voice.

    python -m loadtest.kokoro_baseline --port 8201
"""

from __future__ import annotations

import argparse
import os
import re
import threading
from collections.abc import Iterator

import numpy as np
import onnxruntime
import uvicorn
from fastapi import FastAPI
from fastapi.responses import StreamingResponse
from pydantic import BaseModel

from deployments.encoding.writers import to_int16
from deployments.espeak_binding import espeak_library
from deployments.synthesis.engines.kokoro.assets import (
    default_voices_dir,
    load_model_bytes,
    load_style,
)
from deployments.synthesis.engines.kokoro.phonemes import KokoroPhonemizer

SENTENCE_END = re.compile(r"(?<=[।.!?])\s+")
STYLE = "hf_alpha"  # the service's default voice


class SpeechBody(BaseModel):
    input: str


def create_app(threads: int | None = None) -> FastAPI:
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads or os.cpu_count() or 1
    session = onnxruntime.InferenceSession(
        load_model_bytes(), sess_options=options, providers=["CPUExecutionProvider"]
    )
    style = load_style(STYLE, default_voices_dir())
    phonemizer = KokoroPhonemizer(espeak_library())
    lock = threading.Lock()

    def sentence_audio(sentence: str) -> bytes:
        tokens = phonemizer.tokens(phonemizer.phonemes(sentence, "hi"))[:510]
        if not tokens:
            return b""
        feed = {
            "tokens": np.array([[0, *tokens, 0]], dtype=np.int64),
            "style": style[len(tokens) - 1].reshape(1, -1),
            "speed": np.ones(1, dtype=np.float32),
        }
        with lock:
            audio = session.run(None, feed)[0]
        return to_int16(np.asarray(audio, dtype=np.float32).reshape(-1)).tobytes()

    app = FastAPI()

    @app.get("/ready")
    def ready() -> dict[str, str]:
        return {"status": "ready"}

    @app.post("/v1/audio/speech")
    def speech(body: SpeechBody) -> StreamingResponse:
        def sentences() -> Iterator[bytes]:  # Starlette iterates it on a thread
            for sentence in SENTENCE_END.split(body.input.strip()):
                yield sentence_audio(sentence)

        return StreamingResponse(sentences(), media_type="audio/pcm")

    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=8201)
    args = parser.parse_args()
    uvicorn.run(create_app(), host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
