from pathlib import Path

import pytest

from serve_app.accounts import AccountStore, ensure_dev_project, split_key


@pytest.fixture
def store(tmp_path: Path) -> AccountStore:
    return AccountStore(tmp_path / "db" / "ledger.sqlite3")


def test_keys_are_stored_hashed_and_authenticate(store: AccountStore, tmp_path: Path) -> None:
    project = store.ensure_project("acme", 1_000)
    token = store.create_key(project)
    assert token.startswith("sk-proj-")
    key = store.authenticate(token)
    assert key is not None and key.project_id == project and key.scopes == ("speech", "usage")
    key_id, secret = split_key(token)
    assert store.authenticate(f"sk-proj-{key_id}-{'x' * len(secret)}") is None
    assert store.authenticate("sk-proj-unknownid-" + "y" * 40) is None
    store.close()
    raw = (tmp_path / "db" / "ledger.sqlite3").read_bytes()
    assert secret.encode() not in raw and token.encode() not in raw


def test_speech_only_key(store: AccountStore) -> None:
    project = store.ensure_project("acme")
    key = store.authenticate(store.create_key(project, scopes=("speech",)))
    assert key is not None and key.scopes == ("speech",)
    with pytest.raises(ValueError):
        store.create_key(project, scopes=("admin",))


def test_balance_and_usage_come_from_the_ledger(store: AccountStore) -> None:
    project = store.ensure_project("acme", 10_000)
    assert store.ensure_project("acme", 99) == project  # no second starting balance
    store.charge(project, 1_500, characters=10, audio_ms=800, request_id="r1")
    store.charge(project, 0, characters=0, audio_ms=0, request_id="r2")
    store.top_up(project, 500)
    usage = store.usage(project)
    assert (usage.balance, usage.requests, usage.characters, usage.audio_ms, usage.spent) == (
        9_000,
        2,
        10,
        800,
        1_500,
    )
    other = store.ensure_project("other")
    assert store.usage(other).requests == 0


def test_dev_key_may_be_any_string_and_is_idempotent(store: AccountStore) -> None:
    first = ensure_dev_project(store, "my-local-key", 100)
    assert ensure_dev_project(store, "my-local-key", 100) == first
    key = store.authenticate("my-local-key")
    assert key is not None and key.project_id == first
    assert store.usage(first).balance == 100
    assert store.authenticate("my-local-kez") is None
