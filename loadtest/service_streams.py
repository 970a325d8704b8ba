"""The whole service over HTTP at many streams of the default voice: what a client gets.

    python -m loadtest.service_streams [--config configs/gpu.yaml] [--streams 1 8 32 128]

Starts the service as ``make run`` does with a Serve config of ``--config`` (on a
lent GPU machine, ``configs/gpu.yaml``: Kokoro in torch on CUDA, batched; Serve's
own proxy), as one machine serves it: the custom resources that place its CPU
stages on a cluster's CPU nodes left out (:func:`one_machine`). Then, per stream
count, that many closed-loop streams of a Hindi sentence in the default voice
(raw PCM), each sending its next request when one ends. Prints first audio
p50/p95, requests and audio seconds per wall second and errors, with the
machine. ``loadtest/device_run.sh KIT OUT cuda service`` runs it after the
engine alone (``loadtest.kokoro_streams``) at the same counts, so the two compare.
Every request there keeps out of the speech cache (its text repeats). With
``--ivr-streams``, then an IVR's mix at those counts, with the cache and without
(``loadtest.ivr``), on the same service.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

from loadtest.bench import NEURAL_HINDI, started
from loadtest.ivr import COLUMNS, MixResult, row, run_mix
from loadtest.report import machine, markdown
from loadtest.traffic import (
    KEY,
    Request,
    percentile,
    requests_per_s,
    run_level,
    throughput,
)


def one_machine(config: Path, folder: Path) -> Path:
    """``config`` as one machine can place it: each deployment's custom resources
    (``cpu_worker``, which only a cluster's CPU nodes have) left out; written in
    ``folder``."""
    document: dict[str, Any] = yaml.safe_load(config.read_text())
    for app in document.get("applications", []):
        for deployment in app.get("deployments", []):
            deployment.get("ray_actor_options", {}).pop("resources", None)
    placed = folder / config.name
    placed.write_text(yaml.safe_dump(document, sort_keys=False))
    return placed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default="configs/gpu.yaml")
    parser.add_argument("--streams", type=int, nargs="+", default=[1, 8, 32, 128])
    parser.add_argument("--seconds", type=float, default=10.0, help="per stream count")
    parser.add_argument("--text", default=NEURAL_HINDI)
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu", help="for the table")
    parser.add_argument(
        "--ivr-streams", type=int, nargs="*", default=[], help="then an IVR's mix at these"
    )
    args = parser.parse_args()
    mixes: list[MixResult] = []
    request = Request(args.text, None, 24000)
    rows: list[list[str]] = []
    with tempfile.TemporaryDirectory() as folder:
        run = Path(folder)  # the config as placed here, and a fresh ledger
        env = {
            "TTS_SERVE_CONFIG": str(one_machine(Path(args.config).resolve(), run)),
            "TTS_PROXY": "serve",  # no HAProxy binary needed
            "TTS_DEV_API_KEY": KEY,
            "TTS_RATE_LIMIT_PER_MINUTE": "0",  # one key makes all the load
            "TTS_DATABASE_URL": f"sqlite:///{run}/ledger.sqlite3",
            "RAY_USAGE_STATS_ENABLED": "0",
        }
        with started([sys.executable, "-m", "serve_app.run"], env) as url:
            print(f"service up ({args.config}), {args.seconds:.0f} s per count", flush=True)
            for streams in args.streams:
                result = asyncio.run(run_level(url, request, streams, args.seconds))
                rows.append([
                    str(streams), str(len(result.ttfa_ms)),
                    f"{percentile(result.ttfa_ms, 0.5):.0f}",
                    f"{percentile(result.ttfa_ms, 0.95):.0f}",
                    f"{requests_per_s(result):.2f}", f"{throughput(result):.1f}",
                    str(result.errors),
                ])  # fmt: skip
                print(" ".join(rows[-1]), flush=True)
            for streams in args.ivr_streams:
                for cache in (False, True):
                    mix = asyncio.run(run_mix(url, streams, args.seconds, 0.8, None, cache))
                    mixes.append(mix)
                    print(" ".join(row(mix)), flush=True)
    print(f"\nThe service over HTTP ({args.config}), default voice, on {machine(args.device)}\n")
    columns = ["streams", "requests", "first audio p50 ms", "p95 ms", "requests/s", "audio s/s"]
    print(markdown([*columns, "errors"], rows))
    if mixes:
        print("\nAn IVR's mix (loadtest/ivr.py: 80% fixed prompts), with the cache and without\n")
        print(markdown(COLUMNS, [row(m) for m in mixes]))


if __name__ == "__main__":
    main()
