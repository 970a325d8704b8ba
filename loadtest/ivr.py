"""``make bench`` (its second part): an IVR's traffic, with the speech cache and without.

Most of an IVR's requests are a few fixed prompts (the menu, the greeting, the
goodbye); the rest are new texts (a balance, a date, a name). Starts the service as
``make run`` does and sends that mix from closed-loop streams (each sends its next
request as one ends) at each level, first with every request kept out of the speech
cache (``"cache": false``: what the service does without one), then letting the cache
answer. Per run: requests a second, time to first audio (all, and hits and misses
apart, by the response's ``x-service-cache``), the share of hits, and what the
cache holds in memory then (``/ready``). Prints a Markdown table with the machine.

    python -m loadtest.ivr [--levels 1,4,16] [--duration 20] [--fixed 0.8]
                           [--voice hi-espeak-aditi] [--url http://...]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field

import aiohttp
import httpx

from loadtest.bench import started, wait_ready
from loadtest.report import machine, markdown
from loadtest.traffic import KEY, percentile

# An IVR's fixed prompts (Hindi, as a bank's or a telecom's menu says them).
PROMPTS = (
    "नमस्ते, हमें कॉल करने के लिए धन्यवाद।",
    "हिंदी के लिए एक दबाएँ। For English, press two.",
    "अपने खाते की जानकारी के लिए एक दबाएँ।",
    "नया कनेक्शन लेने के लिए दो दबाएँ।",
    "बिल भुगतान के लिए तीन दबाएँ।",
    "शिकायत दर्ज करने के लिए चार दबाएँ।",
    "हमारे प्रतिनिधि से बात करने के लिए शून्य दबाएँ।",
    "कृपया लाइन पर बने रहें, आपकी कॉल हमारे लिए महत्वपूर्ण है।",
    "आपने कोई विकल्प नहीं चुना। कृपया दोबारा प्रयास करें।",
    "हमसे बात करने के लिए धन्यवाद। आपका दिन शुभ हो।",
)
_NEW = (
    "आपके खाते में ₹{n} शेष हैं।",
    "आपका पिछला बिल {n} रुपये का था, जिसकी अंतिम तिथि {d} तारीख है।",
    "आपकी शिकायत संख्या {n} दर्ज कर ली गई है।",
    "आपका रिचार्ज {n} रुपये का सफल रहा, वैधता {d} दिन है।",
)


def new_text(rng: random.Random) -> str:
    """A text no request has sent before (a balance, a bill, a complaint number)."""
    template = rng.choice(_NEW)
    return template.format(n=rng.randint(100, 9_999_999), d=rng.randint(2, 28))


@dataclass
class MixResult:
    cache: bool
    streams: int
    ttfa_ms: dict[str, list[float]] = field(default_factory=dict)  # by x-service-cache
    errors: int = 0
    wall_s: float = 0.0
    cache_bytes: int = 0  # the largest a replica's speech cache held after the run

    def all_ms(self) -> list[float]:
        return [t for times in self.ttfa_ms.values() for t in times]


async def one(
    client: aiohttp.ClientSession, key: str, body: dict[str, object], result: MixResult
) -> None:
    started_at = time.perf_counter()
    first: float | None = None
    try:
        async with client.post(
            "/v1/audio/speech", json=body, headers={"Authorization": f"Bearer {key}"}
        ) as response:
            if response.status != 200:
                await response.read()
                result.errors += 1
                return
            status = response.headers.get("x-service-cache", "off")
            async for chunk in response.content.iter_any():
                if first is None and chunk:
                    first = time.perf_counter()
    except (aiohttp.ClientError, TimeoutError):
        result.errors += 1
        return
    if first is None:
        result.errors += 1
        return
    result.ttfa_ms.setdefault(status, []).append((first - started_at) * 1000)


async def run_mix(
    url: str,
    streams: int,
    duration_s: float,
    fixed: float,
    voice: str | None,
    cache: bool,
    key: str = KEY,
) -> MixResult:
    """``streams`` closed-loop streams of the mix for ``duration_s``, ``fixed`` of
    their requests one of the prompts."""
    result = MixResult(cache, streams)
    rng = random.Random(streams * 2 + cache)
    async with aiohttp.ClientSession(
        url,
        connector=aiohttp.TCPConnector(limit=streams + 4),
        timeout=aiohttp.ClientTimeout(total=120),
    ) as client:
        deadline = time.perf_counter() + duration_s

        async def worker() -> None:
            while time.perf_counter() < deadline:
                text = rng.choice(PROMPTS) if rng.random() < fixed else new_text(rng)
                body: dict[str, object] = {"input": text, "cache": cache}
                if voice:
                    body["voice"] = voice
                await one(client, key, body, result)

        began = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(streams)))
        result.wall_s = time.perf_counter() - began
    result.cache_bytes = cache_bytes(url, key)
    return result


def cache_bytes(url: str, key: str = KEY, asks: int = 6) -> int:
    """The most any ingress replica's speech cache holds (/ready answers from one
    replica at a time: asked a few times)."""
    held = 0
    for _ in range(asks):
        ready = httpx.get(url + "/ready", headers={"Authorization": f"Bearer {key}"}, timeout=30)
        status = (ready.json().get("replica") or {}).get("speech_cache") or {}
        held = max(held, int(status.get("bytes", 0)))
    return held


def row(r: MixResult) -> list[str]:
    every = r.all_ms()
    hits = r.ttfa_ms.get("hit", [])
    spoken = r.ttfa_ms.get("miss", []) + r.ttfa_ms.get("partial", []) + r.ttfa_ms.get("off", [])

    def p(values: list[float], q: float) -> str:
        return f"{percentile(values, q):.1f}" if values else "-"

    return [
        "with" if r.cache else "without",
        str(r.streams),
        str(len(every)),
        f"{len(every) / r.wall_s:.2f}" if r.wall_s else "-",
        p(every, 0.5),
        p(every, 0.95),
        p(hits, 0.5),
        p(hits, 0.95),
        p(spoken, 0.5),
        p(spoken, 0.95),
        f"{len(hits) / len(every):.0%}" if every else "-",
        f"{r.cache_bytes / 2**20:.1f}" if r.cache else "-",
        str(r.errors),
    ]


COLUMNS = [
    "speech cache", "streams", "requests", "requests / s", "TTFA p50 ms", "TTFA p95 ms",
    "hit p50 ms", "hit p95 ms", "spoken p50 ms", "spoken p95 ms", "hits", "cache MB",
    "errors",
]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--levels", default="1,4,16", help="concurrent streams")
    parser.add_argument("--duration", type=float, default=20.0, help="seconds per run")
    parser.add_argument("--fixed", type=float, default=0.8, help="share of fixed prompts")
    parser.add_argument("--voice", help="the voice (default: the service's default)")
    parser.add_argument("--url", help="measure a running service instead of starting one")
    args = parser.parse_args()
    levels = [int(n) for n in args.levels.split(",") if n]
    results = []
    with contextlib.ExitStack() as stack:
        url = args.url
        if url is None:
            ledger = stack.enter_context(tempfile.TemporaryDirectory())
            env = {
                "TTS_DEV_API_KEY": KEY,
                "TTS_RATE_LIMIT_PER_MINUTE": "0",  # one key makes all the load
                "TTS_DATABASE_URL": f"sqlite:///{ledger}/ledger.sqlite3",
                "TTS_LONGFORM_AUDIO_PATH": f"{ledger}/audio",  # an empty shared tier
                "RAY_USAGE_STATS_ENABLED": "0",
            }
            url = stack.enter_context(started([sys.executable, "-m", "serve_app.run"], env))
        else:
            wait_ready(url)
        for streams in levels:
            for cache in (False, True):
                mix = run_mix(url, streams, args.duration, args.fixed, args.voice, cache)
                results.append(asyncio.run(mix))
    voice = args.voice or "the default voice (Kokoro-82M)"
    print(f"\nMachine: {machine()}")
    print(
        f"\n## An IVR's mix: {args.fixed:.0%} of requests one of {len(PROMPTS)} fixed prompts, "
        f"the rest new; {voice}, raw PCM, {args.duration:g} s a run\n"
    )
    print("Hits: every sentence from the speech cache; spoken: any sentence synthesised.\n")
    print(markdown(COLUMNS, [row(r) for r in results]))


if __name__ == "__main__":
    main()
