"""Kokoro's torch backend: :class:`.model.model.KokoroModel` with float weights on a
device (CPU or CUDA, float32, float16 or bfloat16), every text of a call in one padded
forward pass, in two steps: :meth:`TorchKokoro.launch` queues the pass on the device
and returns (it waits once, for the durations that size the decoder), and
:meth:`Launch.collect` waits for its audio. On a GPU each launch runs on a CUDA stream
of its own, so the next batch's text side runs while this one decodes, and the audio
comes to the host in one copy into pinned memory, the export's gain applied there
(:data:`.backends.ONNX_GAIN`: a voice sounds the same on either backend).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from deployments.synthesis.engine import EngineError, EngineUnavailable
from deployments.synthesis.engines.kokoro.backends import ONNX_GAIN, Item, Voiced
from deployments.synthesis.options import KokoroOptions

logger = logging.getLogger("deployments")


@dataclass(frozen=True)
class Launch:
    """A batch launched on the torch backend: its audio (gain applied) on its way to
    the host into ``audio`` [batch, samples], done once ``ready`` (a CUDA event; None
    where the pass ran on the CPU, already done), and each item's durations and length."""

    audio: Any
    ready: Any
    durations: list[Any]
    samples: list[int]

    def collect(self) -> list[Voiced]:
        """Each item's audio and durations, once the device has made them (blocks)."""
        if self.ready is not None:
            self.ready.synchronize()
        return [
            Voiced(self.audio[i, :n].numpy().copy(), d.numpy())
            for i, (n, d) in enumerate(zip(self.samples, self.durations, strict=True))
        ]


class TorchKokoro:
    name = "torch"
    timed = True

    def __init__(self, model: Any, device: str, streams: int = 3) -> None:
        self._model = model
        self.device = device
        self._lock = threading.Lock()  # one launch at a time on a model
        # a CUDA stream per batch in flight (the runner keeps at most that many)
        self._streams: list[Any] = []
        if device == "cuda":
            import torch

            self._streams = [torch.cuda.Stream() for _ in range(streams)]  # type: ignore[no-untyped-call]
        self._launches = 0
        self._compile = "off"

    @property
    def compiled(self) -> str:
        """How the decoder runs: ``off`` (as written) or the torch.compile mode."""
        return self._compile if self._model.compiled else "off"

    def compile(self, mode: str) -> None:
        """The decoder through torch.compile in ``mode`` (``reduce-overhead``: CUDA graphs,
        batches padded to a few shapes); a failure to compile falls back to it as written."""
        from deployments.synthesis.engines.kokoro.model.shapes import Buckets

        self._compile = mode
        self._model.compile_decoder(mode, Buckets() if mode == "reduce-overhead" else None)

    @classmethod
    def load(
        cls, weights: Path, device: str, dtype: str, threads: int, compile_mode: str = "off"
    ) -> TorchKokoro:
        """The model from ``weights`` (this project's converted safetensors, or the
        original ``kokoro-v1_0.pth``) on ``device`` in ``dtype``, its decoder compiled
        as ``compile_mode`` says."""
        import torch

        from deployments.synthesis.engines.kokoro.model.model import KokoroModel
        from deployments.synthesis.engines.kokoro.model.weights import load, load_checkpoint

        if device == "cpu":
            torch.set_num_threads(threads)
        state = load_checkpoint(weights) if weights.suffix in (".pth", ".pt") else load(weights)
        model = KokoroModel.from_state(state).to(device).in_precision(getattr(torch, dtype))
        backend = cls(model, device)
        if compile_mode != "off":
            backend.compile(compile_mode)
        return backend

    def warm_up(self, items: list[Item]) -> None:
        for _ in self._streams or [None]:  # each stream's first use
            self.run(items)

    def run(self, items: list[Item]) -> list[Voiced]:
        return self.launch(items).collect()

    def launch(self, items: list[Item]) -> Launch:
        """``items``' forward pass queued on the device (see :meth:`Launch.collect`). A
        compiled decoder that fails (to compile a shape, or in its kernels) is dropped
        for the one as written, and the pass runs again."""
        try:
            return self._launch(items)
        except Exception as e:
            if not self._model.compiled:
                raise
            logger.warning("kokoro: the compiled decoder failed (%s); running it as written", e)
            self._model.eager()
            return self._launch(items)

    def _launch(self, items: list[Item]) -> Launch:
        import torch

        styles = torch.from_numpy(np.stack([style for _, style, _ in items]))
        speeds = torch.tensor([speed for _, _, speed in items], dtype=torch.float32)
        tokens = [tokens for tokens, _, _ in items]
        with self._lock:
            if not self._streams:
                launched = self._model.launch(tokens, styles, speeds)
                audio = launched.audio * ONNX_GAIN
                return Launch(audio, None, launched.durations, launched.samples)
            stream = self._streams[self._launches % len(self._streams)]
            self._launches += 1
            stream.wait_stream(torch.cuda.current_stream())  # the weights, loaded there
            with torch.cuda.stream(stream):
                launched = self._model.launch(tokens, styles, speeds)
                audio = launched.audio * ONNX_GAIN
                host = torch.empty(audio.shape, dtype=audio.dtype, pin_memory=True)
                host.copy_(audio, non_blocking=True)
                ready = torch.cuda.Event()  # type: ignore[no-untyped-call]
                ready.record(stream)
        return Launch(host, ready, launched.durations, launched.samples)


def load_torch(opts: KokoroOptions, threads: int) -> TorchKokoro:
    """The torch model from the converted weights (or ``opts.weights``)."""
    try:
        import torch
    except ImportError as e:
        raise EngineUnavailable("the kokoro torch backend needs torch (the vits extra)") from e
    from deployments.synthesis.engines.kokoro.model.weights import default_weights_path

    weights = Path(opts.weights) if opts.weights else default_weights_path()
    if not weights.is_file():
        raise EngineUnavailable(
            f"Kokoro's torch weights are not at {weights}: run `python -m "
            "deployments.synthesis.engines.kokoro.model.weights` (make install does)"
        )
    device = opts.device
    if device == "cuda" and not torch.cuda.is_available():
        logger.warning("kokoro: CUDA asked for, but torch sees no GPU; running on CPU")
        device = "cpu"
    dtype = opts.dtype
    if device == "cpu" and dtype == "float16":
        # torch has no fast float16 convolutions on the CPU (its reference loops: ~40x
        # slower than float32); bfloat16 has them where the CPU does
        logger.warning("kokoro: float16 is for GPUs; running in float32 on the CPU")
        dtype = "float32"
    try:
        return TorchKokoro.load(weights, device, dtype, threads, opts.compile)
    except Exception as e:
        raise EngineError(f"could not load Kokoro's torch weights from {weights}: {e}") from e
