"""Background work: the threads that speak later segments (or read, or write, what
no listener waits for) run below the others of their process in the OS's
scheduling, and say so to the engines they call.

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
import functools
import os
import sys
import threading
from collections.abc import Iterator

# How far below the process's other threads background workers run (nice is -20..19;
# each step ~1.25x less CPU time when threads contend): at +10 a thread gets ~1/9
# of the time of a thread at the process's own value.
BACKGROUND_NICENESS = 10

_local = threading.local()


def niceness() -> int:
    """This thread's nice value (Linux keeps one per thread; elsewhere the process's)."""
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


def run_in_background() -> None:
    """This thread, for the rest of its life, background work: :data:`BACKGROUND_NICENESS`
    below its process's value where the OS keeps one per thread (Linux); elsewhere, or
    where the OS refuses, only marked."""
    _local.background = True
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError):
        lowered = min(niceness() + BACKGROUND_NICENESS, 19)
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), lowered)


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


class Lowering:
    """A scheduler's worker threads, each dropped to the OS's idle class for the length
    of a call no one waits for and put back after it, or all at once by another thread
    when a more urgent call comes to wait for them (their priority lent, so that the
    urgent call does not wait for threads only idle cores run).

    For an engine whose workers take work of every class (eSpeak NG: one engine per
    process). Where this process may not put a thread back (a user without
    ``CAP_SYS_NICE`` and a low ``RLIMIT_NICE``), nothing is lowered: a worker stuck in
    the idle class would hold every live request back."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._lowered: set[int] = set()  # native ids of the threads in the idle class

    @contextlib.contextmanager
    def idle(self) -> Iterator[None]:
        """This thread in the idle class (where it may be put back) for the block."""
        if not can_return_from_idle():
            yield
            return
        thread = threading.get_native_id()
        with self._lock:
            os.sched_setscheduler(thread, os.SCHED_IDLE, os.sched_param(0))
            self._lowered.add(thread)
            _local.background = True
        try:
            yield
        finally:
            _local.background = False
            with self._lock:
                if thread in self._lowered:  # not put back meanwhile
                    self._put_back(thread)

    def restore(self) -> None:
        """Every lowered thread back in its class (any thread may ask)."""
        with self._lock:
            for thread in list(self._lowered):
                self._put_back(thread)

    def _put_back(self, thread: int) -> None:
        with contextlib.suppress(OSError):  # the thread ended meanwhile
            os.sched_setscheduler(thread, os.SCHED_OTHER, os.sched_param(0))
        self._lowered.discard(thread)


@functools.cache
def can_return_from_idle() -> bool:
    """Whether this process may put a thread it put in the idle class back (tried once,
    on a thread of its own)."""
    if getattr(os, "SCHED_IDLE", None) is None:
        return False
    returned: list[bool] = []

    def probe() -> None:
        thread = threading.get_native_id()
        try:
            os.sched_setscheduler(thread, os.SCHED_IDLE, os.sched_param(0))
            os.sched_setscheduler(thread, os.SCHED_OTHER, os.sched_param(0))
        except OSError:
            returned.append(False)
        else:
            returned.append(True)

    prober = threading.Thread(target=probe, name="idle-probe")
    prober.start()
    prober.join()
    return returned == [True]
