"""The local cluster's nodes, seen from their processes."""

from __future__ import annotations


def test_busy_nodes_sum_the_cpu_of_the_processes_under_each_node() -> None:
    """A process that computes, under this one (standing for a node's ``ray start``):
    its CPU is counted for that node. Measured until it has had some CPU: on a starved
    host a window of 0.3 s can pass with none."""
    import os
    import subprocess
    import sys

    from serve_app.cluster.nodes import busy_nodes
    from tests.waiting import wait_until

    title = "while True: pass  # busy-node-test"
    command = f"{sys.executable} -c {title}"
    child = subprocess.Popen([sys.executable, "-c", title])
    seen: dict[str, dict[str, float]] = {}

    def counted(name: str, among: set[int] | None) -> bool:
        seen[name] = busy_nodes({"here": os.getpid()}, command, 0.3, among)
        return seen[name].get("here", 0.0) > 0

    try:
        wait_until(lambda: counted("all", None), "the child's CPU counted", status=lambda: seen)
        # only the processes asked about (the replicas that hold the streams)
        others = busy_nodes({"here": os.getpid()}, command, 0.3, {1})
        wait_until(lambda: counted("chosen", {child.pid}), "its CPU by pid", status=lambda: seen)
    finally:
        child.kill()
        child.wait()
    assert list(seen["all"]) == ["here"] and list(seen["chosen"]) == ["here"]
    assert others == {}


def test_groups_stop_together_and_what_ignores_sigterm_is_killed() -> None:
    """Two process groups (standing for two nodes), one that ignores SIGTERM (as a
    head's processes do for longer than any grace worth waiting): one call stops
    both, the first by SIGTERM, the other by SIGKILL after the grace."""
    import subprocess
    import sys

    from serve_app.cluster.nodes import alive, stop_groups

    polite = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import signal, sys, time; "
            "signal.signal(signal.SIGTERM, lambda *_: sys.exit(print('terminated', flush=True))); "
            "print('ready', flush=True); time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    stubborn = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
            "print('ready', flush=True); time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        for process in (polite, stubborn):
            assert process.stdout is not None and process.stdout.readline() == b"ready\n"
        stop_groups([polite.pid, stubborn.pid], grace_s=0.5)
        assert not alive(polite.pid) and not alive(stubborn.pid)
        assert polite.stdout is not None and polite.stdout.read() == b"terminated\n"
    finally:
        for process in (polite, stubborn):
            process.kill()
            process.wait()
