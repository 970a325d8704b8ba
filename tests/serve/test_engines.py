"""Neural engines through the whole Serve graph: Piper, and VITS with batching."""

from __future__ import annotations

import httpx
import pytest

from tests.conftest import decode, pcm_seconds
from tests.serve.conftest import Service, speak_together

pytestmark = pytest.mark.serve


def test_piper_voice_is_served_next_to_kokoro_and_espeak(service: Service) -> None:
    pytest.importorskip("piper", reason="the piper extra is not installed")
    voices = {v["id"]: v for v in httpx.get(service.url + "/v1/voices", timeout=60).json()["data"]}
    assert voices["en-us-joe"]["engine"] == "piper" and voices["default"]["engine"] == "kokoro"
    assert voices["hi-espeak-aditi"]["engine"] == "espeak"
    response = httpx.post(
        service.url + "/v1/audio/speech",
        headers=service.auth,
        timeout=60,
        json={
            "input": "Hello from the neural voice.",
            "voice": "en-us-joe",
            "language": "en",
            "response_format": "mp3",
        },
    )
    samples, rate = decode(response.content)
    assert response.status_code == 200 and rate == 22050 and samples.size / rate > 0.8


def test_a_saved_vits_checkpoint_is_served_with_batching(service: Service) -> None:
    pytest.importorskip("transformers", reason="the vits extra is not installed")

    bodies: list[dict[str, object]] = [
        {"input": f"यह वाक्य संख्या {i} है।", "voice": "hi-vits-test", "stream": False, "cache": False}
        for i in range(8)
    ]
    responses = speak_together(service.url, service.auth, bodies)
    assert all(r.status_code == 200 for r in responses), responses[0].text
    # pcm: 24 kHz unless asked, the 16 kHz checkpoint resampled
    assert all(r.headers["x-service-sample-rate"] == "24000" for r in responses)
    assert all(pcm_seconds(r.content, 24000) > 0 for r in responses)
    # Each ingress replica batches what reaches it; /ready answers from one replica
    # at a time, so ask a few times.
    stats = []
    for _ in range(6):
        ready = httpx.get(service.url + "/ready", headers=service.auth, timeout=60).json()
        stats.append(next(e for e in ready["engines"] if e["name"] == "vits")["stats"])
    assert any(s["segments"] > s["forward_passes"] for s in stats), stats  # batches formed
