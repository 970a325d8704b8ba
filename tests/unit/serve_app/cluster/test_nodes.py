"""The local cluster's nodes, seen from their processes."""

from __future__ import annotations


def test_busy_nodes_sum_the_cpu_of_the_processes_under_each_node() -> None:
    """A process that computes, under this one (standing for a node's ``ray start``):
    its CPU is counted for that node."""
    import os
    import subprocess
    import sys

    from serve_app.cluster.nodes import busy_nodes

    title = "while True: pass  # busy-node-test"
    child = subprocess.Popen([sys.executable, "-c", title])
    try:
        used = busy_nodes({"here": os.getpid()}, f"{sys.executable} -c {title}", 0.3)
        # only the processes asked about (the replicas that hold the streams)
        others = busy_nodes({"here": os.getpid()}, f"{sys.executable} -c {title}", 0.3, {1})
        chosen = busy_nodes({"here": os.getpid()}, f"{sys.executable} -c {title}", 0.3, {child.pid})
    finally:
        child.kill()
        child.wait()
    assert list(used) == ["here"] and used["here"] > 0.05
    assert others == {} and chosen["here"] > 0.05
