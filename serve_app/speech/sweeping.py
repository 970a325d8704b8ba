"""What a replica keeps (long-form jobs, the speech cache's shared entries) deleted once
it is past its time, for as long as the replica runs."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

logger = logging.getLogger("serve_app")


async def sweeping(sweep: Callable[[], Awaitable[int]], interval_s: float, what: str) -> None:
    """Runs for the replica's life: ``sweep`` (how many ``what`` it deleted) now and
    every ``interval_s`` after; a failure is logged and tried again at the next."""
    while True:
        try:
            if deleted := await sweep():
                logger.info("deleted %d %s", deleted, what)
        except Exception:
            logger.exception("deleting %s failed; retrying", what)
        await asyncio.sleep(interval_s)
