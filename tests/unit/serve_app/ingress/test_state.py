"""The ingress replica's warm-up: one unbilled request through every stage; what /ready
says of a Synthesiser deployment scaled to zero."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx

from deployments.synthesis.runner import SynthesisRunner
from deployments.synthesis.synthesiser import SynthesiserInfo
from serve_app.ingress.api import create_app
from serve_app.ingress.state import IngressState
from serve_app.settings import IngressConfig
from serve_app.speech.pipeline import LocalEncoding, LocalNormalisation, LocalSynthesis, Pipeline
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


class Deployment(LocalSynthesis):
    """The Synthesiser deployment as the ingress sees it, counting what it is asked."""

    asked = 0

    async def info(self) -> SynthesiserInfo:
        self.asked += 1
        return await super().info()


async def test_ready_says_a_voice_is_scaled_to_zero_without_waking_it(tmp_path: Path) -> None:
    here = LocalSynthesis(SynthesisRunner({"voice_engines": ["espeak"]}))
    there = Deployment(SynthesisRunner({"voice_engines": ["kokoro"]}))
    running = {"Ingress": 1, "Synthesiser": 1}
    config = IngressConfig(dev_api_key=DEV_KEY, database_url=str(tmp_path / "ledger.sqlite3"))
    pipeline = Pipeline(LocalNormalisation(), LocalEncoding(there), [here, there], here)
    state = IngressState(
        config, pipeline, stages={"Synthesiser": "deployment"}, replicas=lambda: dict(running)
    )
    transport = httpx.ASGITransport(app=create_app(state))
    auth = {"Authorization": f"Bearer {DEV_KEY}"}
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        awake = (await client.get("/ready", headers=auth)).json()
        running["Synthesiser"] = 0
        asked = there.asked
        asleep = (await client.get("/ready", headers=auth)).json()
    assert there.asked == asked  # not asked: that would start a replica
    states = {e["name"]: e["state"] for e in asleep["engines"]}
    assert states == {"espeak": "running", "kokoro": "scaled_to_zero"}
    assert {e["name"]: e["state"] for e in awake["engines"]} == {
        "espeak": "running",
        "kokoro": "running",
    }
    assert asleep["status"] == "ready" and "default" in asleep["voices"]
    assert asleep["voices"] == awake["voices"]
    assert asleep["pipeline"]["Synthesiser"]["replicas"] == 0
