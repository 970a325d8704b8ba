"""Metering: a hold before synthesis, delivered audio counted, one settlement after.

Shared by every transport: a buffered response, a stream, a WebSocket session.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from deployments.messages import EncodedChunk
from serve_app.accounts import (
    AccountStore,
    ApiKey,
    InsufficientFunds,
    KeyRevoked,
    RateExceeded,
    RateLimit,
)
from serve_app.accounts.records import UsageResponse
from serve_app.http.errors import AuthenticationFailed, InsufficientBalance, RateLimited
from serve_app.settings import IngressConfig
from serve_app.speech.vocabulary import RequestUsage

logger = logging.getLogger(__name__)


@dataclass
class Bill:
    """One request's hold and what has reached its client so far.

    A request's audio is one stream of text, or several (a WebSocket session's
    contexts, each its own text): each stream's characters are counted up to where
    its delivered audio has spoken, and the bill is their sum."""

    hold_id: str
    key_id: str | None = None  # the key it spends for, checked again as it grows
    chunks: int = 0
    samples: int = 0
    sample_rate: int = 1
    checkpoint_at: float = 0.0
    spoken: dict[int, int] = field(default_factory=dict)  # stream: characters up to
    # synthesis that ran and made no audio the client received (the key's budget)
    unproductive_ms: float = 0.0
    checkpoint: asyncio.Task[None] | None = field(default=None, repr=False)

    def add(self, chunk: EncodedChunk, stream: int = 0) -> None:
        """Count ``chunk`` of ``stream`` as delivered."""
        self.chunks += 1
        self.spoken[stream] = max(self.spoken.get(stream, 0), chunk.end_char)
        self.samples += chunk.audio_samples
        self.sample_rate = chunk.sample_rate

    @property
    def characters(self) -> int:
        return sum(self.spoken.values())

    @property
    def audio_ms(self) -> int:
        return self.samples * 1000 // self.sample_rate


class Meter:
    """Prices, holds and settles requests against the account store."""

    def __init__(self, store: AccountStore, config: IngressConfig) -> None:
        self._store = store
        self._config = config
        # holds of this process's requests that have not settled: from before their
        # ledger write starts until their settlement is written (see :meth:`live`)
        self._live: set[str] = set()
        self._releasing: set[asyncio.Task[object]] = set()

    @property
    def live(self) -> frozenset[str]:
        """The hold ids of this process's requests that are still running. An open
        hold of this process that is not among them (and not new) has lost its
        request: the ledger's sweep settles it (:meth:`Ledger.settle_orphans`)."""
        return frozenset(self._live)

    def cost(self, characters: int, delivered: bool) -> int:
        """Price of ``characters`` spoken; the per-request price only if audio was delivered."""
        per_request = self._config.price_per_request_deci_micros if delivered else 0
        return per_request + characters * self._config.price_per_character_deci_micros

    def usage(self, bill: Bill) -> RequestUsage:
        return RequestUsage(
            characters=bill.characters,
            audio_ms=bill.audio_ms,
            cost_deci_micros=self.cost(bill.characters, bill.chunks > 0),
        )

    async def open_bill(self, key: ApiKey, characters: int) -> Bill:
        """A new bill with a hold for speaking ``characters``, counted against the key's
        rate; 402 if the balance is short, 429 past the rate."""
        bill = Bill(uuid.uuid4().hex, key.key_id, checkpoint_at=time.monotonic())
        worst_case = self.cost(characters, delivered=True)
        rate = self._rate(key)
        self._live.add(bill.hold_id)
        write = asyncio.ensure_future(
            self._store.call(self._store.hold, key.project_id, bill.hold_id, worst_case, rate)
        )
        write.add_done_callback(functools.partial(self._after_hold, bill.hold_id))
        try:
            # A request cancelled now (its client hung up) leaves the write running:
            # it may commit. Its bill is gone, so the hold is released when it is done.
            await asyncio.shield(write)
        except asyncio.CancelledError:
            write.add_done_callback(functools.partial(self._release_orphan, bill.hold_id))
            raise
        except InsufficientFunds as e:
            raise balance_refusal(worst_case, e.available) from None
        except RateExceeded as e:
            raise self._rate_refusal(e) from None
        return bill

    async def account(self, project_id: str) -> UsageResponse:
        """The project's balance and what it has spent, from the ledger."""
        return UsageResponse.of(await self._store.call(self._store.usage, project_id))

    async def count(self, key: ApiKey) -> None:
        """Count a request of ``key`` that holds nothing yet (a long-form job, before
        its text is read) against its rate; 429 past it."""
        rate = self._rate(key)
        if rate is None:
            return
        try:
            await self._store.call(self._store.count_request, rate)
        except RateExceeded as e:
            raise self._rate_refusal(e) from None

    def _rate(self, key: ApiKey) -> RateLimit | None:
        per_minute = self._config.rate_limit_per_minute
        budget_ms = self._config.unproductive_seconds_per_minute * 1000
        return RateLimit(key.key_id, per_minute, budget_ms) if per_minute or budget_ms else None

    def _rate_refusal(self, e: RateExceeded) -> RateLimited:
        if e.unproductive:
            why = (
                f"This key's requests have run more than "
                f"{self._config.unproductive_seconds_per_minute} s a minute of synthesis "
                "that made no audio (silent, or abandoned before any was received)"
            )
        else:
            why = f"This key may start {self._config.rate_limit_per_minute} requests a minute"
        return RateLimited(
            "rate_limited",
            f"{why}; retry in {e.retry_after_s} s.",
            headers={"Retry-After": str(e.retry_after_s)},
        )

    def _after_hold(self, hold_id: str, write: asyncio.Future[None]) -> None:
        if write.cancelled() or write.exception() is not None:
            self._live.discard(hold_id)  # no hold was written

    def _release_orphan(self, hold_id: str, write: asyncio.Future[None]) -> None:
        """Release the hold a cancelled request's write placed (if it did)."""
        if write.cancelled() or write.exception() is not None:
            return
        release = asyncio.ensure_future(self._store.call(self._store.release, hold_id))
        self._releasing.add(release)
        release.add_done_callback(functools.partial(self._released, hold_id))

    def _released(self, hold_id: str, release: asyncio.Future[object]) -> None:
        self._releasing.discard(release)
        self._live.discard(hold_id)  # if this failed, the ledger's sweep releases it
        if not release.cancelled() and release.exception() is not None:
            logger.error("releasing the orphaned hold %s failed; the sweep will", hold_id)

    async def extend(self, bill: Bill, characters: int) -> None:
        """Grow the hold by the price of ``characters`` more; 402 if the balance is short,
        401 if the bill's key has been revoked meanwhile (a session ends at its next
        text, not when it chooses to)."""
        extra = characters * self._config.price_per_character_deci_micros
        try:
            await self._store.call(self._store.extend_hold, bill.hold_id, extra, bill.key_id)
        except InsufficientFunds as e:
            raise balance_refusal(extra, e.available) from None
        except KeyRevoked:
            raise AuthenticationFailed(
                "invalid_api_key", "The API key was revoked while this session was open."
            ) from None

    async def shrink(self, bill: Bill, characters: int) -> None:
        """Release the price of ``characters`` from the hold: text it was grown for
        that will not be said (a barge-in dropped it)."""
        less = characters * self._config.price_per_character_deci_micros
        await self._store.call(self._store.shrink_hold, bill.hold_id, less)

    async def delivered(self, bill: Bill, chunk: EncodedChunk, stream: int = 0) -> None:
        """Count ``chunk`` (of ``stream``, for a bill of several) as received by the
        client. What is delivered reaches the ledger within progress_interval_s of
        its delivery (a timer records it, whether or not another chunk follows), so a
        crash of this process loses at most that interval's audio."""
        bill.add(chunk, stream)
        if bill.checkpoint is None:
            bill.checkpoint = asyncio.get_running_loop().create_task(self._checkpoint(bill))

    async def _checkpoint(self, bill: Bill) -> None:
        """Record the bill's progress one interval after the last record."""
        try:
            due = bill.checkpoint_at + self._config.progress_interval_s
            await asyncio.sleep(max(0.0, due - time.monotonic()))
            bill.checkpoint_at = time.monotonic()
            usage = self.usage(bill)
            await self._store.call(
                self._store.record_progress,
                bill.hold_id,
                usage.characters,
                usage.audio_ms,
                usage.cost_deci_micros,
            )
        except Exception:  # the settlement still records everything; a crash loses more
            logger.exception("Recording the progress of hold %s failed", bill.hold_id)
        finally:
            bill.checkpoint = None

    async def settle(self, bill: Bill) -> RequestUsage:
        """Charge the hold for what was delivered, or release it if nothing was.

        Exactly once per bill (the ledger refuses a second settlement); safe to
        call from a cancelled task.
        """
        if bill.checkpoint is not None:
            bill.checkpoint.cancel()  # a record racing the settlement leaves it as is
        usage = self.usage(bill)
        if bill.chunks:
            call = functools.partial(
                self._store.settle,
                bill.hold_id,
                usage.characters,
                usage.audio_ms,
                usage.cost_deci_micros,
            )
        else:
            call = functools.partial(self._store.release, bill.hold_id)
        settled = asyncio.ensure_future(self._store.call(self._settlement, bill, call))
        settled.add_done_callback(lambda _: self._live.discard(bill.hold_id))
        await asyncio.shield(settled)
        return usage

    def _settlement(self, bill: Bill, call: Callable[[], object]) -> None:
        """The bill's settlement (``call``), then its unproductive synthesis spent from
        the key's budget (on the store's thread)."""
        call()
        budget_ms = self._config.unproductive_seconds_per_minute * 1000
        if bill.key_id is None or bill.unproductive_ms <= 0 or not budget_ms:
            return
        try:  # the settlement stands whatever happens to this
            self._store.spend_unproductive(bill.key_id, bill.unproductive_ms, budget_ms)
        except Exception:
            logger.exception("Recording the unproductive time of hold %s failed", bill.hold_id)


def balance_refusal(needed: int, available: int) -> InsufficientBalance:
    """402 for a charge of up to ``needed`` that the ``available`` balance cannot cover."""
    return InsufficientBalance(
        "insufficient_balance",
        f"This needs up to {needed} deci-micro-USD of balance; {available} is available.",
    )
