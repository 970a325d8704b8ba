"""The admin command line, end to end on a real ledger."""

from __future__ import annotations

import json

import pytest

from serve_app.accounts import AccountStore
from serve_app.accounts.admin import run, usd_to_units


def test_admin_lifecycle(database_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    def admin(*args: str) -> tuple[int, str]:
        code = run(["--database", database_url, *args])
        return code, capsys.readouterr().out

    code, out = admin("create-project", "acme", "--usd", "2.5")
    assert code == 0
    token = out.split("key ", 1)[1].strip()
    code, out = admin("create-key", "acme", "--scopes", "speech")
    speech_only = out.split("key ", 1)[1].strip()
    store = AccountStore.open(database_url)
    key = store.authenticate(token)
    assert key is not None and key.scopes == ("speech", "usage")
    assert store.authenticate(speech_only).scopes == ("speech",)
    code, out = admin("list-keys", "acme")
    assert out.count("\tactive") == 2 and token not in out
    key_id = out.split("\t", 1)[0]
    assert admin("revoke-key", key_id) == (0, f"revoked {key_id}\n")
    assert store.authenticate(token) is None
    assert admin("revoke-key", key_id)[0] == 1
    code, out = admin("top-up", "acme", "--amount", "5")
    assert json.loads(out)["balance_deci_micros"] == 25_000_005
    code, out = admin("usage", "acme")
    assert json.loads(out)["usage"] == {
        "requests": 0,
        "characters": 0,
        "audio_ms": 0,
        "spent_deci_micros": 0,
    }
    assert admin("usage", "nobody")[0] == 1
    assert admin("create-project", "acme")[0] == 1
    code, out = admin("projects")
    assert [json.loads(line)["name"] for line in out.splitlines()] == ["acme"]
    store.close()


def test_usd_amounts_are_exact() -> None:
    assert usd_to_units("10") == 100_000_000
    assert usd_to_units("0.0000001") == 1
    with pytest.raises(Exception, match="whole"):
        usd_to_units("0.00000001")
