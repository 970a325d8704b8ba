"""A stage's replica dies during traffic: the stream it carried ends with an error,
not a hang, and new requests succeed once Serve has replaced it.

Every request here asks for synthesis (``"cache": false``): a sentence an earlier test
had spoken would otherwise come from the speech cache, past the stages these tests kill.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import functools
import json
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import httpx
import psutil
import pytest
import ray
import websockets
from websockets.asyncio.client import connect

from tests.conftest import closed_hold
from tests.serve.conftest import Service, kokoro_calls, settled_calls
from tests.waiting import HANG_S

pytestmark = pytest.mark.serve

LONG_HI = " ".join(f"यह वाक्य संख्या {i} है, और यह थोड़ा लंबा भी है।" for i in range(20))


def kill_replica(deployment: str) -> None:
    """Kill every replica of ``deployment`` of the main app (Serve will start new ones)."""
    killed = 0
    for actor in ray.util.list_named_actors(all_namespaces=True):
        if actor["name"].startswith(f"SERVE_REPLICA::speech#{deployment}#"):
            ray.kill(ray.get_actor(actor["name"], namespace=actor["namespace"]), no_restart=True)
            killed += 1
    assert killed, f"no replica of {deployment} found"


def speaks_again(service: Service, timeout_s: float = HANG_S) -> float:
    """Seconds until a request succeeds again (fails the test past ``timeout_s``)."""
    started = time.monotonic()
    while time.monotonic() - started < timeout_s:
        try:
            response = httpx.post(
                service.url + "/v1/audio/speech",
                headers=service.auth,
                json={"input": "नमस्ते।", "stream": False, "cache": False},
                timeout=60,
            )
        except httpx.TransportError:  # HAProxy reloading as replicas come and go
            time.sleep(1)
            continue
        if response.status_code == 200 and response.content:
            return time.monotonic() - started
        assert response.status_code in (500, 503), response.text  # our error shape, no hang
        assert response.json()["error"]["code"] in ("not_ready", "overloaded")
        time.sleep(1)
    raise AssertionError(f"no successful request {timeout_s} s after the replica died")


def test_new_requests_succeed_after_a_normaliser_dies(service: Service) -> None:
    kill_replica("TextNormaliser")
    speaks_again(service)


def test_a_hang_up_stops_the_encoder_and_the_synthesiser(service: Service) -> None:
    # Whatever an earlier test left speaking ends first, so what follows is this test's.
    settled_calls(service)
    with (
        httpx.Client(base_url=service.url, timeout=60) as client,
        client.stream(
            "POST",
            "/v1/audio/speech",
            headers=service.auth,
            json={"input": LONG_HI, "cache": False},
        ) as response,
    ):
        assert response.status_code == 200
        next(response.iter_raw())  # the first audio, then hang up
        at_hang_up = kokoro_calls(service)
    # The segment being spoken when the cancellation arrives may finish; then nothing.
    assert settled_calls(service) - at_hang_up <= 3  # of LONG_HI's 21


MEDIUM_HI = " ".join(f"यह वाक्य संख्या {i} है, और यह भी।" for i in range(8))
RATE = 24000  # the default voice's PCM


def sigkill(deployment: str) -> None:
    """SIGKILL the processes of every replica of ``deployment`` of the main app (this
    tier's Ray's: a local cluster may run the same application beside it)."""
    killed = 0
    for process in psutil.Process().children(recursive=True):
        try:
            title = " ".join(process.cmdline())
        except psutil.Error:
            continue
        if title.startswith(f"ray::ServeReplica:speech:{deployment}"):
            process.kill()
            killed += 1
    assert killed, f"no process of {deployment}"


@dataclass
class KilledStream:
    ended: str  # an error code, "done", or "dropped" (the connection broke)
    seconds: float  # from the kill to the stream's end
    started: float  # wall clock, before the request
    deltas: list[tuple[float, int]]  # (arrival, PCM bytes) of each audio delta
    ended_at: float = 0.0  # monotonic

    def ms(self, until: float = float("inf")) -> int:
        """Milliseconds of audio received (up to monotonic time ``until``)."""
        return sum(n for t, n in self.deltas if t <= until) // 2 * 1000 // RATE


# A reader runs one stream in its own thread and sets its event once the stage may
# be killed under it (and whenever it ends, so that the killer never waits for nothing).
Reader = Callable[[threading.Event], Any]


def sse_reader(service: Service, text: str = MEDIUM_HI, after_s: float = 0.0) -> Reader:
    """An SSE stream of ``text`` in the default voice, ready for the kill at the first
    audio that arrives ``after_s`` seconds or more after the first."""

    def read(ready: threading.Event) -> KilledStream:
        stream = KilledStream("", 0.0, time.time(), [])
        try:
            with httpx.stream(
                "POST",
                service.url + "/v1/audio/speech",
                headers=service.auth,
                json={"input": text, "stream_format": "sse", "cache": False},
                timeout=30,
            ) as response:
                assert response.status_code == 200
                for line in response.iter_lines():
                    if not line.startswith("data: "):
                        continue
                    data = json.loads(line.removeprefix("data: "))
                    if data.get("type") == "audio.delta":
                        now = time.monotonic()
                        stream.deltas.append((now, len(base64.b64decode(data["delta"]))))
                        if now - stream.deltas[0][0] >= after_s:
                            ready.set()
                    elif "error" in data:
                        stream.ended = data["error"]["code"]
                    elif data.get("type") == "audio.done":
                        stream.ended = "done"
        except httpx.HTTPError:
            stream.ended = "dropped"
        finally:
            ready.set()
        stream.ended_at = time.monotonic()
        return stream

    return read


def raw_reader(service: Service, text: str = MEDIUM_HI) -> Reader:
    """A raw PCM stream of ``text``: (bytes received, whether the transfer broke)."""

    def read(ready: threading.Event) -> tuple[int, bool]:
        received = 0
        try:
            with httpx.stream(
                "POST",
                service.url + "/v1/audio/speech",
                headers=service.auth,
                json={"input": text, "cache": False},
                timeout=30,
            ) as response:
                assert response.status_code == 200
                for chunk in response.iter_raw():
                    received += len(chunk)
                    ready.set()
        except httpx.RemoteProtocolError:
            return received, True
        finally:
            ready.set()
        return received, False

    return read


def websocket_reader(service: Service, text: str = MEDIUM_HI) -> Reader:
    """A stream-input WebSocket session of ``text``: (its error message or None, the
    close code)."""

    async def session(ready: threading.Event) -> tuple[dict[str, Any] | None, int | None]:
        url = service.url.replace("http://", "ws://") + "/v1/audio/speech/stream-input/default"
        async with connect(url + "?cache=false", additional_headers=service.auth) as ws:
            await ws.send(json.dumps({"text": text + " "}))
            await ws.send(json.dumps({"text": ""}))
            async for raw in ws:
                message = json.loads(raw)
                if "error" in message:
                    with contextlib.suppress(websockets.ConnectionClosed):
                        await ws.recv()
                    return message, ws.close_code
                ready.set()
        return None, ws.close_code

    def read(ready: threading.Event) -> tuple[dict[str, Any] | None, int | None]:
        try:
            return asyncio.run(session(ready))
        finally:
            ready.set()

    return read


@dataclass
class Kill:
    results: list[Any]  # each reader's, in order
    calls_at_kill: int  # Kokoro's model calls when the kill landed


def kill_under(service: Service, kill: Callable[[], None], readers: list[Reader]) -> Kill:
    """From a healthy service, start ``readers`` one after another (each once the one
    before is ready, so their holds are made in order), ``kill`` a stage once all are
    ready, and wait for every stream to end. A :class:`KilledStream`'s ``seconds``
    are counted from the kill."""
    speaks_again(service)  # whatever the test before did
    with ThreadPoolExecutor(len(readers)) as pool:
        futures = []
        for reader in readers:
            ready = threading.Event()
            futures.append(pool.submit(reader, ready))
            assert ready.wait(HANG_S), "no audio"
        calls = kokoro_calls(service)
        kill()
        killed_at = time.monotonic()
        results = [future.result(timeout=2 * HANG_S) for future in futures]
    for result in results:
        if isinstance(result, KilledStream):
            result.seconds = result.ended_at - killed_at
    return Kill(results, calls)


def stream_and_kill(
    service: Service, deployment: str, after_s: float = 0.0, text: str = MEDIUM_HI
) -> KilledStream:
    """An SSE stream of ``text`` whose ``deployment`` is SIGKILLed at the first audio
    that arrives ``after_s`` seconds or more after the first."""
    kill = kill_under(
        service, functools.partial(sigkill, deployment), [sse_reader(service, text, after_s)]
    )
    stream: KilledStream = kill.results[0]
    return stream


def other_clients_are_served(service: Service) -> None:
    """While a stage is being replaced: eSpeak answers from the ingress."""
    other = httpx.post(
        service.url + "/v1/audio/speech",
        headers=service.auth,
        json={"input": "नमस्ते।", "voice": "hi-espeak-aditi", "stream": False, "cache": False},
        timeout=30,
    )
    assert other.status_code == 200 and other.content


def sigkill_under(service: Service, deployment: str, other: Reader) -> Kill:
    """One SIGKILL of ``deployment`` under an SSE stream and ``other``; meanwhile other
    clients are served."""
    readers = [sse_reader(service), other]
    kill = kill_under(service, functools.partial(sigkill, deployment), readers)
    other_clients_are_served(service)
    return kill


@pytest.fixture(scope="module")
def encoder_killed(service: Service) -> Kill:
    """The AudioEncoder under an SSE stream and a raw stream."""
    return sigkill_under(service, "AudioEncoder", raw_reader(service))


@pytest.fixture(scope="module")
def synthesiser_killed(service: Service) -> Kill:
    """The Synthesiser under an SSE stream and a WebSocket session."""
    return sigkill_under(service, "Synthesiser", websocket_reader(service))


@pytest.mark.parametrize(
    "killed", ["encoder_killed", "synthesiser_killed"], ids=["AudioEncoder", "Synthesiser"]
)
def test_a_stage_killed_by_sigkill_ends_its_stream_at_once_and_bills_what_was_sent(
    service: Service, killed: str, request: pytest.FixtureRequest
) -> None:
    """The AudioEncoder or the Synthesiser is SIGKILLed at the first audio of an SSE
    stream (with another stream on it: below); other clients keep being served."""
    stream: KilledStream = request.getfixturevalue(killed).results[0]
    assert stream.ended == "not_ready" and stream.seconds < 2.0, stream
    assert closed_hold(service.ledger, stream.started) == (
        "settled",
        stream.ms(),
    )  # exactly what was sent
    speaks_again(service)


def test_a_raw_stream_whose_encoder_dies_breaks_instead_of_ending_cleanly(
    service: Service, encoder_killed: Kill
) -> None:
    """Raw audio has no room for an error event: the response is cut without its last
    chunk, so the client sees a broken transfer, never a short but clean file."""
    received, broke = encoder_killed.results[1]
    assert broke and received > 0
    speaks_again(service)


def test_a_websocket_whose_synthesiser_dies_gets_an_error_frame_and_1011(
    service: Service, synthesiser_killed: Kill
) -> None:
    """A WebSocket context reads raw audio from the Synthesiser (it encodes its pieces
    itself, as one stream): the stage it depends on dies mid-session."""
    message, code = synthesiser_killed.results[1]
    assert message is not None and message["error"]["code"] == "not_ready" and code == 1011
    speaks_again(service)


@pytest.fixture(scope="module")
def encoder_actor_killed(service: Service) -> tuple[KilledStream, int]:
    """The AudioEncoder killed through Ray (``ray.kill``) at the first audio of a
    forty-sentence SSE stream; the stream, and how many Kokoro calls were made after
    the kill once synthesis has stopped."""
    text = " ".join(f"यह वाक्य संख्या {i} है, और यह थोड़ा लंबा भी है।" for i in range(40))
    kill = kill_under(
        service, functools.partial(kill_replica, "AudioEncoder"), [sse_reader(service, text)]
    )
    return kill.results[0], settled_calls(service) - kill.calls_at_kill


def test_an_encoder_dies_mid_stream(
    service: Service, encoder_actor_killed: tuple[KilledStream, int]
) -> None:
    stream, _ = encoder_actor_killed
    assert stream.deltas and stream.ended == "not_ready", stream  # in-band, not hung
    speaks_again(service)


def test_a_dead_encoder_stops_synthesis_within_a_segment(
    service: Service, encoder_actor_killed: tuple[KilledStream, int]
) -> None:
    """When the AudioEncoder dies at the first audio of a forty-sentence text, its
    stream from the Synthesiser breaks: the Synthesiser finishes at most the segment
    in flight, and speaks nothing more for nobody."""
    _, spoken_after = encoder_actor_killed
    assert spoken_after <= 2
    speaks_again(service)


def test_an_ingress_killed_by_sigkill_has_its_hold_settled_by_the_others(
    service: Service,
) -> None:
    """Every ingress replica dies mid-stream: the client's connection breaks at once;
    once Serve has replaced them, the hold the dead one left is settled for the
    progress it recorded (every progress_interval_s, 1 s): never more than was sent,
    at most the last interval's audio less."""
    stream = stream_and_kill(service, "Ingress", after_s=2.0)
    assert stream.ended == "dropped" and stream.seconds < 2.0, stream
    speaks_again(service)
    state, recorded = closed_hold(service.ledger, stream.started)
    last = stream.deltas[-1][0]
    assert state == "settled"
    assert stream.ms(until=last - 1.5) <= recorded <= stream.ms()
