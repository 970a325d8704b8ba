"""The ingress replica's warm-up: one unbilled request through every stage."""

from __future__ import annotations

import asyncio

import httpx

from serve_app.ingress.api import create_app
from serve_app.ingress.state import IngressState
from tests.unit.serve_app.conftest import DEV_KEY


def kokoro_texts(state: IngressState) -> int:
    engines = state.pipeline._local._synthesiser.info().engines  # type: ignore[union-attr]
    return int(next(e for e in engines if e.name == "kokoro").extra["texts"])


async def test_a_warm_up_speaks_through_every_stage_and_bills_nothing(
    state: IngressState,
) -> None:
    spoken = kokoro_texts(state)
    took = await state.warm_up()
    assert took is not None and took > 0
    assert state.replica_status().warm_up_s == took
    assert kokoro_texts(state) > spoken  # the default voice spoke
    transport = httpx.ASGITransport(app=create_app(state))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        auth = {"Authorization": f"Bearer {DEV_KEY}"}
        usage = await client.get("/v1/account/usage", headers=auth)
        ready = await client.get("/ready", headers=auth)
    assert usage.json()["usage"]["requests"] == 0
    assert usage.json()["usage"]["characters"] == 0
    assert ready.json()["replica"]["warm_up_s"] == took


async def test_a_warm_up_that_fails_or_hangs_lets_the_replica_start(
    state: IngressState,
) -> None:
    async def hangs(*args: object, **kwargs: object) -> None:
        await asyncio.sleep(60)

    state.speech.choose = hangs  # type: ignore[method-assign,assignment]
    assert await state.warm_up(timeout_s=0.2) is None
    assert state.replica_status().warm_up_s is None

    async def fails(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the Synthesiser is gone")

    state.speech.choose = fails  # type: ignore[method-assign,assignment]
    assert await state.warm_up() is None
