"""Soak: hold N streams open against a running service for a while and report how the
memory of each of its processes grew. Not part of ``make test``; run it against
``make run`` (127.0.0.1 only):

    TTS_RATE_LIMIT_PER_MINUTE=0 make run          # in one terminal
    .venv/bin/python -m loadtest.soak --key $KEY --streams 16 --minutes 10

Each stream speaks texts of ``loadtest.texts`` one after another, raw PCM, read to
the end; every ``--sample-s`` the resident memory (RSS) of every Ray process of
the service (replicas, controller, proxy, raylet, GCS) and HAProxy is sampled.
The report gives, per process, the RSS at the first sample after warm-up and every
ten minutes, and the growth per hour fitted over all samples after warm-up and
over their second half: a process has plateaued when the second half's slope is
near zero, whatever the first half's (allocator arenas and caches fill first).

Measured (x86_64, 2 cores, ``make run``, 8 streams of Hindi and English, 36 min,
800 requests, all 200): every process plateaus. The Synthesiser was 674 MiB after
the first minute, 691 at 10 min, 692 at 20 and 693 at 30, 4.3 MiB/hour over the
second half: the growth that a 10-minute soak fitted as 388 MiB/hour is its first
ten minutes (ONNX Runtime's buffers meeting new input lengths), not a leak. Each
ingress ended at 188 MiB (+7, 2.7 and 5.5 MiB/hour over the second half), the
AudioEncoder at 182 MiB (-6.4), Ray's own processes within 2 MiB of their start.
``tests/unit/deployments/synthesis/test_memory.py`` guards the runner in CI time.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import os
import time
from collections import defaultdict

import httpx
import numpy as np
import psutil

from loadtest.report import machine
from loadtest.texts import ENGLISH, HINDI

SERVICE_PROCESSES = ("ray::", "raylet", "gcs_server", "haproxy")


def service_processes() -> dict[int, str]:
    """pid -> name of every process of a Ray service on this machine."""
    found = {}
    for process in psutil.process_iter(["name", "cmdline"]):
        title = " ".join(process.info["cmdline"] or ()) or process.info["name"] or ""
        if any(title.startswith(p) or f"/{p}" in title.split(" ")[0] for p in SERVICE_PROCESSES):
            found[process.pid] = os.path.basename(title.split(" ")[0]).removeprefix("ray::")[:44]
    return found


async def stream_forever(
    client: httpx.AsyncClient, key: str, voice: str, stop: float, counts: dict[str, int]
) -> None:
    texts = itertools.cycle(HINDI + ENGLISH)
    while time.monotonic() < stop:
        text = next(texts)
        # spoken every time (the texts repeat: the speech cache would answer them)
        body = {"input": text, "language": "en" if text in ENGLISH else "hi", "cache": False}
        if voice:  # else each language's own voice
            body["voice"] = voice
        try:
            async with client.stream(
                "POST", "/v1/audio/speech", headers={"Authorization": f"Bearer {key}"}, json=body
            ) as response:
                async for _ in response.aiter_raw():
                    pass
                counts[str(response.status_code)] += 1
        except httpx.HTTPError as e:
            counts[type(e).__name__] += 1


def growth_per_hour(minutes: np.ndarray, rss_mib: np.ndarray) -> float:
    """The least-squares slope of RSS over time, in MiB per hour."""
    return float(np.polyfit(minutes - minutes[0], rss_mib, 1)[0]) * 60


def sample(samples: dict[int, list[tuple[float, int]]], names: dict[int, str]) -> None:
    now = time.monotonic()
    for pid, name in service_processes().items():
        names.setdefault(pid, name)
        with contextlib.suppress(psutil.NoSuchProcess):  # it ended since the listing
            samples[pid].append((now, psutil.Process(pid).memory_info().rss))


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--key", required=True)
    parser.add_argument(
        "--voice",
        default="",
        help="one voice for every text (it must speak "
        "Hindi and English); default: each language's own voice",
    )
    parser.add_argument("--streams", type=int, default=16)
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--warmup-s", type=float, default=60)
    parser.add_argument("--sample-s", type=float, default=15)
    args = parser.parse_args()

    started = time.monotonic()
    stop = started + args.minutes * 60
    counts: dict[str, int] = defaultdict(int)
    samples: dict[int, list[tuple[float, int]]] = defaultdict(list)
    names: dict[int, str] = {}
    async with httpx.AsyncClient(base_url=args.url, timeout=120) as client:
        streams = [
            asyncio.create_task(stream_forever(client, args.key, args.voice, stop, counts))
            for _ in range(args.streams)
        ]
        while time.monotonic() < stop:
            await asyncio.sleep(args.sample_s)
            if time.monotonic() - started >= args.warmup_s:
                sample(samples, names)
            done = sum(counts.values())
            print(f"{(time.monotonic() - started) / 60:5.1f} min  {done} requests  {dict(counts)}")
        await asyncio.gather(*streams)

    print(f"\n{machine()}; {args.streams} streams, {args.minutes:g} min, voice {args.voice}")
    marks = list(range(10, int(args.minutes) + 1, 10))
    header = "".join(f"{f'{m} min':>8}" for m in marks)
    print(f"{'process':<40} {'start':>7}{header} {'MiB/h':>7} {'2nd half':>8}")
    for pid, points in sorted(samples.items(), key=lambda item: names[item[0]]):
        if len(points) < 6:
            continue
        t = (np.array([p[0] for p in points]) - started) / 60
        rss = np.array([p[1] for p in points]) / 2**20
        at = "".join(f"{rss[min(int(np.searchsorted(t, m)), t.size - 1)]:>7.0f}M" for m in marks)
        half = t.size // 2
        print(
            f"{names[pid]:<40} {rss[0]:>6.0f}M{at} {growth_per_hour(t, rss):>7.1f}"
            f" {growth_per_hour(t[half:], rss[half:]):>8.1f}"
        )
    print(f"requests: {dict(counts)}")


if __name__ == "__main__":
    asyncio.run(main())
