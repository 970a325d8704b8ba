"""``make bench``: time to first audio and throughput, through the service and without it.

Starts the service as ``make run`` does (``python -m serve_app.run``) on a free
port and measures two voices, each against the plain way to serve its engine,
per request the time to the first audio byte and to the last, raw PCM:

- neural: the default voice (Kokoro-82M) at 1, 4 and 8 concurrent streams,
  against a single-process server that speaks each request sentence by sentence
  with one ONNX session (``loadtest/kokoro_baseline.py``);
- eSpeak (``hi-espeak-aditi``) at 1, 4, 16 and 64 streams, against a
  single-process server that answers each request whole (``loadtest/baseline.py``),
  and against the engine called in this process (normaliser + eSpeak, no
  serving), so the table shows the serving overhead.

Those streams send their next request as soon as one ends, so from a few streams
up the machine is always busy (closed loop: it shows capacity). A third table
sends eSpeak requests at fixed rates instead (open loop, ``--rates``), as
independent callers do: first-audio times at a given load, below and past
saturation. Prints Markdown tables with the machine they ran on.

    python -m loadtest.bench [--duration 10] [--neural-levels 1,4,8]
                             [--levels 1,4,16,64] [--rates 20,40,80,120]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

from deployments.reading import ReadingOptions
from loadtest import cpu
from loadtest.report import cpu_table, machine, neural_table, rate_table, table
from loadtest.traffic import (
    KEY,
    LevelResult,
    Request,
    percentile,
    requests_per_s,
    run_level,
    run_rate,
    throughput,
)
from serve_app.http.sockets import free_port
from serve_app.run import default_replicas

ROOT = Path(__file__).resolve().parents[1]
SHORT_HINDI = "नमस्ते, आप कैसे हैं? मैं ठीक हूँ।"
NEURAL_HINDI = "नमस्ते, आज मौसम बहुत अच्छा है।"
ESPEAK_VOICE = "hi-espeak-aditi"


def engine_direct_ms(text: str, repeats: int = 50) -> float:
    """Median time to the first segment's audio with the eSpeak engine in this process."""
    from deployments.messages import SynthesisParams
    from deployments.normaliser.normaliser import TextNormaliser
    from loadtest.baseline import espeak_synthesiser

    synthesiser = espeak_synthesiser()
    normaliser = TextNormaliser()
    params = SynthesisParams("default", "hi")
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        first = normaliser.normalise(text, ReadingOptions("hi")).segments[0]
        synthesiser.speak(first, params)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def wait_ready(url: str, timeout_s: float = 180) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            response = httpx.get(url + "/ready", headers={"Authorization": f"Bearer {KEY}"})
            if response.status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(1)
    raise TimeoutError("the service did not become ready")


@dataclass(frozen=True)
class Plan:
    """What to send: the request, closed-loop stream counts, open-loop rates, seconds each."""

    request: Request
    levels: list[int]
    rates: list[float]
    duration: float


def measured_level(url: str, plan: Plan, streams: int) -> LevelResult:
    """One closed-loop level, with the CPU each process spent on it and, where the
    server says (/ready), how the Synthesiser spoke first clauses meanwhile."""
    clauses = first_clauses(url)
    used = cpu.snapshot()
    result = asyncio.run(run_level(url, plan.request, streams, plan.duration))
    result.cpu_ms = cpu.per_request_ms(used, cpu.snapshot(), len(result.ttfa_ms))
    after = first_clauses(url)
    if clauses is not None and after is not None:
        result.first_clauses = (
            after[0] - clauses[0],
            after[1] - clauses[1],
            after[2] - clauses[2],
        )
    return result


def first_clauses(url: str) -> tuple[int, int, int] | None:
    """Kokoro's first clauses read with their sentence and rendered in parts, spoken
    alone, and joined so far, from /ready (None where the server has no such report:
    the baselines)."""
    try:
        ready = httpx.get(url + "/ready", headers={"Authorization": f"Bearer {KEY}"}, timeout=10)
        stats = next(e for e in ready.json()["engines"] if e["name"] == "kokoro")["stats"]
        counts = ("parted", "alone", "joined")
        parted, alone, joined = (int(stats[f"first_clauses_{how}"]) for how in counts)
        return parted, alone, joined
    except (httpx.HTTPError, ValueError, KeyError, StopIteration, TypeError):
        return None


@contextlib.contextmanager
def started(command: list[str], env: dict[str, str]) -> Iterator[str]:
    """``command`` (a server taking ``--port``) started on a free port in a process
    group of its own, with ``env`` added: its URL once it is ready; stopped after."""
    port = free_port()
    server = subprocess.Popen(
        [*command, "--port", str(port)],
        cwd=ROOT,
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ready(url)
        yield url
    finally:
        os.killpg(server.pid, signal.SIGINT)
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)


def measure(
    url: str | None, command: list[str], env: dict[str, str], plans: list[Plan]
) -> list[tuple[list[LevelResult], list[LevelResult]]]:
    """Every level, then every rate, of each plan against ``url`` or against
    ``command`` started on a free port."""
    with contextlib.ExitStack() as stack:
        if url is None:
            url = stack.enter_context(started(command, env))
        else:
            wait_ready(url)
        results = []
        for plan in plans:
            levels = [measured_level(url, plan, n) for n in plan.levels]
            rates = [asyncio.run(run_rate(url, plan.request, r, plan.duration)) for r in plan.rates]
            results.append((levels, rates))
        return results


