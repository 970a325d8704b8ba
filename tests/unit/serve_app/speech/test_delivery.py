"""One metered delivery: every chunk a client receives is counted, and the bill is
settled exactly once however the delivery ends."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import pytest

from deployments.messages import EncodedChunk
from serve_app.accounts import AccountStore, ApiKey
from serve_app.http.errors import RateLimited
from serve_app.settings import IngressConfig
from serve_app.speech.admission import Admission
from serve_app.speech.billing import Meter
from serve_app.speech.delivery import Delivery
from serve_app.speech.metrics import NullMetrics

PRICE = 150  # deci-micro-USD a character (the default)


class Finished(NullMetrics):
    """Metrics that keep what each settled request reported."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, float]] = []

    def finished(
        self, voice: str, language: str, characters: int, audio_s: float, wall_s: float
    ) -> None:
        self.calls.append((characters, audio_s))


def chunk(ms: int, end_char: int) -> EncodedChunk:
    return EncodedChunk(b"\0" * 48 * ms, 24_000, 24 * ms, end_char)


async def audio(
    chunks: list[EncodedChunk], fail_after: int | None = None
) -> AsyncIterator[EncodedChunk]:
    for i, c in enumerate(chunks):
        if i == fail_after:
            raise RuntimeError("the synthesiser died")
        yield c


async def begin(delivery: Delivery, chunks: AsyncIterator[EncodedChunk]) -> None:
    """As the speech service starts a delivery: its first chunk already taken."""
    delivery.attach(chunks, await anext(chunks))


@pytest.fixture
def store(database_url: str) -> Iterator[AccountStore]:
    store = AccountStore.open(database_url)
    yield store
    store.close()


async def new_delivery(
    store: AccountStore, metrics: Finished, admission: Admission | None = None
) -> tuple[Delivery, str]:
    project = store.create_project("acme", 1_000_000)
    key = ApiKey(key_id="k", project_id=project, scopes=("speech",))
    meter = Meter(store, IngressConfig(rate_limit_per_minute=0))
    bill = await meter.open_bill(key, characters=30)
    ticket = admission.enter() if admission is not None else None
    return Delivery(meter, metrics, bill, received_at=0.0, ticket=ticket), project


async def test_each_chunk_counts_once_the_reader_comes_back_for_the_next(
    store: AccountStore,
) -> None:
    delivery, project = await new_delivery(store, Finished())
    await begin(delivery, audio([chunk(100, 10), chunk(200, 20), chunk(300, 30)]))
    reader = aiter(delivery)
    await anext(reader)
    assert delivery.usage().characters == 0  # handed out, not yet sent on
    await anext(reader)
    assert (delivery.usage().characters, delivery.usage().audio_ms) == (10, 100)
    usage = await delivery.aclose()  # the client left while the second chunk was sent
    assert (usage.characters, usage.audio_ms) == (10, 100)
    assert store.usage(project).characters == 10
    assert store.usage(project).held == 0


async def test_a_whole_delivery_is_charged_in_full_and_settled_once(store: AccountStore) -> None:
    metrics, admission = Finished(), Admission(limit=1)
    delivery, project = await new_delivery(store, metrics, admission)
    await begin(delivery, audio([chunk(100, 10), chunk(200, 30)]))
    received = [c async for c in delivery]
    assert len(received) == 2 and delivery.usage().characters == 30
    first, again = await delivery.aclose(), await delivery.aclose()
    assert first == again and first.cost_deci_micros == 30 * PRICE
    assert store.usage(project).requests == 1 and store.usage(project).spent == 30 * PRICE
    assert admission.active == 0  # the place is given back once
    assert metrics.calls == []  # no voicing: nothing to report by voice


async def test_a_buffered_delivery_that_fails_midway_charges_nothing(store: AccountStore) -> None:
    delivery, project = await new_delivery(store, Finished())
    await begin(delivery, audio([chunk(100, 10), chunk(200, 20), chunk(300, 30)], fail_after=2))
    with pytest.raises(RuntimeError):
        await delivery.collect()
    usage = await delivery.aclose()
    assert (usage.characters, usage.cost_deci_micros) == (0, 0)
    assert store.usage(project).held == 0 and store.usage(project).spent == 0
    assert store.ledger_sum(project) == 1_000_000


