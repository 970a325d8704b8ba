"""Where a process's time goes, sampled from outside by py-spy, summed as a table.

    python -m loadtest.profile RAW        # the table of a raw py-spy recording

:func:`record` starts ``py-spy record`` against a running process (every thread, raw
collapsed stacks); :func:`top` sums such a recording: the frames where threads were
(self, by line) and the frames they were under (inclusive, by function), each with
its share of the samples, so a GPU run's log shows what holds the host.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path


def record(pid: int, seconds: float, out: Path, rate: int = 60) -> subprocess.Popen[bytes] | None:
    """``py-spy record`` of process ``pid`` for ``seconds`` into ``out`` (raw stacks of
    every thread), started in the background; None where py-spy is not installed."""
    beside = Path(sys.executable).with_name("py-spy")  # this environment's, off PATH
    spy = shutil.which("py-spy") or (str(beside) if beside.is_file() else None)
    if spy is None:
        return None
    command = [spy, "record", "-p", str(pid), "-d", str(max(1, round(seconds))), "-r", str(rate)]
    command += ["--threads", "--nonblocking", "--format", "raw", "-o", str(out)]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _frame(frame: str, line: bool) -> str:
    """``function (file:line)`` as py-spy writes it, or ``function (file)``."""
    if line:
        return frame
    name, _, where = frame.partition(" (")
    path = where.removesuffix(")").rpartition(":")[0] or where.removesuffix(")")
    return f"{name} ({path})"


def top(raw: str, rows: int = 25) -> str:
    """The table of a raw recording (``stack;of;frames count`` a line): self and
    inclusive samples, busiest first."""
    own: Counter[str] = Counter()
    under: Counter[str] = Counter()
    threads: Counter[str] = Counter()
    total = 0
    for line in raw.splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n = int(count)
        frames = [f for f in stack.split(";") if " (" in f and not f.startswith("thread (")]
        if not frames:
            continue
        total += n
        threads[stack.split(";")[0] if stack.startswith("thread (") else "?"] += n
        own[_frame(frames[-1], line=True)] += n
        for name in {_frame(f, line=False) for f in frames}:
            under[name] += n
    if not total:
        return "no samples"
    out = [f"{total} samples (busy ones: an idle thread is not sampled)", "", "per thread:"]
    out += [f"{n:>7} {100 * n / total:5.1f}%  {t}" for t, n in threads.most_common(rows)]
    out += ["", "self (where the threads were):"]
    out += [f"{n:>7} {100 * n / total:5.1f}%  {f}" for f, n in own.most_common(rows)]
    out += ["", "inclusive (what they were under):"]
    out += [f"{n:>7} {100 * n / total:5.1f}%  {f}" for f, n in under.most_common(rows)]
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("raw", type=Path)
    parser.add_argument("--rows", type=int, default=25)
    args = parser.parse_args()
    print(top(args.raw.read_text(), args.rows))


if __name__ == "__main__":
    main()
