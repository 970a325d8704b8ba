"""Ledger invariants under random operation sequences, threads, and a SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import uuid
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from serve_app.accounts import AccountStore, InsufficientFunds

ROOT = Path(__file__).resolve().parents[4]

operations = st.lists(
    st.one_of(
        st.tuples(st.just("hold"), st.integers(0, 5_000)),
        st.tuples(st.just("progress"), st.integers(0, 20), st.integers(0, 6_000)),
        st.tuples(st.just("settle"), st.integers(0, 20), st.integers(0, 6_000)),
        st.tuples(st.just("release"), st.integers(0, 20)),
        st.tuples(st.just("top_up"), st.integers(1, 3_000)),
    ),
    max_size=30,
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(start=st.integers(0, 10_000), ops=operations)
def test_random_sequences_keep_the_ledger_whole(
    store: AccountStore, start: int, ops: list[tuple[object, ...]]
) -> None:
    project = store.create_project(f"p-{uuid.uuid4().hex}", start)
    holds: list[str] = []
    amounts: dict[str, int] = {}
    open_holds: set[str] = set()
    balance, charged = start, 0
    for op in ops:
        kind = op[0]
        if kind == "hold":
            amount = int(op[1])
            hold_id = uuid.uuid4().hex
            try:
                store.hold(project, hold_id, amount)
            except InsufficientFunds as e:
                assert e.available < amount
                assert e.available == balance - sum(amounts[h] for h in open_holds)
                continue
            holds.append(hold_id)
            amounts[hold_id] = amount
            open_holds.add(hold_id)
        elif not holds:
            if kind == "top_up":
                store.top_up(project, int(op[1]))
                balance += int(op[1])
            continue
        elif kind == "progress":
            store.record_progress(holds[int(op[1]) % len(holds)], 1, 1, int(op[2]))
        elif kind == "settle":
            hold_id = holds[int(op[1]) % len(holds)]
            settled = store.settle(hold_id, 1, 10, int(op[2]))
            assert settled == (hold_id in open_holds)  # exactly once
            if settled:
                cost = min(int(op[2]), amounts[hold_id])
                balance -= cost
                charged += cost
                open_holds.discard(hold_id)
        elif kind == "release":
            hold_id = holds[int(op[1]) % len(holds)]
            assert store.release(hold_id) == (hold_id in open_holds)
            open_holds.discard(hold_id)
        elif kind == "top_up":
            store.top_up(project, int(op[1]))
            balance += int(op[1])
        usage = store.usage(project)
        assert usage.balance == balance == store.ledger_sum(project)
        assert usage.held == sum(amounts[h] for h in open_holds)
        assert usage.balance >= usage.held >= 0
        assert usage.spent == charged


def test_concurrent_holds_never_overdraw(database_url: str) -> None:
    store = AccountStore.open(database_url)
    project = store.create_project("busy", 20_000)
    granted: list[int] = []
    lock = threading.Lock()

    def worker(seed: int) -> None:
        for i in range(15):
            amount = 500 + (seed * 37 + i * 101) % 2_000
            hold_id = f"{seed}-{i}"
            try:
                store.hold(project, hold_id, amount)
            except InsufficientFunds:
                continue
            with lock:
                granted.append(amount)
            store.settle(hold_id, 1, 1, amount // 2)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    usage = store.usage(project)
    assert usage.held == 0 and usage.balance >= 0
    assert usage.balance == store.ledger_sum(project) == 20_000 - sum(a // 2 for a in granted)
    assert usage.requests == len(granted)
    store.close()


CRASHING_HOLDER = """
import os, sys, time
from serve_app.accounts import AccountStore
store = AccountStore.open(sys.argv[1])
project = store.find_project("crashy")
store.hold(project, "delivered-some", 5_000)
store.record_progress("delivered-some", characters=12, audio_ms=900, cost=1_800)
store.hold(project, "delivered-none", 3_000)
print("holding", flush=True)
time.sleep(600)
"""


def test_holds_of_a_killed_process_are_settled_on_restart(database_url: str) -> None:
    setup = AccountStore.open(database_url)
    project = setup.create_project("crashy", 10_000)
    setup.close()
    holder = subprocess.Popen(
        [sys.executable, "-c", CRASHING_HOLDER, database_url],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=30)
    restarted = AccountStore.open(database_url)
    assert restarted.usage(project).held == 8_000
    assert restarted.recover(lease_s=-1) == 2
    usage = restarted.usage(project)
    assert (usage.held, usage.requests, usage.characters, usage.audio_ms, usage.spent) == (
        0,
        2,
        12,
        900,
        1_800,
    )
    assert usage.balance == 10_000 - 1_800 == restarted.ledger_sum(project)
    assert restarted.recover(lease_s=-1) == 0  # nothing is settled twice
    restarted.close()
