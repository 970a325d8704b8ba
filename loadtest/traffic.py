"""Traffic for the benchmarks: closed-loop streams and open-loop rates of speech
requests, each request's time to its first audio byte and to its last (raw PCM)."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

import aiohttp

KEY = "sk-proj-bench0000-" + "b" * 32  # the key the bench's service is started with


@dataclass
class LevelResult:
    streams: int  # concurrent streams (closed loop), or 0 at a fixed rate
    rate: float = 0.0  # requests per second sent (open loop)
    ttfa_ms: list[float] = field(default_factory=list)
    total_ms: list[float] = field(default_factory=list)
    audio_s: float = 0.0
    errors: int = 0
    wall_s: float = 0.0
    # CPU ms per request by part of the service (loadtest.cpu), where measured
    cpu_ms: dict[str, float] = field(default_factory=dict)
    # the Synthesiser's first clauses read with their sentence and rendered in parts,
    # spoken alone, and joined to their sentence
    first_clauses: tuple[int, int, int] | None = None


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def throughput(result: LevelResult) -> float:
    return result.audio_s / result.wall_s if result.wall_s else 0.0


def requests_per_s(result: LevelResult) -> float:
    return len(result.ttfa_ms) / result.wall_s if result.wall_s else 0.0


@dataclass(frozen=True)
class Request:
    """What every request of a run sends: the text, the voice (None: the default)
    and the sample rate its raw PCM is asked at (the voice's own: no resampling).
    Every request repeats the text: the speech cache is asked to keep out of it
    (``cache``: let it answer), so that the voice itself is measured (the plain
    servers compared ignore the field)."""

    text: str
    voice: str | None = None
    sample_rate: int = 24000
    cache: bool = False

    def body(self) -> dict[str, str | int | bool]:
        voice = {"voice": self.voice} if self.voice else {}
        cache = {} if self.cache else {"cache": False}
        return {"input": self.text, "sample_rate": self.sample_rate, **voice, **cache}


async def one_request(client: aiohttp.ClientSession, request: Request, result: LevelResult) -> None:
    started = time.perf_counter()
    first: float | None = None
    size = 0
    try:
        async with client.post(
            "/v1/audio/speech", json=request.body(), headers={"Authorization": f"Bearer {KEY}"}
        ) as response:
            if response.status != 200:
                await response.read()
                result.errors += 1
                return
            async for chunk in response.content.iter_any():
                if first is None and chunk:
                    first = time.perf_counter()
                size += len(chunk)
    except (aiohttp.ClientError, TimeoutError):
        result.errors += 1
        return
    done = time.perf_counter()
    if first is None:
        result.errors += 1
        return
    result.ttfa_ms.append((first - started) * 1000)
    result.total_ms.append((done - started) * 1000)
    result.audio_s += size / 2 / request.sample_rate


async def run_level(url: str, request: Request, streams: int, duration_s: float) -> LevelResult:
    result = LevelResult(streams)
    # aiohttp, not httpx: at 64 streams httpx's connection pool took the client
    # process to 100% of a core for seconds at a time, and the "time to first
    # audio" it measured was its own backlog (measured: p95 2-5 s with httpx,
    # 0.2-0.3 s with aiohttp against the same service).
    async with aiohttp.ClientSession(
        url,
        connector=aiohttp.TCPConnector(limit=streams + 4),
        timeout=aiohttp.ClientTimeout(total=120),
    ) as client:
        await one_request(client, request, LevelResult(1))  # warm the path
        deadline = time.perf_counter() + duration_s

        async def worker() -> None:
            while time.perf_counter() < deadline:
                await one_request(client, request, result)

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(streams)))
        result.wall_s = time.perf_counter() - started
    return result


async def run_rate(url: str, request: Request, rate: float, duration_s: float) -> LevelResult:
    """Requests started every 1/``rate`` seconds for ``duration_s``, whether or not
    earlier ones have finished."""
    result = LevelResult(0, rate)
    async with aiohttp.ClientSession(
        url,
        connector=aiohttp.TCPConnector(limit=0),  # no client-side queue
        timeout=aiohttp.ClientTimeout(total=120),
    ) as client:
        await one_request(client, request, LevelResult(1))  # warm the path
        started = time.perf_counter()
        requests: list[asyncio.Task[None]] = []
        while len(requests) < rate * duration_s:
            requests.append(asyncio.create_task(one_request(client, request, result)))
            await asyncio.sleep(max(0.0, started + len(requests) / rate - time.perf_counter()))
        await asyncio.gather(*requests)
        result.wall_s = time.perf_counter() - started
    return result
