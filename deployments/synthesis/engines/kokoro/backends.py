"""Kokoro's model behind one small interface, for the engine: a list of token lists,
their style rows and speeds in, each one's audio out. Two backends:

- :class:`OnnxKokoro`, the int8 ONNX export through ONNX Runtime, one text per call
  (its batch dimension is fixed at 1), its graph cut in two where the encoder hands
  over to the decoder (:func:`split_graph`): a *reader* (tokens to each frame's text
  features, pitch and energy: ~3% of a call) and a *renderer* (those frames to audio),
  so that the engine can read a text once and render its frames in parts
  (:class:`ReadingBackend`);
- :class:`.torch_backend.TorchKokoro`, :class:`.model.model.KokoroModel` with float
  weights on a device (CPU or CUDA, float32, float16 or bfloat16), every text of a
  call in one padded forward pass, launched and collected apart.

The export's inverse STFT leaves out the window normalisation past its first frame,
so it speaks :data:`ONNX_GAIN` times louder than the model as trained; the torch
backend applies the same gain, so a voice sounds the same on either.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from deployments.priority import in_background
from deployments.synthesis.engine import EngineError, EngineUnavailable
from deployments.synthesis.engines.kokoro.assets import load_model_bytes
from deployments.synthesis.options import KokoroOptions

logger = logging.getLogger("deployments")

ONNX_GAIN = 1.5
SAMPLES_PER_FRAME = 600  # a duration unit: 25 ms at 24 kHz
# Inner tensors of the export's graph, where its encoder hands over to its decoder:
# the durations (frames per token, rounded and clamped), and per frame the text's
# features [1, 512, frames], pitch and energy (each [1, 2 * frames]).
ONNX_DURATIONS = "/encoder/Clip_output_0"
FEATURES = "/encoder/MatMul_1_output_0"
PITCH = "/encoder/Reshape_output_0"
ENERGY = "/encoder/Reshape_1_output_0"
Item = tuple[list[int], np.ndarray, float]  # tokens (boundaries included), style row, speed


@dataclass(frozen=True)
class Voiced:
    """One item's audio (float32, 24 kHz) and the frames each of its tokens was
    spoken for (boundary tokens included), where the backend knows them."""

    audio: np.ndarray
    durations: np.ndarray | None = None


@dataclass(frozen=True)
class Reading:
    """What the reader made of one item: everything the renderer needs to render any
    run of its frames (the text's features, pitch and energy at two values a frame,
    the style row) and the frames each token was given (boundaries included)."""

    features: np.ndarray
    pitch: np.ndarray
    energy: np.ndarray
    style: np.ndarray
    durations: np.ndarray

    @property
    def frames(self) -> int:
        return int(self.features.shape[2])

    def frame_energy(self) -> np.ndarray:
        """The predicted energy of each frame (the mean of its two values): low where
        the reading pauses."""
        return np.asarray(self.energy.reshape(-1, 2).mean(axis=1))


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


@runtime_checkable
class ReadingBackend(Protocol):
    """A backend that reads an item and renders its frames apart: ``render(read(item),
    0, frames)`` is ``run([item])``'s audio; a run of frames rendered alone sounds as
    a call of its own would, not as the same frames of the whole (the decoder
    normalises over the frames it is given, and convolves across the cut)."""

    def read(self, item: Item) -> Reading: ...

    def render(self, reading: Reading, start: int, end: int) -> np.ndarray:
        """The audio of frames ``start``..``end`` of ``reading`` (float32, 24 kHz)."""
        ...


@dataclass(frozen=True)
class SessionPair:
    """The two halves of the graph, on sessions of the same threads."""

    reader: Any
    renderer: Any


class OnnxKokoro:
    """The export on ONNX Runtime: a ``wide`` pair of sessions with every core's
    threads, and on a CPU of several cores ``narrow`` pairs of one core's threads
    each. A call that finds no other running takes the wide one (the fastest single
    call: a stream's first audio); calls that run beside others take a narrow one
    each, since on 2 cores two one-thread sessions side by side speak ~1.2x the calls
    per second of one two-thread session (whose threads wait for each other at every
    parallel section), though each call is ~1.6x slower (docs/performance.md)."""

    timed = True

    def __init__(
        self,
        wide: SessionPair,
        device: str,
        name: str = "onnx",
        narrow: tuple[SessionPair, ...] = (),
    ) -> None:
        self._wide = wide
        self._free = list(narrow)  # the narrow pairs no call is using
        self.narrow = len(narrow)
        self._running = 0
        self._choosing = threading.Lock()
        self.device = device
        self.name = name

    def sessions(self) -> tuple[SessionPair, ...]:
        """Every pair of sessions, the wide one first (for a warm-up of each)."""
        with self._choosing:
            return (self._wide, *self._free)

    def _take(self) -> tuple[SessionPair, bool]:
        """The sessions for a call starting now, and whether they are a narrow pair. A
        background call (:mod:`~deployments.priority`) takes a narrow one even
        alone: the wide one's pool threads would run it at the process's priority."""
        with self._choosing:
            self._running += 1
            if (self._running > 1 or in_background()) and self._free:
                return self._free.pop(), True
            return self._wide, False

    def _give_back(self, pair: SessionPair, narrow: bool) -> None:
        with self._choosing:
            self._running -= 1
            if narrow:
                self._free.append(pair)

    def warm_up(self, items: list[Item]) -> None:
        for pair in self.sessions():
            for item in items:
                _spoken(pair, item)

    def run(self, items: list[Item]) -> list[Voiced]:
        pair, narrow = self._take()
        try:
            return [_spoken(pair, item) for item in items]
        finally:
            self._give_back(pair, narrow)

    def read(self, item: Item) -> Reading:
        pair, narrow = self._take()
        try:
            return _read(pair.reader, item)
        finally:
            self._give_back(pair, narrow)

    def render(self, reading: Reading, start: int, end: int) -> np.ndarray:
        pair, narrow = self._take()
        try:
            return _render(pair.renderer, reading, start, end)
        finally:
            self._give_back(pair, narrow)


def _spoken(pair: SessionPair, item: Item) -> Voiced:
    """``item`` read and all its frames rendered: the whole graph's audio."""
    reading = _read(pair.reader, item)
    return Voiced(_render(pair.renderer, reading, 0, reading.frames), reading.durations)


def _read(reader: Any, item: Item) -> Reading:
    tokens, style, speed = item
    row = style.reshape(1, -1).astype(np.float32)
    feed = {
        "tokens": np.array([tokens], dtype=np.int64),
        "style": row,
        "speed": np.array([speed], dtype=np.float32),
    }
    features, pitch, energy, durations = reader.run([FEATURES, PITCH, ENERGY, ONNX_DURATIONS], feed)
    return Reading(features, pitch, energy, row, np.asarray(durations).reshape(-1).astype(np.int64))


def _render(renderer: Any, reading: Reading, start: int, end: int) -> np.ndarray:
    feed = {
        FEATURES: reading.features[:, :, start:end],
        PITCH: reading.pitch[:, 2 * start : 2 * end],
        ENERGY: reading.energy[:, 2 * start : 2 * end],
        "style": reading.style,
    }
    (audio,) = renderer.run(["audio"], feed)
    return np.asarray(audio, dtype=np.float32).reshape(-1)


def load_onnx(opts: KokoroOptions, threads: int) -> OnnxKokoro:
    """The export on ONNX Runtime (its CUDA provider where asked for and present)."""
    try:
        import onnxruntime
    except ImportError as e:
        raise EngineUnavailable("the kokoro engine needs the PyPI package onnxruntime") from e
    model = load_model_bytes()
    try:  # the graph is made float, and cut in two, with the PyPI package onnx
        if opts.backend == "onnx-float":
            from deployments.synthesis.engines.kokoro.onnx_float import float_graph

            model = float_graph(model)
        reader, renderer = split_graph(model)
    except ImportError as e:
        raise EngineUnavailable("the kokoro engine needs the PyPI package onnx") from e
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

    def session(model: bytes, threads: int) -> Any:
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

    def pair(threads: int) -> SessionPair:
        return SessionPair(session(reader, threads), session(renderer, threads))

    wide = pair(threads)
    if device == "cuda" and "CUDAExecutionProvider" not in wide.renderer.get_providers():
        logger.warning("kokoro: the CUDA provider did not start; running on CPU")
        device = "cpu"
    # on CPU, a narrow pair per call that may run beside another (parallel_calls)
    narrow = tuple(pair(max(1, threads // calls)) for _ in range(calls))
    name = opts.backend if opts.backend != "auto" else "onnx"
    return OnnxKokoro(wide, device, name, narrow)


MAX_NARROW_SESSIONS = 4  # each holds its own copy of the model (~100 MiB)


def narrow_sessions(parallel_calls: int | None, threads: int) -> int:
    """How many narrow sessions the CPU backend keeps: ``parallel_calls`` where the
    engine options say, else one per thread given (at most 4); none on one core."""
    calls = parallel_calls if parallel_calls is not None else min(threads, MAX_NARROW_SESSIONS)
    return calls if calls > 1 else 0


def split_graph(model: bytes) -> tuple[bytes, bytes]:
    """The export's graph (``model``'s bytes) cut in two where its encoder hands over to
    its decoder: the reader (tokens, style, speed -> features, pitch, energy,
    durations) and the renderer (features, pitch, energy, style -> audio). Run one
    after the other they give the whole graph's audio, sample for sample."""
    import onnx
    from onnx.utils import Extractor

    extractor = Extractor(onnx.load_model_from_string(model))
    reader = extractor.extract_model(
        ["tokens", "style", "speed"], [FEATURES, PITCH, ENERGY, ONNX_DURATIONS]
    )
    renderer = extractor.extract_model([FEATURES, PITCH, ENERGY, "style"], ["audio"])
    return bytes(reader.SerializeToString()), bytes(renderer.SerializeToString())
