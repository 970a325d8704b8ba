"""Whether Serve holds a producer back when its reader stops reading.

Synthesis runs ahead of what has been heard only as far as the buffers between
the stages let it (docs/operations.md). That holds when Serve runs our code
on the replica's own event loop and streams between replicas over gRPC, whose
flow control makes a replica's ``yield`` wait for its reader: what
``RAY_SERVE_THROUGHPUT_OPTIMIZED=1`` sets, as ``make run``, ``cluster.yaml`` and
``configs/rayservice.yaml`` do. Otherwise Serve drains each stream into a queue
without bound, and a reader that reads nothing has the whole text synthesised for
it; the streaming deployments say so in their logs when they start.
"""

from __future__ import annotations

import logging

from deployments.ray_adapters.serve_settings import serve_setting

logger = logging.getLogger("deployments")


def flow_control_gaps() -> list[str]:
    """What, in this process's Serve settings, lets a stream run ahead of its reader."""
    gaps = []
    if serve_setting("RAY_SERVE_RUN_USER_CODE_IN_SEPARATE_THREAD"):
        gaps.append("user code runs on its own thread (RAY_SERVE_RUN_USER_CODE_IN_SEPARATE_THREAD)")
    if not serve_setting("RAY_SERVE_USE_GRPC_BY_DEFAULT"):
        gaps.append("streams between replicas are Ray's (RAY_SERVE_USE_GRPC_BY_DEFAULT)")
    return gaps


def warn_without_flow_control() -> None:
    if gaps := flow_control_gaps():
        logger.warning(
            "synthesis is not held back by slow readers: %s; set "
            "RAY_SERVE_THROUGHPUT_OPTIMIZED=1 on every node",
            "; ".join(gaps),
        )