async def test_a_session_reports_what_it_sent_for_each_of_its_texts(store: AccountStore) -> None:
    """A WebSocket session's contexts make their own audio: each sent chunk is reported
    with its context's stream, and the bill is the sum over the contexts."""
    delivery, project = await new_delivery(store, Finished())
    await delivery.delivered(chunk(100, 12), stream=0)
    await delivery.delivered(chunk(100, 7), stream=1)
    await delivery.delivered(chunk(100, 15), stream=0)
    usage = await delivery.aclose()
    assert (usage.characters, usage.audio_ms) == (15 + 7, 300)
    assert store.usage(project).characters == 22


async def test_closing_a_delivery_stops_its_source_at_once(store: AccountStore) -> None:
    """A client that hangs up stops synthesis when the delivery closes, not whenever
    the garbage collector gets to the generators."""
    closed = []

    async def source() -> AsyncIterator[EncodedChunk]:
        try:
            for i in range(100):
                yield chunk(100, i + 1)
        finally:
            closed.append(True)

    delivery, _ = await new_delivery(store, Finished())
    await begin(delivery, source())
    reader = aiter(delivery)
    await anext(reader)
    await delivery.aclose()
    assert closed == [True]


def unproductive_debt(store: AccountStore, key_id: str) -> float:
    with store._db.transaction() as tx:
        row = tx.one("SELECT debt_ms FROM unproductive_time WHERE key_id = ?", (key_id,))
    return float(row[0]) if row else 0.0


async def test_synthesis_that_no_client_hears_spends_the_key_s_budget_then_is_refused(
    store: AccountStore,
) -> None:
    """A client that leaves before any audio reached it is billed nothing, and the time
    its synthesis ran is spent from the key's budget of unproductive synthesis: past a
    minute's worth, the key's next request is 429 rate_limited, saying why and when to
    retry. A delivery whose audio was received spends nothing, nor one the service
    failed."""
    project = store.create_project("acme", 1_000_000)
    key = ApiKey(key_id="k", project_id=project, scopes=("speech",))
    # a budget of 1 s a minute (the default is 120 s)
    meter = Meter(store, IngressConfig(rate_limit_per_minute=0, unproductive_seconds_per_minute=1))

    async def delivery() -> Delivery:
        started = Delivery(meter, Finished(), await meter.open_bill(key, 30), received_at=0.0)
        started.synthesising()
        return started

    heard = await delivery()
    await begin(heard, audio([chunk(100, 10)]))
    assert [c async for c in heard] and (await heard.aclose()).characters == 10
    failed = await delivery()
    await asyncio.sleep(1.2)
    failed.failed_by_the_service()  # an engine's error: not the key's time
    assert (await failed.aclose()).cost_deci_micros == 0
    assert unproductive_debt(store, "k") == 0

    async def slow_start() -> AsyncIterator[EncodedChunk]:
        await asyncio.sleep(30)
        yield chunk(100, 10)

    left = await delivery()
    waiting = asyncio.create_task(begin(left, slow_start()))
    await asyncio.sleep(1.2)
    waiting.cancel()  # the client hangs up before any audio
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert (await left.aclose()).cost_deci_micros == 0
    assert unproductive_debt(store, "k") >= 1200
    with pytest.raises(RateLimited) as refused:
        await meter.open_bill(key, 30)
    assert refused.value.code == "rate_limited"
    assert "made no audio" in refused.value.message
    assert 1 <= int(refused.value.headers["Retry-After"]) <= 60
    other = ApiKey(key_id="k2", project_id=project, scopes=("speech",))
    await meter.settle(await meter.open_bill(other, 30))  # each key its own budget
    assert store.usage(project).held == 0 and store.usage(project).spent == 10 * PRICE
