"""The local cluster from the command line (``make cluster-up``, ``make cluster-down``).

python -m serve_app.cluster up [--port 8000]   # nodes, ledger, serve deploy
python -m serve_app.cluster status             # nodes and replicas
python -m serve_app.cluster load --seconds 60  # Locust; replicas as they move
python -m serve_app.cluster stop-node gpu-1    # lose a node; start-node brings it back
python -m serve_app.cluster deploy             # serve deploy again: a rolling update
python -m serve_app.cluster down               # nothing of the cluster left running
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

from serve_app.cluster.local import ROOT, ClusterError, LocalCluster
from serve_app.cluster.nodes import LAYOUT


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m serve_app.cluster", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    up = commands.add_parser("up", help="start the nodes and PostgreSQL, serve deploy")
    up.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    up.add_argument("--dashboard-port", type=int, default=8265)
    commands.add_parser("down", help="stop the application, every node and PostgreSQL")
    commands.add_parser("status", help="nodes alive and replicas of each deployment")
    deploy = commands.add_parser("deploy", help="serve deploy the configs again (rolling update)")
    deploy.add_argument("--voices", default=None, help="another voice list than gpu.yaml's")
    load = commands.add_parser("load", help="the bundled Locust load; replicas as they move")
    load.add_argument("--users", type=int, default=8)
    load.add_argument("--seconds", type=int, default=60)
    for name in ("stop-node", "start-node"):
        node = commands.add_parser(name, help=f"{name.split('-')[0]} one node's processes")
        node.add_argument("node", choices=[s.name for s in LAYOUT if not s.head])
    args = parser.parse_args(argv)
    cluster = LocalCluster()
    try:
        return COMMANDS[args.command](cluster, args)
    except ClusterError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


def _up(cluster: LocalCluster, args: argparse.Namespace) -> int:
    started = time.monotonic()
    print("Starting PostgreSQL, 4 Ray nodes and the application (about a minute)...")
    state = cluster.up(port=args.port, dashboard_port=args.dashboard_port)
    key = cluster.add_key(os.environ.pop("TTS_DEV_API_KEY", None))
    cluster.key_file.write_text(key)
    cluster.key_file.chmod(0o600)
    print(f"\nSpeech service ready at {state.url} ({time.monotonic() - started:.0f} s)")
    for spec in LAYOUT:
        print(f"  {spec.name:6} ({spec.group}): proxy {state.proxy_url(spec.name)}")
    print(f"Ray dashboard: {state.dashboard}")
    print(f"Ledger: PostgreSQL, {state.database_url}")
    print(f"API key: {key}  (also in {cluster.key_file.relative_to(ROOT)})\n")
    print(
        f"  curl -sS {state.url}/v1/audio/speech -H 'Authorization: Bearer {key}' \\\n"
        "    -H 'Content-Type: application/json' \\\n"
        '    -d \'{"input": "नमस्ते, आप कैसे हैं?", "response_format": "mp3"}\' -o hello.mp3\n'
    )
    print("Replicas under load: make cluster-load; stop with make cluster-down.")
    return 0


def _down(cluster: LocalCluster, args: argparse.Namespace) -> int:
    if cluster.state() is None:
        print(f"No cluster under {cluster.root}: nothing to stop.")
        return 0
    cluster.down()
    print("Cluster stopped: no process of it left running.")
    return 0


def _status(cluster: LocalCluster, args: argparse.Namespace) -> int:
    state = cluster.state()
    if state is None:
        print("No cluster: make cluster-up")
        return 1
    print(f"{cluster.alive_nodes()} of {len(LAYOUT)} nodes alive; serving at {state.url}")
    print(_replicas_line(cluster.replicas()))
    used, total = cluster.gpus()
    print(f"GPUs in use {used:g} of {total:g} (the Synthesiser's; none when it is scaled to zero)")
    return 0


def _deploy(cluster: LocalCluster, args: argparse.Namespace) -> int:
    started = time.monotonic()
    cluster.deploy(voices_path=args.voices)
    print(f"Deployed and RUNNING in {time.monotonic() - started:.0f} s")
    return 0


def _load(cluster: LocalCluster, args: argparse.Namespace) -> int:
    """Locust for ``--seconds``, then until the replicas are back where they started,
    a line of replica counts every 2 s."""
    state = cluster.state()
    if state is None:
        raise ClusterError("no cluster: make cluster-up")
    before = cluster.replicas()
    print(f"before: {_replicas_line(before)}")
    env = {**os.environ, "TTS_API_KEY": cluster.key_file.read_text().strip()}
    locust = subprocess.Popen(
        [
            *locust_command(state.url, users=args.users, seconds=args.seconds),
            "--only-summary",
        ],
        env=env,
        cwd=ROOT,
    )
    started = time.monotonic()
    while True:
        now = cluster.replicas()
        stopped = locust.poll() is not None
        mark = "  " if stopped else "L "  # L: Locust is running
        print(f"{time.monotonic() - started:5.0f} s {mark}{_replicas_line(now)}")
        if stopped and all(now.get(k, 0) <= v for k, v in before.items()):
            break
        if time.monotonic() - started > args.seconds + 180:
            print("replicas did not come back within 3 minutes of the load's end")
            break
        time.sleep(2)
    return 0


def _node(cluster: LocalCluster, args: argparse.Namespace) -> int:
    if args.command == "stop-node":
        cluster.stop_node(args.node)
        print(f"{args.node} stopped")
    else:
        cluster.start_node(args.node)
        cluster.wait_for_nodes(len(LAYOUT))
        print(f"{args.node} started and joined")
    return 0


def locust_command(url: str, *, users: int, seconds: int) -> list[str]:
    """The bundled Locust users (loadtest/locustfile.py), headless, for ``seconds``."""
    return [
        sys.executable,
        "-m",
        "locust",
        "-f",
        str(ROOT / "loadtest" / "locustfile.py"),
        "--headless",
        "--host",
        url,
        "-u",
        str(users),
        "-r",
        str(users),
        "-t",
        f"{seconds}s",
        "--stop-timeout",
        "30",
    ]


def _replicas_line(replicas: dict[str, int]) -> str:
    return "  ".join(f"{name} {count}" for name, count in sorted(replicas.items()))


COMMANDS = {
    "up": _up,
    "down": _down,
    "status": _status,
    "deploy": _deploy,
    "load": _load,
    "stop-node": _node,
    "start-node": _node,
}


if __name__ == "__main__":
    sys.exit(main())
