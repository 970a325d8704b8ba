"""``make bench-jobs``: one long-form job, timed, and what it costs live requests.

    python -m loadtest.jobs [--characters 100000] [--voice default] [--seconds 30]
                            [--live-project other|same] [--cluster]

Starts the service as ``make run`` does, twice: once speaking a job's chunks one at
a time (one ingress replica, one chunk at once), once as it is configured (every
ingress replica, ``longform_chunks_at_once`` each). Each time it submits a Markdown
text of ``--characters`` characters of varied Hindi prose (chapters, numbers, dates,
money) and measures the time to its first chunk and to its end (wall time, and the
real-time factor: wall seconds per second of audio). In the second run it also
measures live requests' time to first audio (a short sentence in the default voice,
one after another, for ``--seconds``; another project's, or with ``--live-project
same`` the job's own) with nothing else running and while the job runs. With
``--cluster`` it runs the job on the local cluster ``make cluster-up`` started, its
Ingress (where eSpeak speaks) held at one replica speaking one chunk at a time, then
at its most replicas as configured, live requests beside that run.
Prints Markdown tables with the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import Any

import aiohttp
import httpx

from loadtest.bench import started
from loadtest.fairness import first_audio
from loadtest.report import machine, markdown
from loadtest.texts import long_hindi
from loadtest.traffic import KEY, percentile
from serve_app.accounts import AccountStore

SHORT = "नमस्ते, आज मौसम बहुत अच्छा है।"
# First-audio times (ms) of live requests: alone, and while the job runs.
Live = dict[str, list[float]]


@dataclass
class JobRun:
    setup: str
    characters: int
    chunks: int
    audio_s: float
    first_chunk_s: float
    wall_s: float
    state: str


def run_job(url: str, text: str, voice: str, setup: str, key: str = KEY) -> JobRun:
    """Submit ``text`` as ``key``'s job and follow it to its end."""
    auth = {"Authorization": f"Bearer {key}"}
    with httpx.Client(base_url=url, headers=auth, timeout=120) as api:
        started_at = time.perf_counter()
        body = {"input": text, "text_type": "markdown", "voice": voice}
        created = api.post("/v1/speech/jobs", json=body)
        created.raise_for_status()
        job = created.json()
        first = float("nan")
        while True:
            now = api.get(f"/v1/speech/jobs/{job['id']}").json()
            if now["chunks_done"] and first != first:
                first = time.perf_counter() - started_at
            if now["state"] != "running":
                break
            time.sleep(0.5)
        wall = time.perf_counter() - started_at
        api.delete(f"/v1/speech/jobs/{job['id']}")
    return JobRun(
        setup, now["characters"], now["chunks"], now["audio_seconds"], first, wall, now["state"]
    )


async def live_first_audio(
    url: str, key: str, seconds: float, until: threading.Event
) -> list[float]:
    """First-audio times (ms) of ``key``'s short requests, one after another, for
    ``seconds`` or until ``until`` is set."""
    deadline = time.perf_counter() + seconds
    times = []
    async with aiohttp.ClientSession(url, timeout=aiohttp.ClientTimeout(total=120)) as client:
        while time.perf_counter() < deadline and not until.is_set():
            took = await first_audio(client, key, {"input": SHORT})
            if took >= 0:
                times.append(took * 1000)
    return times


def beside_live(
    url: str, text: str, voice: str, setup: str, keys: tuple[str, str], seconds: float
) -> tuple[JobRun, Live]:
    """Live requests' first audio alone, then the job (``keys``: the job's, the live
    requests') with live requests beside it."""
    job_key, live_key = keys
    live = {"alone": asyncio.run(live_first_audio(url, live_key, seconds, threading.Event()))}
    ended = threading.Event()
    during: list[float] = []

    def measure_live() -> None:
        time.sleep(5)  # the job's chunks are being spoken
        during.extend(asyncio.run(live_first_audio(url, live_key, seconds, ended)))

    beside = threading.Thread(target=measure_live)
    beside.start()
    run = run_job(url, text, voice, setup, job_key)
    ended.set()
    beside.join()
    live["while the job runs"] = during
    return run, live


def ingress_lanes(replicas: int, chunks: int | None) -> dict[str, Any]:
    """A change to the local cluster's config (configs/local-cluster.yaml's shape)
    holding its Ingress at ``replicas``, each speaking ``chunks`` of a job at once
    (None: as configured). eSpeak is spoken in the Ingress, so these are the job's
    lanes."""
    scaling = {"min_replicas": replicas, "initial_replicas": replicas, "max_replicas": replicas}
    ingress = {} if chunks is None else {"longform_chunks_at_once": chunks}
    return {
        "args": {"ingress": ingress},
        "deployments": [{"name": "Ingress", "autoscaling_config": scaling}],
    }


