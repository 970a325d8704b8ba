"""Where a benchmark's CPU goes: CPU seconds of each process of this machine, by the
part of the service (or the baseline server) it is, between two snapshots.

On a machine of a few cores that the model keeps busy, a request's cost is CPU
time: what the ingress, the normaliser, the encoder, HAProxy and Ray's own
processes take is taken from the model. Processes are told apart by their command
lines (Ray names each replica's process after its deployment).
"""

from __future__ import annotations

from collections import defaultdict

import psutil

# command-line marks, first match wins: a stage of the service, Ray's own processes
PARTS = (
    ("Synthesiser", "Synthesiser"),
    ("Ingress", "Ingress"),
    ("TextNormaliser", "TextNormaliser"),
    ("AudioEncoder", "AudioEncoder"),
    ("haproxy", "HAProxy"),
    ("loadtest.kokoro_baseline", "baseline server"),
    ("loadtest.baseline", "baseline server"),
    ("loadtest.", "bench client"),
    ("serve_app.run", "Ray and Serve"),
    ("ray", "Ray and Serve"),
    ("gcs_server", "Ray and Serve"),
)
STAGES = ("Synthesiser", "Ingress", "TextNormaliser", "AudioEncoder", "HAProxy", "Ray and Serve")


def part_of(process: psutil.Process) -> str | None:
    """The part ``process`` belongs to, None for processes of neither."""
    try:
        command = " ".join(process.cmdline())
    except (psutil.Error, OSError):
        return None
    return next((part for mark, part in PARTS if mark in command), None)


def snapshot() -> dict[str, float]:
    """CPU seconds (user + system) each part has used so far."""
    used: defaultdict[str, float] = defaultdict(float)
    for process in psutil.process_iter():
        part = part_of(process)
        if part is None:
            continue
        try:
            times = process.cpu_times()
        except (psutil.Error, OSError):
            continue  # gone meanwhile
        used[part] += times.user + times.system
    return dict(used)


def per_request_ms(
    before: dict[str, float], after: dict[str, float], requests: int
) -> dict[str, float]:
    """CPU milliseconds each part spent per request between the snapshots (a process
    that ended meanwhile takes its time with it)."""
    return {
        part: (used - before.get(part, 0.0)) * 1000 / max(requests, 1)
        for part, used in after.items()
        if used > before.get(part, 0.0)
    }
