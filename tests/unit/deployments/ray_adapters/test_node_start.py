"""``ray start`` still has the switch and the address lookup that nodes on one host's
loopback need lifted."""

from __future__ import annotations

import subprocess
import sys


def test_this_ray_has_what_is_lifted() -> None:
    """In a process of its own: lifting them changes Ray for the process."""
    script = (
        "import inspect\n"
        "from ray._private import ray_constants, services\n"
        "assert isinstance(ray_constants.ENABLE_RAY_CLUSTER, bool)\n"
        "assert list(inspect.signature(services.resolve_ip_for_localhost).parameters) "
        "== ['host']\n"
        "from deployments.ray_adapters.node_start import allow_nodes_on_loopback\n"
        "allow_nodes_on_loopback()\n"
        "assert ray_constants.ENABLE_RAY_CLUSTER is True\n"
        "assert services.resolve_ip_for_localhost('127.0.0.1') == '127.0.0.1'\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
