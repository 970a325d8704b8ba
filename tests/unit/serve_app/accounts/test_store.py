"""The account store, run against SQLite and PostgreSQL alike."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from serve_app.accounts import (
    AccountStore,
    InsufficientFunds,
    RateExceeded,
    RateLimit,
    UnknownProject,
    ensure_dev_project,
)
from serve_app.accounts.keys import split_key


def test_keys_authenticate_and_revoke(store: AccountStore) -> None:
    project = store.create_project("acme", 1_000)
    token = store.create_key(project)
    key = store.authenticate(token)
    assert key is not None and key.project_id == project and key.scopes == ("speech", "usage")
    key_id, secret = split_key(token)
    assert store.authenticate(f"sk-proj-{key_id}-{'x' * len(secret)}") is None
    assert store.authenticate("sk-proj-unknownid-" + "y" * 40) is None
    assert [k.key_id for k in store.keys(project)] == [key_id]
    assert store.revoke_key(key_id) and not store.revoke_key(key_id)
    assert store.authenticate(token) is None
    assert store.keys(project)[0].revoked_at is not None


def test_scopes_and_project_names(store: AccountStore) -> None:
    project = store.create_project("acme")
    key = store.authenticate(store.create_key(project, scopes=("speech",)))
    assert key is not None and key.scopes == ("speech",)
    with pytest.raises(ValueError):
        store.create_key(project, scopes=("admin",))
    with pytest.raises(ValueError):
        store.create_project("acme")
    assert store.find_project("acme") == store.find_project(project) == project
    with pytest.raises(UnknownProject):
        store.find_project("nobody")


def test_hold_settle_release(store: AccountStore) -> None:
    project = store.create_project("acme", 10_000)
    store.hold(project, "r1", 6_000)
    assert store.usage(project).held == 6_000
    with pytest.raises(InsufficientFunds) as refused:
        store.hold(project, "r2", 4_001)
    assert refused.value.available == 4_000
    assert store.settle("r1", characters=10, audio_ms=800, cost=1_500)
    assert not store.settle("r1", characters=10, audio_ms=800, cost=1_500)  # exactly once
    assert not store.release("r1")
    store.hold(project, "r3", 2_000)
    assert store.release("r3") and not store.settle("r3", 1, 1, 1)
    store.hold(project, "r4", 100)
    assert store.settle("r4", characters=5, audio_ms=10, cost=999)  # never above the hold
    store.top_up(project, 500)
    usage = store.usage(project)
    assert (usage.balance, usage.held, usage.requests, usage.characters, usage.spent) == (
        10_000 - 1_500 - 100 + 500,
        0,
        2,
        15,
        1_600,
    )
    assert store.ledger_sum(project) == usage.balance


def test_usage_is_per_project(store: AccountStore) -> None:
    a, b = store.create_project("a", 1_000), store.create_project("b", 2_000)
    store.hold(a, "ra", 100)
    store.settle("ra", 3, 30, 100)
    assert store.usage(b).requests == 0 and store.usage(b).balance == 2_000
    assert store.usage(a).requests == 1


def test_dev_key_may_be_any_string_and_is_idempotent(store: AccountStore) -> None:
    first = ensure_dev_project(store, "my-local-key", 100)
    assert ensure_dev_project(store, "my-local-key", 100) == first
    key = store.authenticate("my-local-key")
    assert key is not None and key.project_id == first
    assert store.usage(first).balance == 100
    assert store.authenticate("my-local-kez") is None


def test_stale_holds_are_settled_at_their_last_progress(database_url: str) -> None:
    crashed, survivor = AccountStore.open(database_url), AccountStore.open(database_url)
    project = crashed.create_project("acme", 10_000)
    crashed.hold(project, "live", 1_000)
    crashed.record_progress("live", characters=4, audio_ms=300, cost=600)
    crashed.hold(project, "silent", 1_000)
    assert survivor.recover(lease_s=60) == 0  # the owner heartbeat is fresh
    assert survivor.recover(lease_s=-1) == 2  # ... and now it is stale
    usage = survivor.usage(project)
    assert (usage.held, usage.requests, usage.characters, usage.audio_ms, usage.spent) == (
        0,
        2,
        4,
        300,
        600,
    )
    assert not crashed.settle("live", 10, 1000, 1000)
    crashed.close()
    survivor.close()


def test_secrets_never_reach_the_database(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite3"
    store = AccountStore.open(f"sqlite:///{path}")
    token = store.create_key(store.create_project("acme"))
    store.close()
    raw = b"".join(p.read_bytes() for p in path.parent.iterdir())
    assert split_key(token)[1].encode() not in raw and token.encode() not in raw


def test_a_hold_can_grow_while_the_balance_allows(store: AccountStore) -> None:
    project = store.create_project("acme", 1_000)
    store.hold(project, "ws", 0)
    store.extend_hold("ws", 600)
    with pytest.raises(InsufficientFunds):
        store.extend_hold("ws", 401)
    store.extend_hold("ws", 400)
    assert store.usage(project).held == 1_000
    assert store.settle("ws", 3, 3, 700)
    with pytest.raises(LookupError):
        store.extend_hold("ws", 1)
    assert store.usage(project).balance == 300 == store.ledger_sum(project)


def test_requests_per_key_and_minute_are_counted_for_every_replica(
    store: AccountStore, database_url: str
) -> None:
    if time.time() % 60 > 55:  # all in one clock minute
        time.sleep(60 - time.time() % 60 + 0.1)
    project = store.create_project("acme", 10_000)
    replica = AccountStore.open(database_url)  # another replica's connection
    rate = RateLimit("key1", 3)
    try:
        store.hold(project, "a", 1, rate)
        replica.hold(project, "b", 1, rate)
        store.hold(project, "c", 1, rate)
        with pytest.raises(RateExceeded) as refused:
            replica.hold(project, "d", 1, rate)
        assert 1 <= refused.value.retry_after_s <= 60
        assert store.usage(project).held == 3  # the refused request holds nothing
        store.hold(project, "e", 1, RateLimit("key2", 3))  # each key its own count
    finally:
        replica.close()


def test_unproductive_synthesis_is_a_debt_each_key_drains_at_its_budget(
    store: AccountStore, database_url: str
) -> None:
    """A key may run a minute's worth of synthesis that makes no audio at once; past
    that its holds are refused (every replica sees the debt) until the debt drains."""
    from serve_app.accounts.ledger import _drained

    project = store.create_project("acme", 10_000)
    replica = AccountStore.open(database_url)
    budget = 60_000  # a minute of it a minute
    rate = RateLimit("key1", 0, budget)  # no count of requests, only the budget
    try:
        store.spend_unproductive("key1", 45_000, budget)
        replica.hold(project, "a", 1, rate)  # within a minute's worth
        replica.spend_unproductive("key1", 30_000, budget)
        with pytest.raises(RateExceeded) as refused:
            store.hold(project, "b", 1, rate)
        assert refused.value.unproductive
        assert 10 <= refused.value.retry_after_s <= 15  # ~15 s over, draining 1 s a second
        assert store.usage(project).held == 1  # the refused request holds nothing
        store.hold(project, "c", 1, RateLimit("key2", 0, budget))  # each key its own
    finally:
        replica.close()
    # the debt drains at the budget's rate, never below nothing
    assert _drained((75_000.0, 100.0), budget, 115.0) == 60_000
    assert _drained((75_000.0, 100.0), budget, 1_000.0) == 0
    assert _drained(None, budget, 1_000.0) == 0
