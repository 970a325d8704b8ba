"""A stage's replica dies during traffic: the stream it carried ends with an error,
not a hang, and new requests succeed once Serve has replaced it."""

from __future__ import annotations

import json
import time

import httpx
import pytest
import ray

from tests.serve.conftest import Service

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


def speaks_again(service: Service, timeout_s: float = 90) -> float:
    """Seconds until a request succeeds again (fails the test past ``timeout_s``)."""
    started = time.monotonic()
    while time.monotonic() - started < timeout_s:
        response = httpx.post(
            service.url + "/v1/audio/speech",
            headers=service.auth,
            json={"input": "नमस्ते।", "stream": False},
            timeout=60,
        )
        if response.status_code == 200 and response.content:
            return time.monotonic() - started
        assert response.status_code in (500, 503), response.text  # our error shape, no hang
        assert response.json()["error"]["code"] in ("not_ready", "overloaded")
        time.sleep(1)
    raise AssertionError(f"no successful request {timeout_s} s after the replica died")


def test_an_encoder_dies_mid_stream(service: Service) -> None:
    events: list[str] = []
    with (
        httpx.Client(base_url=service.url, timeout=60) as client,
        client.stream(
            "POST",
            "/v1/audio/speech",
            headers=service.auth,
            json={"input": LONG_HI, "stream_format": "sse"},
        ) as response,
    ):
        assert response.status_code == 200
        for line in response.iter_lines():
            if line.startswith("event: "):
                events.append(line.removeprefix("event: "))
                if events == ["audio.delta"]:
                    kill_replica("AudioEncoder")
            elif line.startswith("data: ") and events[-1] == "error":
                error = json.loads(line.removeprefix("data: "))
                assert error["error"]["code"] == "not_ready"
    assert events[0] == "audio.delta" and events[-1] == "error"  # ended in-band, not hung
    speaks_again(service)


def test_new_requests_succeed_after_a_normaliser_dies(service: Service) -> None:
    kill_replica("TextNormaliser")
    speaks_again(service)


def kokoro_calls(service: Service) -> int:
    ready = httpx.get(service.url + "/ready", headers=service.auth).json()
    calls: int = next(e for e in ready["engines"] if e["name"] == "kokoro")["stats"]["model_calls"]
    return calls


def settled_calls(service: Service, timeout_s: float = 60) -> int:
    """Kokoro's call count once it stops growing (nothing is being synthesised)."""
    deadline = time.monotonic() + timeout_s
    calls = kokoro_calls(service)
    while time.monotonic() < deadline:
        time.sleep(2)
        previous, calls = calls, kokoro_calls(service)
        if calls == previous:
            return calls
    raise AssertionError(f"synthesis still running after {timeout_s} s")


def test_a_hang_up_stops_the_encoder_and_the_synthesiser(service: Service) -> None:
    # A stream whose encoder was killed above is spoken to its end by the Synthesiser
    # (nothing is left to cancel it): wait for it, so what follows is this test's.
    settled_calls(service)
    with (
        httpx.Client(base_url=service.url, timeout=60) as client,
        client.stream(
            "POST", "/v1/audio/speech", headers=service.auth, json={"input": LONG_HI}
        ) as response,
    ):
        assert response.status_code == 200
        next(response.iter_raw())  # the first audio, then hang up
        at_hang_up = kokoro_calls(service)
    # The segment being spoken when the cancellation arrives may finish; then nothing.
    assert settled_calls(service, timeout_s=20) - at_hang_up <= 3  # of LONG_HI's 21
