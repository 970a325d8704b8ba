"""Kokoro's model behind one small interface, for the engine: a list of token lists,
their style rows and speeds in, each one's audio out. Two backends:

- :class:`OnnxKokoro`, the int8 ONNX export through ONNX Runtime, one text per call
  (its batch dimension is fixed at 1);
- :class:`TorchKokoro`, :class:`.model.model.KokoroModel` with float weights on a device
  (CPU or CUDA, float32, float16 or bfloat16), every text of a call in one padded
  forward pass.

The export's inverse STFT leaves out the window normalisation past its first frame,
so it speaks :data:`ONNX_GAIN` times louder than the model as trained; the torch
backend applies the same gain, so a voice sounds the same on either.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from deployments.synthesis.engine import EngineError, EngineUnavailable
from deployments.synthesis.kokoro.assets import load_model_bytes
from deployments.synthesis.options import KokoroOptions

logger = logging.getLogger("deployments")

ONNX_GAIN = 1.5
SAMPLES_PER_FRAME = 600  # a duration unit: 25 ms at 24 kHz
# The export's durations (frames per token, rounded and clamped): an inner tensor
# of its graph, made an output of the session.
ONNX_DURATIONS = "/encoder/Clip_output_0"
Item = tuple[list[int], np.ndarray, float]  # tokens (boundaries included), style row, speed


@dataclass(frozen=True)
class Voiced:
    """One item's audio (float32, 24 kHz) and the frames each of its tokens was
    spoken for (boundary tokens included), where the backend knows them."""

    audio: np.ndarray
    durations: np.ndarray | None = None


class KokoroBackend(Protocol):
    name: str
    device: str
    timed: bool  # whether it gives durations

    def run(self, items: list[Item]) -> list[Voiced]:
        """Each item's audio and durations; raises on a failed model call."""
        ...

    def warm_up(self, items: list[Item]) -> None:
        """Run ``items`` once wherever a call may run (a first run is several times
        slower than later ones)."""
        ...


class OnnxKokoro:
    """The export on ONNX Runtime: a ``session`` with every core's threads, and on a
    CPU of several cores ``narrow`` sessions of one core's threads each. A call that
    finds no other running takes the wide one (the fastest single call: a stream's
    first audio); calls that run beside others take a narrow one each, since on
    2 cores two one-thread sessions side by side speak ~1.2x the calls per second
    of one two-thread session (whose threads wait for each other at every parallel
    section), though each call is ~1.6x slower (docs/performance.md)."""

    def __init__(
        self, session: Any, device: str, name: str = "onnx", narrow: tuple[Any, ...] = ()
    ) -> None:
        self._session = session
        self._free = list(narrow)  # the narrow sessions no call is using
        self.narrow = len(narrow)
        self._running = 0
        self._choosing = threading.Lock()
        self.device = device
        self.name = name
        names = [output.name for output in session.get_outputs()]
        self._outputs = names[:1] + [n for n in names if n == ONNX_DURATIONS]
        self.timed = len(self._outputs) == 2

    def sessions(self) -> tuple[Any, ...]:
        """Every session, the wide one first (for a warm-up of each)."""
        with self._choosing:
            return (self._session, *self._free)

    def _take(self) -> tuple[Any, bool]:
        """The session for a call starting now, and whether it is a narrow one."""
        with self._choosing:
            self._running += 1
            if self._running > 1 and self._free:
                return self._free.pop(), True
            return self._session, False

    def _give_back(self, session: Any, narrow: bool) -> None:
        with self._choosing:
            self._running -= 1
            if narrow:
                self._free.append(session)

    def warm_up(self, items: list[Item]) -> None:
        for session in self.sessions():
            self._run_on(session, items)

    def run(self, items: list[Item]) -> list[Voiced]:
        session, narrow = self._take()
        try:
            return self._run_on(session, items)
        finally:
            self._give_back(session, narrow)

    def _run_on(self, session: Any, items: list[Item]) -> list[Voiced]:
        out = []
        for tokens, style, speed in items:
            feed = {
                "tokens": np.array([tokens], dtype=np.int64),
                "style": style.reshape(1, -1).astype(np.float32),
                "speed": np.array([speed], dtype=np.float32),
            }
            audio, *durations = session.run(self._outputs, feed)
            out.append(
                Voiced(
                    np.asarray(audio, dtype=np.float32).reshape(-1),
                    np.asarray(durations[0]).reshape(-1).astype(np.int64) if durations else None,
                )
            )
        return out


