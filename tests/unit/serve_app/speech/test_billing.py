"""The meter's progress records: what a crash of the ingress may lose."""

from __future__ import annotations

import asyncio
import contextlib
import random
import threading
import time
from typing import Any

import pytest

from deployments.messages import EncodedChunk
from serve_app.accounts import AccountStore, ApiKey
from serve_app.accounts.database import open_database
from serve_app.http.errors import InsufficientBalance
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
    bill = await meter.open_bill(key, characters=40)
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
    bill = await meter.open_bill(key, characters=40)
    await meter.delivered(bill, chunk(500, 10))
    pending = bill.checkpoint
    assert pending is not None and not pending.done()
    usage = await meter.settle(bill)
    await asyncio.sleep(0)
    assert pending.cancelled() and (usage.characters, usage.audio_ms) == (10, 500)
    assert store.usage(project).audio_ms == 500
    store.close()


class GatedStore(AccountStore):
    """The real store, whose hold writes wait at a gate once they have begun."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.writing = threading.Event()
        self.gate = threading.Event()

    def hold(self, *args: Any, **kwargs: Any) -> None:
        self.writing.set()
        self.gate.wait(10)
        super().hold(*args, **kwargs)


def open_holds(store: AccountStore) -> int:
    with store._db.transaction() as tx:
        row = tx.one("SELECT COUNT(*) FROM holds WHERE state = 'open'")
    return int(row[0]) if row else 0


async def settled_down(meter: Meter, timeout_s: float = 10) -> None:
    """Until no hold of ``meter`` is live (releases run after their requests)."""
    deadline = time.monotonic() + timeout_s
    while meter.live and time.monotonic() < deadline:  # noqa: ASYNC110 (a property, no event)
        await asyncio.sleep(0.02)


async def test_a_request_cancelled_while_its_hold_is_written_leaves_no_hold(
    database_url: str,
) -> None:
    """The client hangs up while the hold's write is under way: the write commits
    (it cannot be taken back), and the hold is then released."""
    store = GatedStore(open_database(database_url))
    project = store.create_project("acme", 10_000)
    key = ApiKey(key_id="k", project_id=project, scopes=("speech",))
    meter = Meter(store, IngressConfig(rate_limit_per_minute=0))
    request = asyncio.create_task(meter.open_bill(key, characters=60))
    await asyncio.to_thread(store.writing.wait, 10)
    request.cancel()
    store.gate.set()
    with pytest.raises(asyncio.CancelledError):
        await request
    await settled_down(meter)
    assert meter.live == frozenset()
    assert store.usage(project).held == 0 and open_holds(store) == 0
    store.close()


async def test_a_thousand_hang_ups_leave_no_hold(database_url: str) -> None:
    """1,000 requests each cancelled at a random moment of its hold (before, during or
    after the write) on a balance that covers 100 at once: none stays held."""
    store = AccountStore.open(database_url)
    project = store.create_project("acme", 100 * 60 * 150)
    key = ApiKey(key_id="k", project_id=project, scopes=("speech",))
    meter = Meter(store, IngressConfig(rate_limit_per_minute=0))
    rng = random.Random(40)

    async def hang_up() -> None:
        request = asyncio.create_task(meter.open_bill(key, characters=60))
        await asyncio.sleep(rng.uniform(0, 0.005))
        request.cancel()
        with contextlib.suppress(asyncio.CancelledError, InsufficientBalance):
            bill = await request
            await meter.settle(bill)  # not cancelled in time: it ends as a request does

    for _ in range(10):
        await asyncio.gather(*(hang_up() for _ in range(100)))
    await settled_down(meter)
    assert meter.live == frozenset()
    assert store.usage(project).held == 0 and open_holds(store) == 0
    assert store.ledger_sum(project) == store.usage(project).balance
    store.close()


def test_the_sweep_settles_a_hold_no_request_owns(database_url: str) -> None:
    """A hold of this process that no live request owns is settled at its recorded
    progress; one a request owns, and one just written, are left alone."""
    store = AccountStore.open(database_url)
    project = store.create_project("acme", 1_000_000)
    for hold_id in ("orphan", "owned"):
        store.hold(project, hold_id, 6000)
    store.record_progress("orphan", 10, 700, 1500)
    assert store.settle_orphans(frozenset({"owned"}), older_than_s=60) == 0  # both new
    assert store.settle_orphans(frozenset({"owned"}), older_than_s=-1) == 1
    usage = store.usage(project)
    assert (usage.characters, usage.audio_ms, usage.spent, usage.held) == (10, 700, 1500, 6000)
    assert open_holds(store) == 1
    store.close()
