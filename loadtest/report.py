"""The benchmarks' Markdown tables, and the machine they ran on."""

from __future__ import annotations

import os
import platform

from loadtest.cpu import STAGES
from loadtest.traffic import LevelResult, percentile, requests_per_s, throughput


def machine(device: str = "cpu") -> str:
    """What a benchmark ran on: the GPU's name on CUDA, else the CPU's model and the
    cores this process may use."""
    if device == "cuda":
        import torch

        return f"{torch.cuda.get_device_name(0)}, Python {platform.python_version()}"
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            names = [line.split(":", 1)[1].strip() for line in f if line.startswith("model name")]
        cpu = names[0] if names else cpu
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{cpu}, {cores} cores, Python {platform.python_version()}"


def markdown(columns: list[str], rows: list[list[str]]) -> str:
    """A Markdown table of ``columns`` (right-aligned, as numbers are) and ``rows``."""
    lines = ["| " + " | ".join(columns) + " |", "|" + "---:|" * len(columns)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def table(results: list[LevelResult], direct_ms: float, baseline: list[LevelResult]) -> str:
    columns = [
        "streams", "requests", "TTFA p50 ms", "TTFA p95 ms", "p50 overhead vs engine ms",
        "RTF p50", "audio s / wall s", "errors", "baseline TTFA p50 / p95 ms",
        "baseline audio s / wall s",
    ]  # fmt: skip
    rows = []
    for r, b in zip(results, baseline, strict=True):
        rtf = [t / 1000 / (r.audio_s / max(len(r.total_ms), 1)) for t in r.total_ms]
        p50 = percentile(r.ttfa_ms, 0.5)
        rows.append([
            str(r.streams), str(len(r.ttfa_ms)), f"{p50:.1f}", f"{percentile(r.ttfa_ms, 0.95):.1f}",
            f"{p50 - direct_ms:.1f}", f"{percentile(rtf, 0.5):.3f}", f"{throughput(r):.1f}",
            str(r.errors + b.errors),
            f"{percentile(b.ttfa_ms, 0.5):.1f} / {percentile(b.ttfa_ms, 0.95):.1f}",
            f"{throughput(b):.1f}",
        ])  # fmt: skip
    return markdown(columns, rows)


def rate_table(results: list[LevelResult], baseline: list[LevelResult]) -> str:
    columns = [
        "requests/s sent", "requests", "TTFA p50 ms", "TTFA p95 ms", "TTFA p99 ms", "errors",
        "baseline TTFA p50 / p95 / p99 ms", "baseline errors",
    ]  # fmt: skip
    rows = []
    for r, b in zip(results, baseline, strict=True):
        ours = [f"{percentile(r.ttfa_ms, q):.1f}" for q in (0.5, 0.95, 0.99)]
        theirs = " / ".join(f"{percentile(b.ttfa_ms, q):.1f}" for q in (0.5, 0.95, 0.99))
        rows.append(
            [
                f"{r.rate:g}",
                str(len(r.ttfa_ms) + r.errors),
                *ours,
                str(r.errors),
                theirs,
                str(b.errors),
            ]
        )
    return markdown(columns, rows)


def neural_table(results: list[LevelResult], baseline: list[LevelResult]) -> str:
    """Per level: first audio, audio seconds and requests per wall second, each against
    the baseline's, and how the Synthesiser spoke first clauses (parted: read with
    their sentence, its audio rendered in two parts; alone: a call of their own for a
    sooner first audio; joined: with their sentence, under load)."""
    columns = [
        "streams", "requests", "TTFA p50 ms", "TTFA p95 ms", "audio s / wall s", "requests / s",
        "errors", "first clauses parted / alone / joined", "baseline TTFA p50 / p95 ms",
        "baseline audio s / wall s", "baseline requests / s",
        "vs baseline: p50 / p95 / audio s / requests",
    ]  # fmt: skip
    rows = []
    for r, b in zip(results, baseline, strict=True):
        p50, p95 = percentile(r.ttfa_ms, 0.5), percentile(r.ttfa_ms, 0.95)
        b50, b95 = percentile(b.ttfa_ms, 0.5), percentile(b.ttfa_ms, 0.95)
        clauses = " / ".join(map(str, r.first_clauses)) if r.first_clauses else "-"
        ratios = [p50 / b50, p95 / b95, throughput(r) / throughput(b)]
        ratios.append(requests_per_s(r) / requests_per_s(b))
        rows.append([
            str(r.streams), str(len(r.ttfa_ms)), f"{p50:.0f}", f"{p95:.0f}",
            f"{throughput(r):.2f}", f"{requests_per_s(r):.2f}", str(r.errors + b.errors),
            clauses, f"{b50:.0f} / {b95:.0f}", f"{throughput(b):.2f}",
            f"{requests_per_s(b):.2f}", " / ".join(f"{x:.2f}" for x in ratios),
        ])  # fmt: skip
    return markdown(columns, rows)


def cpu_table(results: list[LevelResult], baseline: list[LevelResult]) -> str:
    """CPU ms per request of each stage of the service (and Ray's own processes)
    against the baseline server's, per level."""
    columns = ["streams", *STAGES, "service", "baseline server", "bench client"]
    rows = []
    for r, b in zip(results, baseline, strict=True):
        stages = [r.cpu_ms.get(stage, 0.0) for stage in STAGES]
        rows.append([
            str(r.streams), *(f"{ms:.0f}" for ms in stages), f"{sum(stages):.0f}",
            f"{b.cpu_ms.get('baseline server', 0.0):.0f}",
            f"{r.cpu_ms.get('bench client', 0.0):.0f}",
        ])  # fmt: skip
    return markdown(columns, rows)