class TorchKokoro:
    name = "torch"
    timed = True

    def __init__(self, model: Any, device: str) -> None:
        self._model = model
        self.device = device
        self._lock = threading.Lock()  # one forward pass at a time on a model

    @classmethod
    def load(cls, weights: Path, device: str, dtype: str, threads: int) -> TorchKokoro:
        """The model from ``weights`` (this project's converted safetensors, or the
        original ``kokoro-v1_0.pth``) on ``device`` in ``dtype``."""
        import torch

        from deployments.synthesis.kokoro.model.model import KokoroModel
        from deployments.synthesis.kokoro.model.weights import load, load_checkpoint

        if device == "cpu":
            torch.set_num_threads(threads)
        state = load_checkpoint(weights) if weights.suffix in (".pth", ".pt") else load(weights)
        model = KokoroModel.from_state(state).to(device).in_precision(getattr(torch, dtype))
        return cls(model, device)

    def warm_up(self, items: list[Item]) -> None:
        self.run(items)

    def run(self, items: list[Item]) -> list[Voiced]:
        import torch

        styles = torch.from_numpy(np.stack([style for _, style, _ in items]))
        speeds = torch.tensor([speed for _, _, speed in items], dtype=torch.float32)
        with self._lock:
            spoken = self._model([tokens for tokens, _, _ in items], styles, speeds)
        return [
            Voiced(s.audio.float().cpu().numpy() * np.float32(ONNX_GAIN), s.durations.cpu().numpy())
            for s in spoken
        ]


def load_onnx(opts: KokoroOptions, threads: int) -> OnnxKokoro:
    """The export on ONNX Runtime (its CUDA provider where asked for and present)."""
    try:
        import onnxruntime
    except ImportError as e:
        raise EngineUnavailable("the kokoro engine needs the PyPI package onnxruntime") from e
    model = load_model_bytes()
    if opts.backend == "onnx-float":
        try:
            from deployments.synthesis.kokoro.onnx_float import float_graph

            model = float_graph(model)
        except ImportError as e:
            raise EngineUnavailable("the onnx-float backend needs the PyPI package onnx") from e
    model = with_durations(model)
    device: str = opts.device
    providers = ["CPUExecutionProvider"]
    if device == "cuda":
        if "CUDAExecutionProvider" in onnxruntime.get_available_providers():
            providers.insert(0, "CUDAExecutionProvider")
        else:
            logger.warning(
                "kokoro: CUDA asked for, but onnxruntime here has no CUDA provider "
                "(install onnxruntime-gpu); running on CPU"
            )
            device = "cpu"

    calls = narrow_sessions(opts.parallel_calls, threads) if device == "cpu" else 0

    def session(threads: int) -> Any:
        session_options = onnxruntime.SessionOptions()
        session_options.intra_op_num_threads = threads
        session_options.inter_op_num_threads = 1
        # threads spin while a call runs (each parallel section starts at once), not
        # after it: idle spinning would take the cores from the other processes
        session_options.add_session_config_entry("session.force_spinning_stop", "1")
        try:
            return onnxruntime.InferenceSession(
                model, sess_options=session_options, providers=providers
            )
        except Exception as e:
            raise EngineError(f"ONNX Runtime could not load the Kokoro model: {e}") from e

    wide = session(threads)
    if device == "cuda" and "CUDAExecutionProvider" not in wide.get_providers():
        logger.warning("kokoro: the CUDA provider did not start; running on CPU")
        device = "cpu"
    # on CPU, a narrow session per call that may run beside another (parallel_calls)
    narrow = tuple(session(max(1, threads // calls)) for _ in range(calls))
    name = opts.backend if opts.backend != "auto" else "onnx"
    return OnnxKokoro(wide, device, name, narrow)


MAX_NARROW_SESSIONS = 4  # each holds its own copy of the model (~100 MiB)


def narrow_sessions(parallel_calls: int | None, threads: int) -> int:
    """How many narrow sessions the CPU backend keeps: ``parallel_calls`` where the
    engine options say, else one per thread given (at most 4); none on one core."""
    calls = parallel_calls if parallel_calls is not None else min(threads, MAX_NARROW_SESSIONS)
    return calls if calls > 1 else 0


def with_durations(model: bytes) -> bytes:
    """The export with its durations as a second output (unchanged without the PyPI
    package onnx, which edits the graph: its voices then have no word timings)."""
    try:
        import onnx
    except ImportError:
        return model
    graph = onnx.load_model_from_string(model)
    graph.graph.output.append(
        onnx.helper.make_tensor_value_info(ONNX_DURATIONS, onnx.TensorProto.FLOAT, None)
    )
    return bytes(graph.SerializeToString())


def load_torch(opts: KokoroOptions, threads: int) -> TorchKokoro:
    """The torch model from the converted weights (or ``opts.weights``)."""
    try:
        import torch
    except ImportError as e:
        raise EngineUnavailable("the kokoro torch backend needs torch (the vits extra)") from e
    from deployments.synthesis.kokoro.model.weights import default_weights_path

    weights = Path(opts.weights) if opts.weights else default_weights_path()
    if not weights.is_file():
        raise EngineUnavailable(
            f"Kokoro's torch weights are not at {weights}: run `python -m "
            "deployments.synthesis.kokoro.model.weights` (make install does)"
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
        return TorchKokoro.load(weights, device, dtype, threads)
    except Exception as e:
        raise EngineError(f"could not load Kokoro's torch weights from {weights}: {e}") from e
