"""The converted Kokoro model, the int8 export it came from, and texts to compare them on."""

from __future__ import annotations

import os
from collections.abc import Callable

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the kokoro-torch extra is not installed")
onnx = pytest.importorskip("onnx", reason="the kokoro-torch extra is not installed")

from deployments.espeak_binding import espeak_library  # noqa: E402
from deployments.synthesis.engines.kokoro.assets import (  # noqa: E402
    default_voices_dir,
    load_model_bytes,
    load_style,
)
from deployments.synthesis.engines.kokoro.backends import OnnxKokoro, SessionPair, split_graph  # noqa: E402
from deployments.synthesis.engines.kokoro.model.model import KokoroModel  # noqa: E402
from deployments.synthesis.engines.kokoro.model.weights import Conversion, convert_onnx  # noqa: E402
from deployments.synthesis.engines.kokoro.phonemes import KokoroPhonemizer  # noqa: E402

HINDI_VOICES = ("hf_alpha", "hf_beta", "hm_omega", "hm_psi")
Speak = Callable[[str, str, str], tuple[list[int], np.ndarray]]


def cores() -> int:
    """The cores this process may use: one per worker under pytest-xdist, once the
    worker has been given its core (read at import, before that, it was every core:
    two threads on one core, which made torch's calls here 10-50x slower)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


@pytest.fixture(scope="session")
def model_bytes() -> bytes:
    return load_model_bytes()


@pytest.fixture(scope="session")
def conversion(model_bytes: bytes) -> Conversion:
    return convert_onnx(model_bytes)


@pytest.fixture(scope="session")
def model(conversion: Conversion) -> KokoroModel:
    torch.set_num_threads(cores())
    return KokoroModel.from_state(conversion.state)


@pytest.fixture(scope="session")
def export(model_bytes: bytes) -> OnnxKokoro:
    """The export on ONNX Runtime as the engine runs it (audio and durations)."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = cores()
    reader, renderer = split_graph(model_bytes)
    sessions = (onnxruntime.InferenceSession(half, options) for half in (reader, renderer))
    return OnnxKokoro(SessionPair(*sessions), "cpu")


@pytest.fixture(scope="session")
def tokens() -> Callable[[str, str], list[int]]:
    """Model input for a text: its Kokoro tokens between the boundary tokens."""
    phonemizer = KokoroPhonemizer(espeak_library())
    return lambda text, phonemes: [0, *phonemizer.tokens(phonemizer.phonemes(text, phonemes)), 0]


@pytest.fixture(scope="session")
def style_row() -> Callable[[str, list[int]], np.ndarray]:
    """The row of a voice's style table for a token list (boundaries not counted)."""
    tables = {name: load_style(name, default_voices_dir()) for name in HINDI_VOICES}
    tables["af_heart"] = load_style("af_heart", default_voices_dir())
    return lambda voice, ids: tables[voice][len(ids) - 3]
