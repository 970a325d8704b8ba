"""``ray start`` for a node of the local cluster, its servers on 127.0.0.1 only.

Ray's servers (GCS, raylet, agents) listen on the loopback only when the node's
address is 127.0.0.1, and on every interface otherwise. Ray's switch for
one-machine clusters, ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``, keeps 127.0.0.1 as
the address of every process that asks (the dashboard's modules, the Serve
controller, the replicas), but makes ``ray start`` refuse worker nodes; without it,
``ray start`` and those processes replace 127.0.0.1 with the host's network
address. The nodes run with the switch set (:mod:`serve_app.cluster.local`), and
this runs Ray's own ``ray start`` with its one check of it lifted and the address
kept as given (:mod:`deployments.ray_adapters.node_start`): the nodes of one host
are told apart by their ports, as in Ray's own multi-node test clusters
(``ray.cluster_utils.Cluster``).

    python -m serve_app.cluster.ray_start start --node-ip-address=127.0.0.1 ...
"""

from __future__ import annotations

import sys

from ray.scripts import scripts

from deployments.ray_adapters.node_start import allow_nodes_on_loopback


def main() -> None:
    allow_nodes_on_loopback()
    sys.argv[0] = "ray"
    scripts.main()


if __name__ == "__main__":
    main()
