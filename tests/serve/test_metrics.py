"""Our metrics reach Ray's Prometheus endpoint."""

from __future__ import annotations

import time

import httpx
import pytest

from tests.serve.conftest import Service

pytestmark = pytest.mark.serve

EXPECTED = (
    "ray_tts_time_to_first_audio_ms_count",
    "ray_tts_real_time_factor_count",
    "ray_tts_characters_total",
    "ray_tts_audio_seconds_total",
    "ray_tts_rejections_total",
)


def test_metrics_are_scrapeable(service: Service) -> None:
    httpx.post(
        service.url + "/v1/audio/speech",
        headers=service.auth,
        json={"input": "नमस्ते।", "stream": False},
        timeout=60,
    )
    httpx.post(service.url + "/v1/audio/speech", json={"input": "x"}, timeout=60)  # 401
    missing: list[str] = list(EXPECTED)
    deadline = time.monotonic() + 60  # Ray exports metrics every few seconds
    while missing and time.monotonic() < deadline:
        text = httpx.get(service.metrics_url, timeout=10).text
        missing = [name for name in EXPECTED if name not in text]
        if missing:
            time.sleep(2)
    assert not missing, f"not exported: {missing}"
    assert 'code="missing_api_key"' in text
