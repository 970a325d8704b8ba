"""The Kokoro fixtures of the CPU tier (the export, its conversion, texts), for the GPU tier."""

from tests.unit.deployments.synthesis.kokoro.model.conftest import (  # noqa: F401
    conversion,
    export,
    model_bytes,
    style_row,
    tokens,
)
