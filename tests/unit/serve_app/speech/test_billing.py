"""The meter's progress records: what a crash of the ingress may lose."""

from __future__ import annotations

import asyncio

from deployments.messages import EncodedChunk
from serve_app.accounts import AccountStore, ApiKey
from serve_app.settings import IngressConfig
from serve_app.speech.billing import Meter

INTERVAL_S = 0.2


def chunk(ms: int, end_char: int) -> EncodedChunk:
    return EncodedChunk(b"\0" * 48 * ms, 24_000, 24 * ms, end_char)


async def test_progress_reaches_the_ledger_within_an_interval_without_another_chunk(
    database_url: str,
) -> None:
    """A chunk followed by silence is recorded one interval later: a process that
    dies after it (before any other chunk) has its hold settled for that chunk too."""
    ingress, survivor = AccountStore.open(database_url), AccountStore.open(database_url)
    project = ingress.create_project("acme", 1_000_000)
    key = ApiKey(key_id="k", project_id=project, scopes=("speech",))
    meter = Meter(ingress, IngressConfig(progress_interval_s=INTERVAL_S, rate_limit_per_minute=0))
    bill = await meter.hold(key, characters=40)
    await meter.delivered(bill, chunk(500, 10))
    await asyncio.sleep(INTERVAL_S / 4)
    await meter.delivered(bill, chunk(300, 20))  # within the same interval
    await asyncio.sleep(INTERVAL_S * 3)  # ... and then nothing more arrives
    assert bill.checkpoint is None
    assert survivor.recover(lease_s=-1) == 1  # as if the ingress had died here
    usage = survivor.usage(project)
    assert (usage.characters, usage.audio_ms) == (20, 800)
    ingress.close()
    survivor.close()


async def test_settling_stops_a_pending_record(database_url: str) -> None:
    store = AccountStore.open(database_url)
    project = store.create_project("acme", 1_000_000)
    key = ApiKey(key_id="k", project_id=project, scopes=("speech",))
    meter = Meter(store, IngressConfig(progress_interval_s=60, rate_limit_per_minute=0))
    bill = await meter.hold(key, characters=40)
    await meter.delivered(bill, chunk(500, 10))
    pending = bill.checkpoint
    assert pending is not None and not pending.done()
    usage = await meter.settle(bill)
    await asyncio.sleep(0)
    assert pending.cancelled() and (usage.characters, usage.audio_ms) == (10, 500)
    assert store.usage(project).audio_ms == 500
    store.close()
