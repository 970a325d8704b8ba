"""Streams between replicas are never empty, and their reader sees what was meant."""

from __future__ import annotations

import asyncio
import pickle
from collections.abc import AsyncGenerator

from deployments.replica_streams import NOTHING, Nothing, never_empty, without_nothing


async def _items(*items: object) -> AsyncGenerator[object, None]:
    for item in items:
        yield item


async def _read(stream: AsyncGenerator[object, None]) -> list[object]:
    return [item async for item in stream]


def test_a_stream_of_no_items_is_sent_as_nothing_and_read_as_none() -> None:
    assert asyncio.run(_read(never_empty(_items()))) == [NOTHING]
    assert asyncio.run(_read(without_nothing(never_empty(_items())))) == []


def test_a_stream_of_items_is_sent_and_read_as_it_is() -> None:
    assert asyncio.run(_read(never_empty(_items(1, 2, 3)))) == [1, 2, 3]
    assert asyncio.run(_read(without_nothing(never_empty(_items(1, 2, 3))))) == [1, 2, 3]


def test_nothing_is_still_nothing_in_another_process() -> None:
    # it crosses processes pickled: the reader knows it by type, not identity
    copy = pickle.loads(pickle.dumps(NOTHING))
    assert isinstance(copy, Nothing)
    assert asyncio.run(_read(without_nothing(_items(copy)))) == []


def test_closing_the_stream_closes_its_source() -> None:
    closed = []

    async def source() -> AsyncGenerator[int, None]:
        try:
            yield 1
            yield 2
        finally:
            closed.append(True)

    async def read_one() -> int | Nothing:
        stream = never_empty(source())
        first = await anext(stream)
        await stream.aclose()
        return first

    assert asyncio.run(read_one()) == 1
    assert closed == [True]
