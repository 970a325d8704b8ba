"""A Ray cluster of several nodes on this machine, serving configs/gpu.yaml's application.

``make cluster-up`` / ``make cluster-down``; ``python -m serve_app.cluster --help``
for the rest (status, load, stop-node, start-node, deploy).
"""

from serve_app.cluster.local import ClusterError, LocalCluster, State

__all__ = ["ClusterError", "LocalCluster", "State"]
