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

from serve_app.accounts import AccountStore, ensure_dev_project, new_key
from serve_app.settings import IngressConfig


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    parser.add_argument("--num-cpus", type=float, default=None)
    parser.add_argument(
        "--metrics-port",
        type=int,
        default=int(os.environ.get("METRICS_PORT", "8080")),
        help="Prometheus metrics (Ray's, Serve's and ours) at http://127.0.0.1:PORT/metrics",
    )
    args = parser.parse_args()

    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    # Measured here: time to first audio 56 -> 39 ms at one stream (README,
    # Performance). Our code never blocks an event loop, which this mode needs.
    os.environ.setdefault("RAY_SERVE_THROUGHPUT_OPTIMIZED", "1")
    key = os.environ.get("TTS_DEV_API_KEY") or new_key(prefix="dev")
    os.environ["TTS_DEV_API_KEY"] = key
    config = IngressConfig.from_env()
    store = AccountStore.open(config.database_url)
    ensure_dev_project(store, key, config.dev_starting_balance_deci_micros)
    store.close()

    import ray
    from ray import serve

    from serve_app.app import build_app

    ray.init(
        address="local",
        num_cpus=args.num_cpus,
        include_dashboard=False,
        _metrics_export_port=args.metrics_port,
        runtime_env={"env_vars": {"TTS_DEV_API_KEY": key}},
    )
    serve.start(http_options={"host": args.host, "port": args.port})
    serve.run(build_app(), name="speech", route_prefix="/")
    url = f"http://{args.host}:{args.port}"
    print(f"\nSpeech service ready at {url}\nAPI key: {key}", flush=True)
    print(f"Metrics (Prometheus): http://127.0.0.1:{args.metrics_port}/metrics\n", flush=True)
    print(
        f"  curl -sS {url}/v1/audio/speech -H 'Authorization: Bearer {key}' \\\n"
        "    -H 'Content-Type: application/json' \\\n"
        '    -d \'{"input": "नमस्ते, आप कैसे हैं?", "response_format": "mp3"}\' -o hello.mp3\n',
        flush=True,
    )
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    stop.wait()
    print("Stopping...", flush=True)
    serve.shutdown()
    ray.shutdown()


if __name__ == "__main__":
    main()