def compare_placements(duration: float, neural_text: str, espeak_text: str) -> None:
    """The graph and the folded placement, each started as make run does, same requests."""
    plans = [
        Plan(Request(neural_text, None, 24000), [1, 4], [], duration),
        Plan(Request(espeak_text, ESPEAK_VOICE, 22050), [1, 4], [], duration),
    ]
    rows = []
    placements = (
        ("graph, eSpeak in the ingress (make run)", "0", "espeak"),
        ("graph, every voice on the Synthesiser", "0", ""),
        ("every stage folded into the ingress", "1", ""),
    )
    for name, folded, ingress_engines in placements:
        with tempfile.TemporaryDirectory() as ledger:
            env = {
                "TTS_DEV_API_KEY": KEY,
                "TTS_RATE_LIMIT_PER_MINUTE": "0",  # one key makes all the load
                "TTS_DATABASE_URL": f"sqlite:///{ledger}/ledger.sqlite3",
                "RAY_USAGE_STATS_ENABLED": "0",
                "TTS_FOLDED": folded,
                "TTS_INGRESS_ENGINES": ingress_engines,
            }
            results = measure(None, [sys.executable, "-m", "serve_app.run"], env, plans)
        for plan, (levels, _) in zip(plans, results, strict=True):
            voice = plan.request.voice or "default (Kokoro)"
            for r in levels:
                rows.append(
                    f"| {name} | {voice} | {r.streams} | {percentile(r.ttfa_ms, 0.5):.1f} "
                    f"| {percentile(r.ttfa_ms, 0.95):.1f} | {throughput(r):.2f} "
                    f"| {requests_per_s(r):.2f} | {r.errors} |"
                )
    print(f"\nMachine: {machine()}\n")
    print(
        "| placement | voice | streams | TTFA p50 ms | TTFA p95 ms | audio s / wall s "
        "| requests / s | errors |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    print("\n".join(rows))


def numbers(values: str) -> list[float]:
    return [float(v) for v in values.split(",") if v]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per level")
    parser.add_argument("--neural-levels", default="1,4,8", help="default voice: streams")
    parser.add_argument("--neural-text", default=NEURAL_HINDI)
    parser.add_argument("--levels", default="1,4,16,64", help="eSpeak: streams (closed loop)")
    parser.add_argument("--rates", default="20,40,80,120", help="eSpeak: requests/s (open loop)")
    parser.add_argument("--text", default=SHORT_HINDI, help="eSpeak's text")
    parser.add_argument("--url", help="measure a running service instead of starting one")
    parser.add_argument(
        "--placements",
        action="store_true",
        help="instead: the four-deployment graph against every stage folded into the "
        "ingress, for both voices at 1 and 4 streams, in one run",
    )
    args = parser.parse_args()
    if args.placements:
        compare_placements(args.duration, args.neural_text, args.text)
        return
    neural = Plan(
        Request(args.neural_text, None, 24000),
        [int(n) for n in numbers(args.neural_levels)],
        [],
        args.duration,
    )
    espeak = Plan(
        Request(args.text, ESPEAK_VOICE, 22050),
        [int(n) for n in numbers(args.levels)],
        numbers(args.rates),
        args.duration,
    )
    baselines = [
        (neural, [sys.executable, "-m", "loadtest.kokoro_baseline"]),
        (espeak, [sys.executable, "-m", "loadtest.baseline"]),
    ]
    plans = [plan for plan, _ in baselines if plan.levels or plan.rates]

    direct = engine_direct_ms(args.text) if espeak in plans else float("nan")
    with tempfile.TemporaryDirectory() as ledger:
        service_env = {
            "TTS_DEV_API_KEY": KEY,
            "TTS_RATE_LIMIT_PER_MINUTE": "0",  # one key makes all the load
            "TTS_DATABASE_URL": f"sqlite:///{ledger}/ledger.sqlite3",  # a fresh balance
            "RAY_USAGE_STATS_ENABLED": "0",
        }
        service = measure(args.url, [sys.executable, "-m", "serve_app.run"], service_env, plans)
    baseline = [
        measure(None, command, {}, [plan])[0] for plan, command in baselines if plan in plans
    ]
    print(f"\nMachine: {machine()}")
    replicas = os.environ.get("TTS_INGRESS_REPLICAS") or default_replicas()
    if args.url is None:
        folded = os.environ.get("TTS_FOLDED", "") not in ("", "0")
        shape = "every stage in the ingress" if folded else "the four-deployment graph"
        here = os.environ.get("TTS_INGRESS_ENGINES", "espeak")
        print(
            f"Service: make run ({replicas} ingress replicas, {shape}"
            + (f"; {here} voices in the ingress)" if here and not folded else ")")
        )
    for plan, ours, theirs in zip(plans, service, baseline, strict=True):
        if plan is neural:
            print(f"\n## Neural: the default voice (Kokoro-82M), {plan.request.text!r}, raw PCM\n")
            print(
                "Baseline: one process, one ONNX session, each request spoken sentence by "
                "sentence (loadtest/kokoro_baseline.py).\n"
            )
            print("Concurrent streams, each sending its next request when one ends:\n")
            print(neural_table(ours[0], theirs[0]))
            print("\nCPU ms per request, by process (loadtest/cpu.py):\n")
            print(cpu_table(ours[0], theirs[0]))
            continue
        print(f"\n## eSpeak ({ESPEAK_VOICE}), {plan.request.text!r}, raw PCM\n")
        print(
            f"Engine direct (normalise + synthesise the first segment, in process): "
            f"{direct:.1f} ms median"
        )
        print("Baseline: one process serving each request whole (loadtest/baseline.py)\n")
        if plan.levels:
            print(
                "Concurrent streams, each sending its next request when one ends (closed loop):\n"
            )
            print(table(ours[0], direct, theirs[0]))
        if plan.rates:
            print("\nRequests sent at a fixed rate (open loop):\n")
            print(rate_table(ours[1], theirs[1]))


if __name__ == "__main__":
    main()
