"""Background work: the threads that speak later segments run below the others of
their process in the OS's scheduling, and say so to the engines they call.

A stream's later segments are background work: its listener has audio in hand. On
Linux every thread has a nice value of its own, so a worker of later segments
raises its own (:func:`run_in_background`) and, while both run, a new stream's
first segment has the cores. An engine that keeps threads of its own (ONNX
Runtime's pools) asks :func:`in_background` to keep a background call off them:
those threads run at the process's priority whoever calls.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading

# How far below the process's other threads background workers run (nice is -20..19;
# each step ~1.25x less CPU time when threads contend): at +10 a thread gets ~1/9
# of the time of a thread at the process's own value.
BACKGROUND_NICENESS = 10

_local = threading.local()


def run_in_background() -> None:
    """This thread, for the rest of its life, background work: :data:`BACKGROUND_NICENESS`
    below its process's value where the OS keeps one per thread (Linux); elsewhere, or
    where the OS refuses, only marked."""
    _local.background = True
    if not sys.platform.startswith("linux"):
        return
    thread = threading.get_native_id()
    with contextlib.suppress(OSError):
        niceness = os.getpriority(os.PRIO_PROCESS, thread) + BACKGROUND_NICENESS
        os.setpriority(os.PRIO_PROCESS, thread, min(niceness, 19))


def in_background() -> bool:
    """Whether this thread does background work (:func:`run_in_background`)."""
    return bool(getattr(_local, "background", False))
