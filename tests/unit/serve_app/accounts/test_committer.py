"""Ledger calls from async code: committed in groups, each call on its own."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from serve_app.accounts import AccountStore, InsufficientFunds
from serve_app.accounts.committer import GroupCommitter
from serve_app.accounts.database import SqliteDatabase, open_database


class CountingSqlite(SqliteDatabase):
    """SQLite that counts its commit groups."""

    groups = 0

    @contextmanager
    def group(self) -> Iterator[None]:
        self.groups += 1
        with super().group():
            yield


class FailingCommit(SqliteDatabase):
    """SQLite whose group commits fail (as a full disk would make them)."""

    fail = False

    @contextmanager
    def group(self) -> Iterator[None]:
        with super().group():
            yield
            if self.fail:
                raise sqlite3.OperationalError("database or disk is full")


async def hold_all(store: AccountStore, project: str, count: int, amount: int) -> list[object]:
    calls = (store.call(store.hold, project, f"r{i}", amount) for i in range(count))
    return await asyncio.gather(*calls, return_exceptions=True)


def test_concurrent_calls_each_succeed_or_fail_alone(database_url: str) -> None:
    store = AccountStore.open(database_url)
    try:
        project = store.create_project("acme", 10_000)
        outcomes = asyncio.run(hold_all(store, project, 40, 1_000))
        refused = [o for o in outcomes if isinstance(o, InsufficientFunds)]
        assert outcomes.count(None) == 10 and len(refused) == 30
        usage = store.usage(project)
        assert usage.held == 10_000 and usage.balance == store.ledger_sum(project) == 10_000
    finally:
        store.close()


def test_concurrent_calls_share_commits_on_sqlite(tmp_path: Path) -> None:
    db = CountingSqlite(str(tmp_path / "ledger.sqlite3"))
    store = AccountStore(db)
    try:
        project = store.create_project("acme", 1_000_000)
        outcomes = asyncio.run(hold_all(store, project, 50, 10))
        assert outcomes == [None] * 50 and store.usage(project).held == 500
        assert db.groups < 25  # one flush carried many holds
    finally:
        store.close()


def test_a_failed_commit_fails_every_call_of_its_group_and_keeps_nothing(tmp_path: Path) -> None:
    path = str(tmp_path / "ledger.sqlite3")
    db = FailingCommit(path)
    store = AccountStore(db)
    project = store.create_project("acme", 10_000)
    db.fail = True
    outcomes = asyncio.run(hold_all(store, project, 5, 100))
    store.close()
    assert all(isinstance(o, sqlite3.OperationalError) for o in outcomes)
    reopened = AccountStore(open_database(path))
    try:
        assert reopened.usage(project).held == 0
    finally:
        reopened.close()


def test_a_call_whose_caller_left_before_it_ran_is_not_run(tmp_path: Path) -> None:
    committer = GroupCommitter(SqliteDatabase(str(tmp_path / "ledger.sqlite3")))
    ran: list[str] = []

    def slow() -> str:
        time.sleep(0.3)
        ran.append("slow")
        return "slow"

    async def scenario() -> str:
        first = asyncio.ensure_future(committer.run(slow))
        await asyncio.sleep(0.05)  # the committer is inside ``slow`` now
        left = asyncio.ensure_future(committer.run(lambda: ran.append("left")))
        await asyncio.sleep(0)
        left.cancel()
        await first
        return await asyncio.wait_for(committer.run(lambda: "after"), 10)  # the thread lives

    try:
        assert asyncio.run(scenario()) == "after"
        assert ran == ["slow"]
    finally:
        committer.close()
