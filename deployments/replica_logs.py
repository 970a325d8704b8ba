"""Our log records in a replica's own Serve log file, at their own levels.

Serve writes a replica's records of the ``ray.serve`` logger to
``logs/serve/replica_<app>_<deployment>_<id>.log``; anything else a replica
logs reaches that file only through its stderr, which Serve takes over as
``INFO`` lines (a traceback one ``INFO`` record a line) and, in the throughput
mode ``make run`` and the cluster configs serve in, holds in a buffer of 1,000
records that only an ``ERROR`` of Serve's own flushes. So a request's failure
(``internal_error``) left its traceback unwritten, and unfindable by level.
Each replica hands our loggers Serve's handlers instead: an error is written at
once, as ``ERROR``, with its traceback, and the request id Serve tags it with.
"""

from __future__ import annotations

import logging

# The loggers of this project's code (modules log to these or to their children).
OUR_LOGGERS = ("serve_app", "deployments")


def log_to_replica_file() -> None:
    """In a Serve replica, our loggers write where Serve's do; elsewhere (a unit
    test, a command), nothing changes."""
    from ray import serve
    from ray.serve.exceptions import RayServeException

    try:
        serve.get_replica_context()
    except RayServeException:
        return
    serve_logger = logging.getLogger("ray.serve")
    for name in OUR_LOGGERS:
        ours = logging.getLogger(name)
        ours.handlers = list(serve_logger.handlers)
        ours.setLevel(serve_logger.getEffectiveLevel())
        ours.propagate = False
