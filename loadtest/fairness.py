"""Fairness between projects: one project's long streams against another's first audio.

    python -m loadtest.fairness [--seconds 40] [--streams 6]

Starts the service as ``make run`` does, with projects of its own. Project B asks
for a short Hindi sentence in the default voice, one request after another; its
first audio is measured four ways, each for ``--seconds``:

- alone: nothing else runs;
- beside the same load spread over projects: ``--streams`` SSE streams of a long
  (~4,000-character) Hindi text with phoneme timings, one request after another,
  each stream sent by a project of its own;
- beside one project: the same streams, all sent by project A;
- beside the same project: the same streams, sent with B's own key.

Fairness is the third against the second: at the same total load, one project's
many streams should cost B's first audio no more than as many projects' one each
(the Synthesiser's queues take projects in turn within each class of segment).
Prints a Markdown table with the machine, each row's p50 against the spread load's.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time

import aiohttp

from loadtest.bench import started
from loadtest.report import machine, markdown
from loadtest.traffic import KEY, percentile
from serve_app.accounts import AccountStore

SHORT = "नमस्ते, आज मौसम बहुत अच्छा है।"
LONG = " ".join(["यह एक लंबा पाठ है जिसे बिना रुके पढ़ा जाता है और यह चलता रहता है"] * 62)


async def first_audio(client: aiohttp.ClientSession, key: str, body: dict[str, object]) -> float:
    """Seconds to the first byte of audio of one request (read to its end); -1 on an error."""
    started = time.perf_counter()
    first = -1.0
    async with client.post(
        "/v1/audio/speech", json=body, headers={"Authorization": f"Bearer {key}"}
    ) as response:
        if response.status != 200:
            await response.read()
            return -1.0
        async for chunk in response.content.iter_any():
            if first < 0 and chunk:
                first = time.perf_counter() - started
    return first


async def phase(url: str, b_key: str, loaders: list[str], seconds: float) -> list[float]:
    """B's first-audio times over ``seconds`` while a long stream runs for each key of
    ``loaders``."""
    deadline = time.perf_counter() + seconds
    timeout = aiohttp.ClientTimeout(total=600)
    async with aiohttp.ClientSession(url, timeout=timeout) as client:

        async def long_streams(key: str) -> None:
            body = {
                "input": LONG,
                "stream_format": "sse",
                "phoneme_timestamps": True,
                "cache": False,  # each stream spoken, not heard from the speech cache
            }
            while time.perf_counter() < deadline:
                await first_audio(client, key, body)

        async def short_requests() -> list[float]:
            times = []
            await asyncio.sleep(3 if loaders else 0)  # the long streams are speaking
            while time.perf_counter() < deadline:
                body = {"input": SHORT, "cache": False}
                times.append(await first_audio(client, b_key, body))
            return times

        loads = [asyncio.create_task(long_streams(key)) for key in loaders]
        times = await short_requests()
        for load in loads:
            load.cancel()
        await asyncio.gather(*loads, return_exceptions=True)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=40)
    parser.add_argument("--streams", type=int, default=6)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        database = f"sqlite:///{folder}/ledger.sqlite3"
        store = AccountStore.open(database)
        keys = [
            store.create_key(store.create_project(f"fairness-{i}", 10**15))
            for i in range(args.streams)
        ]
        store.close()
        n = args.streams
        env = {
            "TTS_DEV_API_KEY": KEY,
            "TTS_RATE_LIMIT_PER_MINUTE": "0",
            "TTS_DATABASE_URL": database,
            "RAY_USAGE_STATS_ENABLED": "0",
        }
        phases: tuple[tuple[str, list[str]], ...] = (
            ("alone", []),
            (f"beside {n} long streams of {n} other projects, one each", keys),
            (f"beside {n} long streams of one other project", [keys[0]] * n),
            (f"beside {n} long streams of its own project", [KEY] * n),
        )
        measured: list[tuple[str, list[float], int]] = []
        with started([sys.executable, "-m", "serve_app.run"], env) as url:
            for name, loaders in phases:
                times = asyncio.run(phase(url, KEY, loaders, args.seconds))
                ok = [t * 1000 for t in times if t >= 0]
                measured.append((name, ok, len(times) - len(ok)))
    spread = percentile(measured[1][1], 0.5)
    rows = [
        [
            name, str(len(ok)), f"{percentile(ok, 0.5):.0f}", f"{percentile(ok, 0.95):.0f}",
            f"{percentile(ok, 0.5) / spread:.2f}x", str(errors),
        ]
        for name, ok, errors in measured
    ]  # fmt: skip
    print(f"\nProject B's first audio (default voice), {args.seconds:.0f} s each, on {machine()}\n")
    print(
        markdown(
            ["B runs", "requests", "first audio p50 ms", "p95 ms", "p50 vs spread", "errors"],
            rows,
        )
    )


if __name__ == "__main__":
    main()
