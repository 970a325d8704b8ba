"""``ray start`` for several nodes of one host on its loopback
(``ray._private.ray_constants.ENABLE_RAY_CLUSTER``,
``ray._private.services.resolve_ip_for_localhost``).

Ray keeps a one-machine cluster's servers on 127.0.0.1 only with
``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``, which also makes ``ray start`` refuse
worker nodes; without it, ``ray start`` replaces 127.0.0.1 with the host's network
address. Neither has a public switch: Ray's own multi-node test clusters
(``ray.cluster_utils.Cluster``) start their nodes inside Ray's process instead.
"""

from __future__ import annotations


def _as_given(host: str) -> str:
    return host


def allow_nodes_on_loopback() -> None:
    """``ray start`` in this process lets a worker node join and keeps 127.0.0.1 as
    the node's address."""
    from ray._private import ray_constants, services

    ray_constants.ENABLE_RAY_CLUSTER = True
    services.resolve_ip_for_localhost = _as_given
