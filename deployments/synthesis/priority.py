"""Background work: the threads that speak later segments run below the others of
their process in the OS's scheduling, and say so to the engines they call.

A stream's later segments are background work: its listener has audio in hand. On
Linux every thread has a nice value of its own, so a worker of later segments
raises its own (:func:`run_in_background`) and, while both run, a new stream's
first segment has the cores. An engine that keeps threads of its own (ONNX
Runtime's pools) asks :func:`in_background` to keep a background call off them:
those threads run at the process's priority whoever calls.

Work that no one waits for at all (a long-form job's chunks) runs lower still
(:func:`run_at_idle`): at the OS's idle priority, below any nice value. The nice
values alone would not keep it out of the way under Ray, whose workers start at
nice 15: +10 stops at 19, four steps (~2.4x less time) below the process, where
idle threads get ~1/12 of the time of a thread at nice 15 while both run.
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


def run_at_idle() -> None:
    """This thread, for the rest of its life, work no one waits for: the OS's idle
    scheduling class where there is one (Linux's ``SCHED_IDLE``: it runs on a core no
    other thread wants), else :func:`run_in_background`. Engines are told as by that."""
    idle = getattr(os, "SCHED_IDLE", None)
    if idle is None:
        run_in_background()
        return
    _local.background = True
    try:
        os.sched_setscheduler(threading.get_native_id(), idle, os.sched_param(0))
    except OSError:
        run_in_background()


def in_background() -> bool:
    """Whether this thread does background work (:func:`run_in_background`,
    :func:`run_at_idle`)."""
    return bool(getattr(_local, "background", False))
