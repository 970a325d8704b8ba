"""On one machine, a replica's inter-deployment server listens on 127.0.0.1 only.

Ray Serve 2.60 binds each replica's internal gRPC server to ``[::]:0``, every
interface, whatever the node's address, and has no setting for it. Where Ray runs
as one machine (``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``, which ``make run`` and
the serve tests set so that every Ray server binds the loopback), the Serve shims
call :func:`keep_replica_server_on_loopback` when they are imported, before the
replica starts that server. On a cluster nothing changes: replicas on other
nodes must reach it. ``tests/serve/test_exposure.py`` fails if a Ray upgrade
makes this stop working.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from deployments.ray_adapters.replica_server import replica_server_bind, set_replica_server_bind

logger = logging.getLogger("deployments")
ONE_MACHINE = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


def keep_replica_server_on_loopback() -> None:
    if os.environ.get(ONE_MACHINE) != "0":
        return
    bind = replica_server_bind()
    if bind is None:
        logger.warning("this Ray Serve binds its replica servers elsewhere; not rebound")
        return
    if getattr(bind, "on_loopback", False):
        return

    def on_loopback(server: Any, address: str) -> Any:
        host, _, port = address.rpartition(":")
        if host in ("[::]", "0.0.0.0", ""):
            address = f"127.0.0.1:{port}"
        return bind(server, address)

    on_loopback.on_loopback = True  # type: ignore[attr-defined]
    set_replica_server_bind(on_loopback)
