"""The bench's comparison server answers with the whole utterance, as the service does."""

from __future__ import annotations

import httpx

from loadtest.baseline import create_app
from tests.conftest import pcm_seconds

TEXT = "नमस्ते, आप कैसे हैं? मैं ठीक हूँ।"


async def test_baseline_speaks_the_whole_text_in_one_body() -> None:
    transport = httpx.ASGITransport(app=create_app())
    async with httpx.AsyncClient(transport=transport, base_url="http://baseline") as client:
        assert (await client.get("/ready")).status_code == 200
        response = await client.post("/v1/audio/speech", json={"input": TEXT})
        short = await client.post("/v1/audio/speech", json={"input": "नमस्ते"})
    assert response.status_code == 200 and response.headers["content-type"] == "audio/pcm"
    seconds = pcm_seconds(response.content, 22050)
    assert 1.0 < seconds < 6.0
    assert pcm_seconds(short.content, 22050) < seconds / 2
