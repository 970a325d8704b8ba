"""Hostile and edge input over the real stack (HAProxy, the ingress, the graph):
the API's 400s, never a 500; nothing billed that was not said."""

from __future__ import annotations

import httpx
import pytest

from tests.conftest import decode
from tests.serve.conftest import Service

pytestmark = pytest.mark.serve

HUGE = b"9" * 5_000


@pytest.mark.parametrize(
    ("body", "param"),
    [
        (b'{"input": "hi", "sample_rate": ' + HUGE + b"}", "sample_rate"),
        (b'{"input": "hi", "speed": ' + HUGE + b"}", "speed"),
        (b'{"input": "hi", "language": "\\ud800"}', "language"),
    ],
)
def test_huge_numbers_and_lone_surrogates_are_400(
    client: httpx.Client, service: Service, body: bytes, param: str
) -> None:
    response = client.post("/v1/audio/speech", headers=service.auth, content=body)
    assert response.status_code == 400, response.text
    assert response.json()["error"]["param"] == param


def test_a_long_sentence_at_half_speed_is_spoken_whole(
    client: httpx.Client, service: Service
) -> None:
    """One segment of ~80 s of audio: more than one message between deployments may
    hold (4 MiB), so it crosses from the Synthesiser in pieces."""
    words = "the quick brown fox jumps over the lazy dog and runs into the forest".split()
    text = " ".join(words * 10)[:590]
    response = client.post(
        "/v1/audio/speech",
        headers=service.auth,
        json={"input": text, "voice": "en-us-joe", "language": "en", "speed": 0.5,
              "quality": "high", "stream": False, "response_format": "wav"},
        timeout=300,
    )  # fmt: skip
    assert response.status_code == 200, response.text
    samples, rate = decode(response.content)
    assert samples.size / rate > 50


def test_ready_names_no_voice_the_voice_list_does_not(
    client: httpx.Client, service: Service
) -> None:
    """The serve tier loads a private test voice (hi-vits-test): served by its id,
    listed nowhere."""
    public = {v["id"] for v in client.get("/v1/voices").json()["data"]}
    ready = client.get("/ready", headers=service.auth).json()
    named = set(ready["voices"]) | {v for e in ready["engines"] for v in e["voices"]}
    assert named <= public and "hi-vits-test" not in client.get("/ready", headers=service.auth).text
    caps = client.get("/v1/capabilities", headers=service.auth).json()
    assert {v["id"] for v in caps["voices"]} <= public
