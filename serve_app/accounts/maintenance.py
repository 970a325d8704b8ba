"""The ledger kept honest while a replica runs: its holds heartbeat, the open holds of
replicas that stopped (crashed processes) are settled, and so are this replica's holds
that no request owns any more (a request cancelled at the wrong moment, a settlement
that failed)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from serve_app.accounts.store import AccountStore

logger = logging.getLogger("serve_app")


async def maintain_ledger(
    store: AccountStore, live: Callable[[], frozenset[str]], lease_s: float
) -> None:
    """Runs for the replica's life, every ``lease_s / 3``; ``live``: the hold ids this
    replica's requests own now."""
    while True:
        try:
            await store.call(store.heartbeat)
            recovered = await store.call(store.recover, lease_s)
            if recovered:
                logger.warning("settled %d holds left by stopped replicas", recovered)
            orphans = await store.call(store.settle_orphans, live(), lease_s)
            if orphans:
                logger.warning("settled %d holds that no request owned", orphans)
        except Exception:
            logger.exception("ledger maintenance failed; retrying")
        await asyncio.sleep(lease_s / 3)
