"""Kokoro with many streams at once on one device: the batching Synthesiser against a
batch-1 server of the same torch model, in one run.

    python -m loadtest.kokoro_streams [--device cuda] [--streams 1 8 32 64 128 256]
    make bench GPU=1        # on CUDA, at the stream counts above

Both servers are the Synthesiser's own runner (no HTTP, no Ray: this measures the
engine and its scheduling, on a machine that may have nothing else installed):
``batched`` speaks the segments of concurrent streams in one forward pass, the
most urgent first (first segments ahead of later ones); ``batch-1`` is the same
model one segment per pass, as a one-session Kokoro server is. Each stream asks for
Hindi texts of one to three clauses, one after another, cut into segments as the
service cuts them, and plays each as it arrives, in real time from its first
audio: a segment that arrives after the one before it has finished playing is an
underrun. Printed per server and stream count: first audio p50/p95, audio seconds
per wall second, the streams held in real time (no underrun in the whole run), and
on CUDA the GPU's utilisation and peak memory.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from deployments.messages import SynthesisParams, SynthesisWork
from deployments.normaliser.segmenter import PROFILES, segment
from deployments.synthesis.runner import SynthesisRunner
from loadtest.profile import record, top
from loadtest.report import machine

TEXTS = (
    "नमस्ते, आप कैसे हैं?",
    "आपका ऑर्डर कल शाम तक पहुँच जाएगा।",
    "कृपया अपना खाता नंबर बताइए, ताकि हम आपकी शिकायत दर्ज कर सकें।",
    "ट्रेन सुबह सात बजे निकलेगी, दोपहर तक दिल्ली पहुँचेगी, और शाम को वापस आएगी।",
    "धन्यवाद, आपका दिन शुभ हो।",
    "बिजली का बिल जमा करने की आखिरी तारीख कल है, कृपया समय पर भुगतान करें।",
)
GPU_STREAMS = (1, 8, 32, 64, 128, 256)
SAMPLE_RATE = 24_000


@dataclass
class Run:
    """What the streams of one server at one stream count saw."""

    first_audio_ms: list[float] = field(default_factory=list)
    audio_s: float = 0.0
    underruns: set[int] = field(default_factory=set)
    errors: int = 0


async def one_stream(runner: SynthesisRunner, n: int, until: float, run: Run) -> None:
    """Stream ``n``: texts one after another until ``until``, each played as it arrives."""
    rng = random.Random(n)
    await asyncio.sleep(rng.random())  # streams do not all start at once
    while time.perf_counter() < until:
        text = rng.choice(TEXTS)
        work = SynthesisWork(segment(text, PROFILES["balanced"]), SynthesisParams("default", "hi"))
        asked = time.perf_counter()
        playing_until: float | None = None
        try:
            async for chunk in runner.synthesise(work):
                now = time.perf_counter()
                if playing_until is None:
                    run.first_audio_ms.append((now - asked) * 1000)
                    playing_until = now
                elif now > playing_until:
                    run.underruns.add(n)
                    playing_until = now
                seconds = chunk.samples.size / SAMPLE_RATE
                playing_until += seconds
                run.audio_s += seconds
        except Exception:
            run.errors += 1
            continue
        if playing_until is not None:  # the listener hears it out before the next text
            await asyncio.sleep(max(0.0, playing_until - time.perf_counter()))


class GpuSampler:
    """GPU utilisation (NVML, through torch) sampled while a run lasts."""

    def __init__(self, device: str) -> None:
        self._on = device == "cuda"
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> GpuSampler:
        if self._on:
            import torch

            torch.cuda.reset_peak_memory_stats()
            self._thread.start()
        return self

    def __exit__(self, *_: Any) -> None:
        self._stop.set()

    def _sample(self) -> None:
        import torch

        while not self._stop.wait(0.25):
            try:
                self.samples.append(float(torch.cuda.utilization()))
            except Exception:  # no NVML here: utilisation unknown
                return

    def summary(self) -> str:
        if not self._on:
            return ""
        import torch

        peak = torch.cuda.max_memory_allocated() / 2**30
        use = f"{np.mean(self.samples):.0f}%" if self.samples else "n/a"
        return f"{use:>6}{peak:>8.1f}"


async def measure(runner: SynthesisRunner, streams: int, seconds: float, device: str) -> str:
    run = Run()
    started = time.perf_counter()
    with GpuSampler(device) as gpu:
        until = started + seconds
        await asyncio.gather(*(one_stream(runner, n, until, run) for n in range(streams)))
    wall = time.perf_counter() - started
    ttfa = np.array(run.first_audio_ms or [float("nan")])
    held = streams - len(run.underruns)
    return (
        f"{streams:>8}{np.percentile(ttfa, 50):>9.0f}{np.percentile(ttfa, 95):>9.0f}"
        f"{run.audio_s / wall:>10.2f}{held:>7}/{streams:<5}{run.errors:>7}{gpu.summary()}"
    )


def runner(device: str, dtype: str, batch: int, compile_mode: str = "off") -> SynthesisRunner:
    options = {"backend": "torch", "device": device, "dtype": dtype, "compile": compile_mode}
    return SynthesisRunner(
        {"voice_engines": ["kokoro"], "engines": {"kokoro": options}, "max_batch_size": batch}
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--dtype", default=None, help="default: bfloat16 on CUDA, else float32")
    parser.add_argument("--streams", type=int, nargs="+", default=None)
    parser.add_argument("--seconds", type=float, default=20.0, help="per stream count")
    parser.add_argument("--max-batch", type=int, default=64, help="the batched server's")
    parser.add_argument("--servers", nargs="+", choices=["batched", "batch-1"], default=None)
    parser.add_argument(
        "--batch-1-upto",
        type=int,
        default=64,
        help="batch-1's largest stream count: past it, it falls behind real time "
        "(H200: p50 2.5 s at 128) and only spends the run's time",
    )
    parser.add_argument(
        "--compile",
        choices=["off", "default", "reduce-overhead"],
        default="off",
        help="the decoder through torch.compile (the engine's compile option)",
    )
    parser.add_argument(
        "--profile",
        type=Path,
        default=None,
        help="py-spy this process while the batched server runs its largest count: "
        "the raw stacks to PROFILE, their table printed",
    )
    args = parser.parse_args()
    counts = args.streams or (list(GPU_STREAMS) if args.device == "cuda" else [1, 2, 4])
    dtype = args.dtype or ("bfloat16" if args.device == "cuda" else "float32")
    print(
        f"Kokoro torch {dtype}, compile {args.compile}, many streams, on {machine(args.device)}; "
        f"{args.seconds:.0f} s each"
    )
    gpu = f"{'gpu':>6}{'GiB':>8}" if args.device == "cuda" else ""
    servers = [("batched", args.max_batch), ("batch-1", 1)]
    for name, batch in [s for s in servers if args.servers is None or s[0] in args.servers]:
        print(f"\n{name} (max batch {batch})")
        print(
            f"{'streams':>8}{'p50 ms':>9}{'p95 ms':>9}{'audio/s':>10}{'held':>13}{'errors':>7}{gpu}"
        )
        started = time.perf_counter()
        server = runner(args.device, dtype, batch, args.compile)
        print(f"(loaded and warmed up in {time.perf_counter() - started:.0f} s)")
        for streams in counts if batch > 1 else [n for n in counts if n <= args.batch_1_upto]:
            profiled = args.profile is not None and name == "batched" and streams == max(counts)
            spy = record(os.getpid(), args.seconds * 0.8, args.profile) if profiled else None
            print(asyncio.run(measure(server, streams, args.seconds, args.device)), flush=True)
            if profiled:
                print(profile_table(spy, args.profile, streams))


def profile_table(spy: subprocess.Popen[bytes] | None, raw: Path, streams: int) -> str:
    """The table of the recording ``spy`` made at ``streams`` streams, once it ends."""
    if spy is None:
        return "profile: py-spy is not installed here"
    _, error = spy.communicate()
    if spy.returncode != 0 or not raw.is_file():
        return f"profile: py-spy failed ({spy.returncode}): {error.decode(errors='replace')[-500:]}"
    return f"\nprofile at {streams} streams (py-spy, raw stacks in {raw}):\n{top(raw.read_text())}"


if __name__ == "__main__":
    main()
