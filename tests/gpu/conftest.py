"""The GPU tier: the engines on the device this machine has, CUDA where it is, else the
CPU, so that the tier runs (smaller) wherever `make test` does and cannot rot unseen
between GPU runs. Checks that only mean something on CUDA (its precisions, its
provider, its timings) skip on the CPU; the rest run on both."""

from __future__ import annotations

import pytest

from tests.unit.deployments.synthesis.engines.kokoro.model.conftest import (  # noqa: F401
    conversion,
    export,
    model_bytes,
    style_row,
    tokens,
)

torch = pytest.importorskip("torch", reason="the kokoro-torch extra is not installed")


@pytest.fixture(scope="session")
def device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def cuda_only(device: str, why: str) -> None:
    """Skip the rest of a test where ``device`` is not CUDA."""
    if device != "cuda":
        pytest.skip(f"CUDA only: {why}")
