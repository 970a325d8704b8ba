"""The benchmarks' Markdown tables, and the machine they ran on."""

from __future__ import annotations

import os
import platform

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


def table(results: list[LevelResult], direct_ms: float, baseline: list[LevelResult]) -> str:
    lines = [
        "| streams | requests | TTFA p50 ms | TTFA p95 ms | p50 overhead vs engine ms "
        "| RTF p50 | audio s / wall s | errors | baseline TTFA p50 / p95 ms "
        "| baseline audio s / wall s |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r, b in zip(results, baseline, strict=True):
        rtf = [t / 1000 / (r.audio_s / max(len(r.total_ms), 1)) for t in r.total_ms]
        lines.append(
            f"| {r.streams} | {len(r.ttfa_ms)} | {percentile(r.ttfa_ms, 0.5):.1f} "
            f"| {percentile(r.ttfa_ms, 0.95):.1f} | {percentile(r.ttfa_ms, 0.5) - direct_ms:.1f} "
            f"| {percentile(rtf, 0.5):.3f} | {throughput(r):.1f} | {r.errors + b.errors} "
            f"| {percentile(b.ttfa_ms, 0.5):.1f} / {percentile(b.ttfa_ms, 0.95):.1f} "
            f"| {throughput(b):.1f} |"
        )
    return "\n".join(lines)


def rate_table(results: list[LevelResult], baseline: list[LevelResult]) -> str:
    lines = [
        "| requests/s sent | requests | TTFA p50 ms | TTFA p95 ms | TTFA p99 ms | errors "
        "| baseline TTFA p50 / p95 / p99 ms | baseline errors |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r, b in zip(results, baseline, strict=True):
        lines.append(
            f"| {r.rate:g} | {len(r.ttfa_ms) + r.errors} | {percentile(r.ttfa_ms, 0.5):.1f} "
            f"| {percentile(r.ttfa_ms, 0.95):.1f} | {percentile(r.ttfa_ms, 0.99):.1f} "
            f"| {r.errors} | {percentile(b.ttfa_ms, 0.5):.1f} / {percentile(b.ttfa_ms, 0.95):.1f}"
            f" / {percentile(b.ttfa_ms, 0.99):.1f} | {b.errors} |"
        )
    return "\n".join(lines)


def neural_table(results: list[LevelResult], baseline: list[LevelResult]) -> str:
    lines = [
        "| streams | requests | TTFA p50 ms | TTFA p95 ms | audio s / wall s | requests / s "
        "| errors | baseline TTFA p50 / p95 ms | baseline audio s / wall s "
        "| baseline requests / s | p50 / p95 / throughput vs baseline |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r, b in zip(results, baseline, strict=True):
        p50, p95 = percentile(r.ttfa_ms, 0.5), percentile(r.ttfa_ms, 0.95)
        b50, b95 = percentile(b.ttfa_ms, 0.5), percentile(b.ttfa_ms, 0.95)
        lines.append(
            f"| {r.streams} | {len(r.ttfa_ms)} | {p50:.0f} | {p95:.0f} | {throughput(r):.2f} "
            f"| {requests_per_s(r):.2f} | {r.errors + b.errors} | {b50:.0f} / {b95:.0f} "
            f"| {throughput(b):.2f} | {requests_per_s(b):.2f} "
            f"| {p50 / b50:.2f} / {p95 / b95:.2f} / {throughput(r) / throughput(b):.2f} |"
        )
    return "\n".join(lines)
