"""A noisy neighbour of our own: a command run beside processes that take CPU and
memory bandwidth from it, as a shared host's other tenants do (``make test-busy``).

    python -m loadtest.neighbour [--cpu 1] [--memory 1] [--seconds 5400] -- make test

``--cpu N`` processes each keep one core busy with arithmetic; ``--memory N`` each
copy a buffer far larger than the caches (``--buffer-mib``) for ``--memory-duty`` of
every 100 ms, so that they take the memory bandwidth every other process shares
(the default, 1 and 1 at half duty: about one and a half of two cores taken). Both
run at normal priority, the command's own. They are bounded three ways: they stop when
the command ends, when ``--seconds`` have passed, and when this process dies however
it dies (SIGKILL included: Linux's parent-death signal, which also stops the
command with SIGTERM), so nothing is left running.
The exit status is the command's; the neighbours' work (loops done a second) is
printed at the end, where a run's log shows how noisy it was.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import functools
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from multiprocessing.process import BaseProcess
from multiprocessing.sharedctypes import Synchronized

PR_SET_PDEATHSIG = 1  # prctl(2): the signal a process gets when its parent exits


def _signalled_when_parent_dies(signum: int) -> None:
    """Have the kernel send this process ``signum`` when its parent exits (Linux;
    elsewhere nothing: the neighbours' loops look for it themselves)."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0)


def _die_with_parent(parent: int) -> None:
    """SIGKILL this neighbour when ``parent`` exits (:func:`_orphaned` elsewhere)."""
    _signalled_when_parent_dies(signal.SIGKILL)
    if _orphaned(parent):  # it died before prctl took hold
        os._exit(0)


def _orphaned(parent: int) -> bool:
    return os.getppid() != parent


def spin(parent: int, until: float, done: Synchronized[int]) -> None:
    """Arithmetic on one core until ``until`` (monotonic) or the parent is gone."""
    _die_with_parent(parent)
    x = 1
    while time.monotonic() < until and not _orphaned(parent):
        for _ in range(200_000):
            x = (x * 1_103_515_245 + 12_345) & 0xFFFFFFFF
        done.value += 1


SLICE_S = 0.1  # a copier's period: busy for its duty of it, then asleep


def copy(parent: int, until: float, done: Synchronized[int], buffer_mib: int, duty: float) -> None:
    """Copy half a ``buffer_mib`` buffer into the other half, 1 MiB at a time (memcpy,
    far past the caches), ``duty`` of every :data:`SLICE_S`, until ``until`` or the
    parent is gone: as much memory bandwidth as one core can take, that share of the
    time. ``done`` counts MiB copied."""
    _die_with_parent(parent)
    half = buffer_mib * 1024 * 1024 // 2
    step = 1024 * 1024
    source = memoryview(bytearray(os.urandom(step) * (half // step)))
    target = memoryview(bytearray(half))
    offset = 0
    while time.monotonic() < until and not _orphaned(parent):
        slice_end = time.monotonic() + SLICE_S * duty
        while time.monotonic() < slice_end:
            target[offset : offset + step] = source[offset : offset + step]
            offset = (offset + step) % half
            done.value += 1
        if duty < 1:
            time.sleep(SLICE_S * (1 - duty))


class Neighbours:
    """The neighbour processes, started on enter and stopped on exit."""

    def __init__(
        self, cpu: int, memory: int, seconds: float, buffer_mib: int = 256, duty: float = 0.5
    ) -> None:
        self.cpu, self.memory, self.seconds = cpu, memory, seconds
        self.buffer_mib, self.duty = buffer_mib, duty
        self._context = multiprocessing.get_context("fork")
        self._processes: list[tuple[str, BaseProcess, Synchronized[int]]] = []
        self._started = 0.0

    def __enter__(self) -> Neighbours:
        parent, until = os.getpid(), time.monotonic() + self.seconds
        self._started = time.monotonic()
        for kind, count in (("cpu", self.cpu), ("memory", self.memory)):
            for _ in range(count):
                done: Synchronized[int] = self._context.Value("q", 0, lock=False)
                args: tuple[object, ...] = (parent, until, done)
                if kind == "memory":
                    args += (self.buffer_mib, self.duty)
                work = spin if kind == "cpu" else copy
                process = self._context.Process(target=work, args=args, daemon=True)
                process.start()
                self._processes.append((kind, process, done))
        return self

    def __exit__(self, *exc: object) -> None:
        for _, process, _ in self._processes:
            process.terminate()
        for _, process, _ in self._processes:
            process.join(5)
            if process.is_alive():
                process.kill()
                process.join()

    def pids(self) -> list[int]:
        return [process.pid for _, process, _ in self._processes if process.pid is not None]

    def report(self) -> str:
        """Each neighbour's work a second since it started (lower: the host was busier):
        the spinners' loops, the copiers' MiB."""
        took = max(time.monotonic() - self._started, 1e-9)
        units = {"cpu": "loops", "memory": "MiB"}
        rates = [
            f"{kind} {done.value / took:,.0f} {units[kind]}/s" for kind, _, done in self._processes
        ]
        return ", ".join(rates) or "none"


def run(command: Sequence[str], neighbours: Neighbours) -> int:
    """``command``'s exit status, run with ``neighbours`` beside it."""
    started = time.monotonic()
    with neighbours:
        print(
            f"neighbours: {neighbours.cpu} on the CPU, {neighbours.memory} on memory "
            f"({neighbours.duty:.0%} of the time), beside: {' '.join(command)}",
            flush=True,
        )
        # the command is told to stop (SIGTERM, which make passes on) if this process
        # dies without stopping it
        child = subprocess.Popen(
            command, preexec_fn=functools.partial(_signalled_when_parent_dies, signal.SIGTERM)
        )
        try:
            status = child.wait()
        except KeyboardInterrupt:
            child.send_signal(signal.SIGINT)
            status = child.wait()
        report = neighbours.report()
    minutes, secs = divmod(int(time.monotonic() - started), 60)
    print(f"neighbours: {report}; the command exited {status} after {minutes}:{secs:02d}")
    return status


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--cpu", type=int, default=1, help="processes busy on arithmetic")
    parser.add_argument("--memory", type=int, default=1, help="processes copying memory")
    parser.add_argument("--memory-duty", type=float, default=0.5, help="the copiers' share of time")
    parser.add_argument("--buffer-mib", type=int, default=256, help="each copier's buffer")
    parser.add_argument("--seconds", type=float, default=5400, help="the neighbours' limit")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- the command to run")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command: python -m loadtest.neighbour -- make test")
    if not 0 < args.memory_duty <= 1:
        parser.error("--memory-duty is a share of the time: above 0, at most 1")
    neighbours = Neighbours(args.cpu, args.memory, args.seconds, args.buffer_mib, args.memory_duty)
    return run(command, neighbours)


if __name__ == "__main__":
    sys.exit(main())
