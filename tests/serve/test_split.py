"""Both placements of the voices: on the Synthesiser deployment, one streaming hop
from the ingress (make run, configs/local.yaml and configs/gpu.yaml), and folded
into the ingress replica; and admission past capacity, over real HTTP."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from tests.conftest import decode, pcm_seconds
from tests.serve.conftest import FOLDED_MAX_ACTIVE, Service, speak_together, usage, usage_after

pytestmark = pytest.mark.serve

HI = "नमस्ते, आप कैसे हैं? आज मौसम बहुत अच्छा है।"
LONG_HI = " ".join(f"यह वाक्य संख्या {i} है, और यह थोड़ा लंबा भी है।" for i in range(60))


def test_both_placements_offer_the_same_voices_and_the_same_audio(service: Service) -> None:
    """The folded app serves the eSpeak voices only (its default is Aditi): each as the
    full graph lists and speaks it."""
    full, folded = (
        {v["id"]: v for v in httpx.get(url + "/v1/voices", timeout=60).json()["data"]}
        for url in (service.url, service.folded_url)
    )
    del folded["default"]
    assert "hi-espeak-aditi" in folded
    assert folded == {i: v for i, v in full.items() if i in folded}
    durations = []
    for url in (service.url, service.folded_url):
        response = httpx.post(
            url + "/v1/audio/speech",
            headers=service.auth,
            timeout=60,
            json={"input": HI, "response_format": "mp3", "voice": "hi-espeak-aditi"},
        )
        assert response.status_code == 200, response.text
        samples, rate = decode(response.content)
        durations.append(samples.size / rate)
    assert durations[1] == pytest.approx(durations[0], rel=0.01)


def test_concurrent_requests_to_a_batching_voice_are_spoken_by_the_synthesiser_deployment(
    service: Service,
) -> None:
    pytest.importorskip("transformers", reason="the vits extra is not installed")

    bodies: list[dict[str, object]] = [
        {"input": f"वाक्य {i}", "voice": "hi-vits-test", "stream": False, "cache": False}
        for i in range(FOLDED_MAX_ACTIVE)
    ]
    responses = speak_together(service.url, service.auth, bodies)
    assert all(r.status_code == 200 for r in responses), responses[0].text
    assert all(pcm_seconds(r.content, 16000) > 0 for r in responses)


def test_past_capacity_the_answer_is_a_quick_503_with_retry_after(service: Service) -> None:
    """Two long streams that are not read take the folded app's two places (eSpeak:
    their first audio comes at once); a third request is turned away at once."""
    before = usage(service.folded_url, service.auth)

    async def run() -> httpx.Response:
        async with httpx.AsyncClient(base_url=service.folded_url, timeout=120) as client:
            streams = [
                await client.send(
                    client.build_request(
                        "POST",
                        "/v1/audio/speech",
                        headers=service.auth,
                        # synthesised as they are read (not sent at once from the cache)
                        json={"input": LONG_HI, "voice": "hi-espeak-aditi", "cache": False},
                    ),
                    stream=True,
                )
                for _ in range(FOLDED_MAX_ACTIVE)
            ]
            try:
                assert all(s.status_code == 200 for s in streams)
                return await client.post(
                    "/v1/audio/speech",
                    headers=service.auth,
                    json={"input": HI, "voice": "hi-espeak-aditi"},
                )
            finally:
                for stream in streams:
                    await stream.aclose()

    refused = asyncio.run(run())
    assert refused.status_code == 503
    assert refused.headers["retry-after"] == "1"
    assert refused.json()["error"]["code"] == "overloaded"
    settled = usage_after(service.folded_url, service.auth, before["requests"] + FOLDED_MAX_ACTIVE)
    assert settled["requests"] == before["requests"] + FOLDED_MAX_ACTIVE  # the 503 is free


def test_an_abandoned_stream_is_billed_for_what_was_delivered(service: Service) -> None:
    before = usage(service.folded_url, service.auth)
    with (
        httpx.Client(base_url=service.folded_url, timeout=60) as client,
        client.stream(
            "POST",
            "/v1/audio/speech",
            headers=service.auth,
            json={"input": LONG_HI, "voice": "hi-espeak-aditi", "cache": False},
        ) as response,
    ):
        next(response.iter_raw())
    after = usage_after(service.folded_url, service.auth, before["requests"] + 1)
    assert after["requests"] == before["requests"] + 1
    assert 0 < after["characters"] - before["characters"] < len(LONG_HI)


def test_the_main_app_is_the_four_deployment_graph(service: Service) -> None:
    import psutil

    titles = " ".join(" ".join(p.info["cmdline"] or ()) for p in psutil.process_iter(["cmdline"]))
    for name in ("Ingress", "TextNormaliser", "AudioEncoder", "Synthesiser"):
        assert f"ServeReplica:speech:{name}" in titles, name  # what ps shows
    ready = httpx.get(service.url + "/ready", headers=service.auth, timeout=60).json()
    assert ready["pipeline"] == {
        "Ingress": {"placement": "deployment", "replicas": 2},
        "TextNormaliser": {"placement": "deployment", "replicas": 1},
        "AudioEncoder": {"placement": "deployment", "replicas": 1},
        "Synthesiser": {"placement": "deployment; espeak in the ingress", "replicas": 1},
    }
    folded = httpx.get(service.folded_url + "/ready", headers=service.auth, timeout=60).json()
    assert folded["pipeline"]["Synthesiser"] == {"placement": "ingress", "replicas": 1}
