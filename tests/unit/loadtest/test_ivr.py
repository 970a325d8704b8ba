"""The IVR mix of make bench against the app on a real socket (eSpeak, in process):
with the cache its repeated prompts are hits, without it every request is spoken."""

from __future__ import annotations

import random
from pathlib import Path

from loadtest.ivr import COLUMNS, new_text, row, run_mix
from tests.unit.serve_app.conftest import DEV_KEY, ESPEAK, served_app


def test_new_texts_are_new() -> None:
    rng = random.Random(1)
    texts = [new_text(rng) for _ in range(50)]
    assert len(set(texts)) == 50


async def test_the_mix_with_and_without_the_cache_and_its_table(tmp_path: Path) -> None:
    with served_app(tmp_path) as port:
        url = f"http://127.0.0.1:{port}"
        without = await run_mix(url, 2, 1.0, 0.8, ESPEAK, cache=False, key=DEV_KEY)
        with_cache = await run_mix(url, 2, 1.0, 0.8, ESPEAK, cache=True, key=DEV_KEY)
    assert without.errors == with_cache.errors == 0
    assert set(without.ttfa_ms) == {"off"} and without.all_ms()
    assert with_cache.ttfa_ms.get("hit") and with_cache.cache_bytes > 0
    rows = [row(without), row(with_cache)]
    assert all(len(r) == len(COLUMNS) for r in rows)
    assert rows[0][0] == "without" and rows[0][-3] == "0%" and rows[1][0] == "with"
