"""The bench's neural comparison server streams Kokoro audio sentence by sentence."""

from __future__ import annotations

import httpx

from loadtest.kokoro_baseline import create_app
from tests.conftest import pcm_seconds


async def test_it_streams_each_sentence_as_it_is_spoken() -> None:
    transport = httpx.ASGITransport(app=create_app())
    async with httpx.AsyncClient(transport=transport, base_url="http://baseline") as client:
        assert (await client.get("/ready")).status_code == 200
        one = await client.post("/v1/audio/speech", json={"input": "नमस्ते।"})
        two = await client.post("/v1/audio/speech", json={"input": "नमस्ते। आप कैसे हैं?"})
    assert one.status_code == 200 and one.headers["content-type"] == "audio/pcm"
    seconds = pcm_seconds(one.content, 24000)
    assert 0.5 < seconds < 4.0  # untrimmed: the model's silences included
    assert pcm_seconds(two.content, 24000) > 1.5 * seconds
