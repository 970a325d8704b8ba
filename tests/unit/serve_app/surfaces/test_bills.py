"""The surfaces translate wires; the bill and the ledger are the speech service's. A
surface may read a delivery's audio and close it (an HTTP framing does), never grow,
shrink or count its bill, nor reach the ledger (the account store) itself."""

from __future__ import annotations

import ast
from pathlib import Path

from serve_app.surfaces.services import Services

SURFACES = Path(__file__).resolve().parents[4] / "serve_app" / "surfaces"
# What a bill is grown, shrunk and counted with, and a delivery or bill opened
BILLING = {
    "extend",
    "shrink",
    "delivered",
    "spent_without_audio",
    "synthesising",
    "failed_by_the_service",
    "open_delivery",
    "open_bill",
    "settle",
}
# What of serve_app.accounts a surface may name: a key, and records it answers with
ACCOUNT_DATA = {"ApiKey", "UsageResponse", "DictionaryRow", "SpeechCacheSetting"}


def billing_uses(path: Path) -> list[str]:
    """Where the module at ``path`` bills, or names more of the accounts package
    than its data."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Attribute) and node.attr in BILLING:
            found.append(f"{path.name}:{node.lineno} .{node.attr}")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
            "serve_app.accounts"
        ):
            found += [
                f"{path.name}:{node.lineno} {node.module}.{alias.name}"
                for alias in node.names
                if alias.name not in ACCOUNT_DATA
            ]
    return found


def test_only_the_speech_service_touches_a_bill_or_the_ledger() -> None:
    files = list(SURFACES.rglob("*.py"))
    assert len(files) >= 25
    assert [where for path in files for where in billing_uses(path)] == []
    assert "store" not in Services.__annotations__  # the ledger is not a surface's service


def test_the_finder_finds_billing(tmp_path: Path) -> None:
    module = tmp_path / "route.py"
    module.write_text(
        "from serve_app.accounts import AccountStore, ApiKey\n"
        "async def f(delivery):\n    await delivery.extend(3)\n    return delivery.usage()\n"
    )
    assert billing_uses(module) == [
        "route.py:1 serve_app.accounts.AccountStore",
        "route.py:3 .extend",
    ]
