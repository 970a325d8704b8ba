"""Locust users for the speech service: raw chunked audio, SSE and WebSocket.

Each request also reports its time to first audio (the first audio byte, not the
response headers) as a request of type ``TTFA``, next to its total time.

    TTS_API_KEY=sk-... locust -f loadtest/locustfile.py --host http://127.0.0.1:8000 \\
        --headless -u 16 -r 4 -t 60s --csv var/load \\
        --max-fail-ratio 0.01 --max-ttfa-p95-ms 500

Add ``loadtest/shapes.py`` to ``-f`` for the staged 1 -> 4 -> 16 -> 64 user shape.
The run exits non-zero when the failure ratio or any TTFA p95 passes its threshold.
The users repeat a few texts; each is synthesised anew unless ``--speech-cache`` lets
the service's speech cache answer the ones it has spoken.
"""

from __future__ import annotations

import base64
import json
import os
import random
import time
from typing import Any

import websocket
from locust import HttpUser, User, between, events, task
from locust.env import Environment

from loadtest.texts import ENGLISH, HINDI


def _api_key() -> str:
    return os.environ.get("TTS_API_KEY") or os.environ.get("TTS_DEV_API_KEY", "")


@events.init_command_line_parser.add_listener
def _thresholds(parser: Any) -> None:
    parser.add_argument(
        "--max-fail-ratio",
        type=float,
        default=None,
        help="exit 1 if failures / requests is above this",
    )
    parser.add_argument(
        "--max-ttfa-p95-ms",
        type=float,
        default=None,
        help="exit 1 if a TTFA p95 (ms) is above this",
    )
    parser.add_argument(
        "--speech-cache",
        action="store_true",
        default=False,
        help="let the service's speech cache answer texts it has spoken before (the "
        "users repeat a few texts: by default each is synthesised anew, to load the "
        "voices)",
    )


def _cache_allowed(environment: Environment) -> bool:
    options = environment.parsed_options
    return bool(options and options.speech_cache)


@events.quitting.add_listener
def _judge(environment: Environment, **_: Any) -> None:
    options = environment.parsed_options
    stats = environment.stats
    verdicts = []
    if (
        options
        and options.max_fail_ratio is not None
        and stats.total.fail_ratio > options.max_fail_ratio
    ):
        verdicts.append(f"failure ratio {stats.total.fail_ratio:.3f} > {options.max_fail_ratio}")
    if options and options.max_ttfa_p95_ms is not None:
        measured = [e for e in stats.entries.values() if e.method == "TTFA" and e.num_requests]
        if not measured:
            # A bound on a number never measured cannot be shown to hold.
            verdicts.append("no time to first audio was measured")
        for entry in measured:
            p95 = entry.get_response_time_percentile(0.95)
            if p95 > options.max_ttfa_p95_ms:
                verdicts.append(
                    f"TTFA p95 of {entry.name} {p95:.0f} ms > {options.max_ttfa_p95_ms}"
                )
    for verdict in verdicts:
        print(f"THRESHOLD FAILED: {verdict}")
    if verdicts:
        environment.process_exit_code = 1


class ErrorFrame(RuntimeError):
    """A WebSocket's error frame, named as an HTTP error names its body: type and code
    (``error frame overloaded_error/overloaded: ...``)."""

    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(
            f"error frame {error.get('type')}/{error.get('code')}: {error.get('message', '')}"
        )


def _report_ttfa(name: str, started: float, first: float, size: int) -> None:
    """Reported the moment the first audio arrives, so a run that stops mid-stream
    still counts every first audio it saw."""
    events.request.fire(
        request_type="TTFA",
        name=name,
        response_time=(first - started) * 1000.0,
        response_length=size,
        exception=None,
        context={},
    )


class SpeechUser(HttpUser):
    """Base: posts speech requests and measures the first audio."""

    abstract = True
    wait_time = between(0.2, 1.0)

    def _speech(self, name: str, body: dict[str, object], first_audio_marker: bytes | None) -> None:
        started = time.perf_counter()
        headers = {"Authorization": f"Bearer {_api_key()}"}
        if not _cache_allowed(self.environment):
            body = {**body, "cache": False}
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
                marked = first_audio_marker is None or first_audio_marker in chunk
                if first is None and chunk and marked:
                    first = time.perf_counter()
                    _report_ttfa(name, started, first, len(chunk))
                size += len(chunk)
            if first is None:
                response.failure("no audio in the response")
                return
            response.success()


class RawAudioUser(SpeechUser):
    weight = 2
    english_voice = "en-female-kavya"

    def on_start(self) -> None:
        """An English voice of the service under load: the voice lists of make run
        (configs/voices.yaml) and of a cluster (configs/voices.gpu.yaml) differ."""
        headers = {"Authorization": f"Bearer {_api_key()}"}
        response = self.client.get("/v1/voices", headers=headers, name="voices")
        if response.status_code == 200:
            english = [v["id"] for v in response.json()["data"] if "en" in v["languages"]]
            self.english_voice = english[0] if english else self.english_voice

    @task(3)
    def hindi_pcm(self) -> None:
        self._speech("raw pcm hi", {"input": random.choice(HINDI)}, None)

    @task(1)
    def english_mp3(self) -> None:
        body: dict[str, object] = {
            "input": random.choice(ENGLISH),
            "voice": self.english_voice,
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


class WebSocketUser(User):
    """Streams a text word by word over WS stream-input (Locust has no WebSocket
    user of its own: this one is written on websocket-client)."""

    weight = 1
    wait_time = between(0.2, 1.0)

    @task
    def hindi_words(self) -> None:
        name = "ws pcm hi"
        url = (self.host or "").replace("http", "ws", 1) + "/v1/audio/speech/stream-input/default"
        if not _cache_allowed(self.environment):
            url += "?cache=false"
        started = time.perf_counter()
        first: float | None = None
        size = 0
        error: Exception | None = None
        try:
            ws = websocket.create_connection(
                url, header=[f"Authorization: Bearer {_api_key()}"], timeout=60
            )
            try:
                ws.send(json.dumps({"text": " "}))
                for word in random.choice(HINDI).split(" "):
                    ws.send(json.dumps({"text": word + " "}))
                ws.send(json.dumps({"text": ""}))
                while True:
                    message = json.loads(ws.recv())
                    if "error" in message:
                        raise ErrorFrame(message["error"])
                    if message.get("isFinal"):
                        break
                    chunk = len(base64.b64decode(message["audio"]))
                    if first is None:
                        first = time.perf_counter()
                        _report_ttfa(name, started, first, chunk)
                    size += chunk
            finally:
                ws.close()
        except Exception as e:  # reported to Locust as this request's failure
            error = e
        events.request.fire(
            request_type="WS",
            name=name,
            response_time=(time.perf_counter() - started) * 1000.0,
            response_length=size,
            exception=error,
            context={},
        )


__all__ = ["RawAudioUser", "SseUser", "WebSocketUser"]
