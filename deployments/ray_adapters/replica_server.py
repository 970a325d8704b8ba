"""Where a Serve replica binds its gRPC server for calls from other deployments
(``ray.serve._private.replica.add_port_to_grpc_server``).

Serve 2.60 binds that server to ``[::]:0``, every interface, whatever the node's
address, with no setting for it; the replica looks the function up in its module
when it starts the server, so a wrapper set here before that takes its place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Bind = Callable[[Any, str], Any]


def replica_server_bind() -> Bind | None:
    """The function a replica binds its server's address with (``server, address``);
    None where this Serve binds it some other way."""
    from ray.serve._private import replica

    return getattr(replica, "add_port_to_grpc_server", None)


def set_replica_server_bind(bind: Bind) -> None:
    """Replicas started in this process from now on bind their server with ``bind``."""
    from ray.serve._private import replica

    replica.add_port_to_grpc_server = bind
