"""Fixtures of the accounts tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from serve_app.accounts import AccountStore


@pytest.fixture
def store(database_url: str) -> Iterator[AccountStore]:
    """A store on each database backend in turn."""
    store = AccountStore.open(database_url)
    yield store
    store.close()


@pytest.fixture
def stores(database_url: str) -> Iterator[tuple[AccountStore, AccountStore]]:
    """Two processes' stores on one database (each its own owner)."""
    first, second = AccountStore.open(database_url), AccountStore.open(database_url)
    yield first, second
    first.close()
    second.close()
