"""Kokoro's engine on the backend its options ask for: :class:`BatchingKokoroEngine`
on torch (segments of several streams in one forward pass), :class:`KokoroEngine` on
ONNX. Apart from both classes, so that the base class does not import its subclass."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from deployments.synthesis.engines.kokoro.assets import default_voices_dir
from deployments.synthesis.engines.kokoro.backends import KokoroBackend, load_onnx
from deployments.synthesis.engines.kokoro.batching import BatchingKokoroEngine
from deployments.synthesis.engines.kokoro.engine import KokoroEngine
from deployments.synthesis.engines.kokoro.torch_backend import load_torch
from deployments.synthesis.options import KokoroOptions


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def load_kokoro(options: dict[str, Any]) -> KokoroEngine:
    """The engine ``options`` ask for. Raises :class:`EngineUnavailable` when the
    backend's packages or weights are not installed, :class:`EngineError` when they
    do not load."""
    opts = KokoroOptions.model_validate(options)
    threads = opts.threads or _cores()
    backend = opts.backend
    if backend == "auto":
        backend = "torch" if opts.device == "cuda" else "onnx"
    if backend == "torch":
        model: KokoroBackend = load_torch(opts, threads)
        engine_class: type[KokoroEngine] = BatchingKokoroEngine
        parallel = 1  # one forward pass at a time: concurrency is the batch
    else:
        onnx = load_onnx(opts, threads)
        model = onnx
        engine_class = KokoroEngine
        # CPU: a call on each narrow session, the wide one when a call runs alone
        parallel = max(1, onnx.narrow) if onnx.device == "cpu" else 4
    return engine_class(
        model,
        threads,
        opts.parallel_calls or parallel,
        opts.max_tokens,
        Path(opts.voices_dir or default_voices_dir()),
    )
