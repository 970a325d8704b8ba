"""Locust users for the speech service: raw chunked audio and SSE.

Each request also reports its time to first audio (the first audio byte, not the
response headers) as a request of type ``TTFA``, so Locust's statistics show it
next to the total time.

    TTS_API_KEY=sk-... locust -f loadtest/locustfile.py --host http://127.0.0.1:8000 \\
        --headless -u 16 -r 4 -t 60s --csv var/load
"""

from __future__ import annotations

import os
import random
import time

from locust import HttpUser, between, events, task

from loadtest.texts import ENGLISH, HINDI


def _api_key() -> str:
    return os.environ.get("TTS_API_KEY") or os.environ.get("TTS_DEV_API_KEY", "")


class SpeechUser(HttpUser):
    """Base: posts speech requests and measures the first audio."""

    abstract = True
    wait_time = between(0.2, 1.0)

    def _speech(self, name: str, body: dict[str, object], first_audio_marker: bytes | None) -> None:
        started = time.perf_counter()
        headers = {"Authorization": f"Bearer {_api_key()}"}
        with self.client.post(
            "/v1/audio/speech",
            json=body,
            headers=headers,
            stream=True,
            name=name,
            catch_response=True,
        ) as response:
            if response.status_code != 200:
                response.failure(f"HTTP {response.status_code}: {response.text[:200]}")
                return
            first: float | None = None
            size = 0
            for chunk in response.iter_content(chunk_size=None):
                if (
                    first is None
                    and chunk
                    and (first_audio_marker is None or first_audio_marker in chunk)
                ):
                    first = time.perf_counter()
                size += len(chunk)
            if first is None:
                response.failure("no audio in the response")
                return
            events.request.fire(
                request_type="TTFA",
                name=name,
                response_time=(first - started) * 1000.0,
                response_length=size,
                exception=None,
                context={},
            )
            response.success()


class RawAudioUser(SpeechUser):
    weight = 2

    @task(3)
    def hindi_pcm(self) -> None:
        self._speech("raw pcm hi", {"input": random.choice(HINDI)}, None)

    @task(1)
    def english_mp3(self) -> None:
        body: dict[str, object] = {
            "input": random.choice(ENGLISH),
            "voice": "en-female-kavya",
            "language": "en",
            "response_format": "mp3",
        }
        self._speech("raw mp3 en", body, None)


class SseUser(SpeechUser):
    weight = 1

    @task
    def hindi_sse(self) -> None:
        body: dict[str, object] = {"input": random.choice(HINDI), "stream_format": "sse"}
        self._speech("sse pcm hi", body, b"audio.delta")