def on_cluster(text: str, voice: str, same: bool, seconds: float) -> tuple[list[JobRun], Live]:
    """The job on the local cluster (``make cluster-up``): its Ingress held at one
    replica speaking one chunk at a time, then at its most replicas as configured
    (live requests measured beside that one); deployed as configured again after.
    Its projects are made in the cluster's ledger."""
    from serve_app.cluster.config import APPLICATION, local_cluster_config
    from serve_app.cluster.local import LocalCluster

    cluster = LocalCluster()
    state = cluster.state()
    if state is None:
        raise SystemExit("no local cluster is up: make cluster-up first")
    store = AccountStore.open(state.database_url)
    run_name = time.strftime("%Y%m%d-%H%M%S")  # the cluster's ledger outlives a run
    try:
        job_key = store.create_key(store.create_project(f"bench-jobs-{run_name}", 10**15))
        other = None if same else store.create_project(f"live-{run_name}", 10**15)
        live_key = job_key if other is None else store.create_key(other)
    finally:
        store.close()
    config = local_cluster_config(port=state.port, database_url=state.database_url)
    app = next(a for a in config["applications"] if a["name"] == APPLICATION)
    ingress = next(d for d in app["deployments"] if d["name"] == "Ingress")
    most = int(ingress["autoscaling_config"]["max_replicas"])
    try:
        cluster.deploy(changes=ingress_lanes(1, 1))
        one = "one Ingress replica, one chunk at a time"
        runs = [run_job(state.url, text, voice, one, job_key)]
        cluster.deploy(changes=ingress_lanes(most, None))
        setup = f"{most} Ingress replicas (its most), as configured"
        run, live = beside_live(state.url, text, voice, setup, (job_key, live_key), seconds)
    finally:
        cluster.deploy()
    return [*runs, run], live


def on_one_machine(
    text: str, voice: str, same: bool, seconds: float, characters: int
) -> tuple[list[JobRun], Live]:
    """The job on the service as ``make run`` starts it: one chunk at a time, then as
    configured (live requests measured beside that one)."""
    with tempfile.TemporaryDirectory() as folder:
        # the live requests' project: another than the job's, or the job's own
        store = AccountStore.open(f"sqlite:///{folder}/2.db")
        other = store.create_key(store.create_project("live", 10**15))
        store.close()
        keys = (KEY, KEY if same else other)
        base = {
            "TTS_DEV_API_KEY": KEY,
            "TTS_RATE_LIMIT_PER_MINUTE": "0",
            "TTS_DEV_STARTING_BALANCE_DECI_MICROS": str(10**15),
            "TTS_LONGFORM_MAX_CHARACTERS": str(max(characters, 500_000)),
            "TTS_LONGFORM_AUDIO_PATH": f"{folder}/audio",
            "RAY_USAGE_STATS_ENABLED": "0",
        }
        one = {"TTS_INGRESS_REPLICAS": "1", "TTS_LONGFORM_CHUNKS_AT_ONCE": "1"}
        command = [sys.executable, "-m", "serve_app.run"]
        first = {**base, **one, "TTS_DATABASE_URL": f"sqlite:///{folder}/1.db"}
        with started(command, first) as url:
            runs = [run_job(url, text, voice, "one chunk at a time")]
        with started(command, {**base, "TTS_DATABASE_URL": f"sqlite:///{folder}/2.db"}) as url:
            setup = "every replica, as configured"
            run, live = beside_live(url, text, voice, setup, keys, seconds)
    return [*runs, run], live


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--characters", type=int, default=100_000)
    parser.add_argument("--voice", default="default")
    parser.add_argument("--seconds", type=float, default=30, help="of live requests measured")
    parser.add_argument(
        "--live-project",
        choices=("other", "same"),
        default="other",
        help="whose live requests run beside the job: another project's, or the job's own",
    )
    parser.add_argument(
        "--cluster",
        action="store_true",
        help="on the local cluster (make cluster-up) instead of starting the service",
    )
    args = parser.parse_args()
    text = long_hindi(args.characters)
    same = args.live_project == "same"
    if args.cluster:
        runs, live = on_cluster(text, args.voice, same, args.seconds)
    else:
        runs, live = on_one_machine(text, args.voice, same, args.seconds, args.characters)
    print(f"\nA {args.characters:,}-character Hindi job ({args.voice}), on {machine()}\n")
    rows = [
        [
            r.setup, r.state, f"{r.characters:,}", str(r.chunks), f"{r.audio_s:.0f}",
            f"{r.first_chunk_s:.1f}", f"{r.wall_s:.1f}", f"{r.wall_s / r.audio_s:.3f}",
            f"{runs[0].wall_s / r.wall_s:.2f}x",
        ]
        for r in runs
    ]  # fmt: skip
    columns = ["setup", "state", "characters", "chunks", "audio s", "first chunk s", "wall s"]
    print(markdown([*columns, "RTF", "speed-up"], rows))
    whose = "another project" if args.live_project == "other" else "the job's own project"
    print(f"\nLive requests of {whose}: first audio (default voice, {args.seconds:.0f} s each)\n")
    rows = [
        [name, str(len(t)), f"{percentile(t, 0.5):.0f}", f"{percentile(t, 0.95):.0f}"]
        for name, t in live.items()
    ]
    print(markdown(["live requests", "requests", "p50 ms", "p95 ms"], rows))


if __name__ == "__main__":
    main()
