"""Streams between replicas are never empty: a stream of no items is sent as one
:data:`NOTHING`, which the reader drops.

Over Serve's gRPC transport (``RAY_SERVE_THROUGHPUT_OPTIMIZED=1``) the caller reads
whether a replica accepted a request from the reply's initial metadata, and gRPC
does not promise to deliver that metadata on a stream that ends with no message:
when it is lost the caller raises ``RuntimeError('Unexpected error (StatusCode.OK):
.')``. Serve guards its own empty replies (a refusal sends one empty message) but
not a generator that yields nothing, and a request whose text makes no sound (IPA
of sounds the voice lacks) is exactly that: an encoder stream of no chunks, seen as
a 500 on about one such request in seven on two cores. One item, dropped by the
reader, keeps every stream non-empty without changing what it holds.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, AsyncIterable
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Nothing:
    """The one item of a stream that has none (compared by type: it crosses processes)."""


NOTHING = Nothing()


async def never_empty(items: AsyncGenerator[T, None]) -> AsyncGenerator[T | Nothing, None]:
    """``items``, or :data:`NOTHING` alone where there are none; closing this closes them."""
    sent = False
    async with contextlib.aclosing(items):
        async for item in items:
            sent = True
            yield item
    if not sent:
        yield NOTHING


async def without_nothing(stream: AsyncIterable[T | Nothing]) -> AsyncGenerator[T, None]:
    """The items of a stream written by :func:`never_empty`, its :data:`NOTHING` dropped."""
    async for item in stream:
        if not isinstance(item, Nothing):
            yield item
