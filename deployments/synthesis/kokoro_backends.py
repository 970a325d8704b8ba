"""Kokoro's model behind one small interface, for the engine: a list of token lists,
their style rows and speeds in, each one's audio out. Two backends:

- :class:`OnnxKokoro`, the int8 ONNX export through ONNX Runtime, one text per call
  (its batch dimension is fixed at 1);
- :class:`TorchKokoro`, :class:`.kokoro_torch.model.KokoroModel` with float weights on a device
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
from deployments.synthesis.kokoro_assets import load_model_bytes
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


class OnnxKokoro:
    def __init__(self, session: Any, device: str, name: str = "onnx") -> None:
        self._session = session
        self.device = device
        self.name = name
        names = [output.name for output in session.get_outputs()]
        self._outputs = names[:1] + [n for n in names if n == ONNX_DURATIONS]
        self.timed = len(self._outputs) == 2

    def run(self, items: list[Item]) -> list[Voiced]:
        out = []
        for tokens, style, speed in items:
            feed = {
                "tokens": np.array([tokens], dtype=np.int64),
                "style": style.reshape(1, -1).astype(np.float32),
                "speed": np.array([speed], dtype=np.float32),
            }
            audio, *durations = self._session.run(self._outputs, feed)
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

        from deployments.synthesis.kokoro_torch.model import KokoroModel
        from deployments.synthesis.kokoro_torch.weights import load, load_checkpoint

        if device == "cpu":
            torch.set_num_threads(threads)
        state = load_checkpoint(weights) if weights.suffix in (".pth", ".pt") else load(weights)
        model = KokoroModel.from_state(state).to(device=device, dtype=getattr(torch, dtype))
        return cls(model, device)

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
            from deployments.synthesis.kokoro_float import float_graph

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
    session_options = onnxruntime.SessionOptions()
    session_options.intra_op_num_threads = threads
    session_options.inter_op_num_threads = 1
    try:
        session = onnxruntime.InferenceSession(
            model, sess_options=session_options, providers=providers
        )
    except Exception as e:
        raise EngineError(f"ONNX Runtime could not load the Kokoro model: {e}") from e
    if device == "cuda" and "CUDAExecutionProvider" not in session.get_providers():
        logger.warning("kokoro: the CUDA provider did not start; running on CPU")
        device = "cpu"
    return OnnxKokoro(session, device, opts.backend if opts.backend != "auto" else "onnx")


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
    from deployments.synthesis.kokoro_torch.weights import default_weights_path

    weights = Path(opts.weights) if opts.weights else default_weights_path()
    if not weights.is_file():
        raise EngineUnavailable(
            f"Kokoro's torch weights are not at {weights}: run `python -m "
            "deployments.synthesis.kokoro_torch.weights` (make install does)"
        )
    device = opts.device
    if device == "cuda" and not torch.cuda.is_available():
        logger.warning("kokoro: CUDA asked for, but torch sees no GPU; running on CPU")
        device = "cpu"
    dtype = opts.dtype if device == "cuda" else "float32"
    try:
        return TorchKokoro.load(weights, device, dtype, threads)
    except Exception as e:
        raise EngineError(f"could not load Kokoro's torch weights from {weights}: {e}") from e
