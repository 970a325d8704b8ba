"""Where a Synthesiser replica's start goes: each step a replica takes before Serve
counts it RUNNING, timed in a fresh process as the replica takes them.

    python -m loadtest.replica_start [--config local-cluster|gpu|local] [--repeat 3]
    python -m loadtest.neighbour -- python -m loadtest.replica_start   # on a busy host

The steps: the interpreter and the replica's imports (Ray Serve and the deployment
module, as a Ray worker imports them to build the replica), each engine's load, each
voice's preparation, and the warm-up (one sentence on each engine). Ray's own part
(a worker process started and connected, the actor created) is not here: Serve's
controller log has each replica's whole start ("started successfully ... after")
and its constructor's part of it ("Replica constructor ... took"). Each repeat is a
new process, so the imports are paid each time, as each replica pays them.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from deployments.synthesis.synthesiser import SynthesiserConfig

CONFIG_NAMES = ("local-cluster", "gpu", "local")


def synthesiser_config(config: str) -> SynthesiserConfig:
    """The Synthesiser deployment's config in ``config``: the local cluster's (gpu.yaml
    with its overrides), gpu.yaml's own, or local.yaml's (make run)."""
    import yaml

    from serve_app.app import AppArgs
    from serve_app.cluster.config import local_cluster_config
    from serve_app.settings import CONFIGS

    if config == "local-cluster":
        serve = local_cluster_config(port=8000, database_url="sqlite://")
    else:
        serve = yaml.safe_load((CONFIGS / f"{config}.yaml").read_text(encoding="utf-8"))
    args = AppArgs.model_validate(serve["applications"][0].get("args") or {})
    remote, _ = args.synthesisers(args.synthesiser.registry().engines())
    return remote


def measure(config_name: str) -> dict[str, float]:
    """Seconds of each step of one replica's start, in this process (run it fresh)."""
    steps: dict[str, float] = {}
    mark = time.perf_counter()

    def step(name: str) -> None:
        nonlocal mark
        now = time.perf_counter()
        steps[name] = round(now - mark, 3)
        mark = now

    import ray.serve  # noqa: F401  # what every replica's worker has imported

    step("import ray.serve")
    import deployments.synthesis.deployment  # noqa: F401

    step("import the deployment module")
    from deployments.synthesis.synthesiser import Synthesiser, load_engines

    config = synthesiser_config(config_name)
    registry = config.registry()
    step("read the Serve config and voices")
    engines = {}
    for name, engine in load_engines(registry, config):
        engines[name] = engine
        step(f"load engine {name}")
    synthesiser = Synthesiser(registry, engines)
    step(f"prepare {len(registry.all())} voices")
    for name, seconds in synthesiser.warm_up().items():
        steps[f"warm up {name}"] = seconds
    step("warm-up (all engines)")
    return steps


def child(config: str) -> None:
    """One measurement, in this (fresh) process: its steps as JSON on stdout's last line."""
    started = time.perf_counter()
    steps = measure(config)
    steps["whole (after the interpreter)"] = round(time.perf_counter() - started, 3)
    print(json.dumps(steps))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--config", choices=CONFIG_NAMES, default="local-cluster")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.config)
        return 0
    runs: list[dict[str, float]] = []
    for _ in range(args.repeat):
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "loadtest.replica_start", "--child", "--config", args.config],
            capture_output=True,
            text=True,
            env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0"},
            check=True,
        )
        steps = json.loads(done.stdout.strip().splitlines()[-1])
        steps["process, start to end"] = round(time.perf_counter() - started, 3)
        runs.append(steps)
    print(f"Synthesiser replica start ({args.config}), {os.cpu_count()} cores, {args.repeat} runs")
    print(f"| step | {' | '.join(f'run {i + 1}' for i in range(len(runs)))} |")
    print(f"|---|{'---|' * len(runs)}")
    for name in runs[0]:
        print(f"| {name} | {' | '.join(f'{run.get(name, 0):.2f} s' for run in runs)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
