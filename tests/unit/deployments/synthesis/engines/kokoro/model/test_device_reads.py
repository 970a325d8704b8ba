"""A forward pass reads the device once: on a GPU each read of a value back to the host
waits for every kernel queued before it, so the host stalls where the model reads.

On the CPU the reads are found as calls (``.cpu()``, ``.tolist()``, ``.item()``,
``bool()``, ``int()``, ... on a tensor), so a read added anywhere in the model fails
here before a GPU run shows it as a stall."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
from torch import nn
from torch.overrides import TorchFunctionMode

from deployments.synthesis.engines.kokoro.model import model as model_module
from deployments.synthesis.engines.kokoro.model.layers import bidirectional
from deployments.synthesis.engines.kokoro.model.model import KokoroModel

READS = {"cpu", "tolist", "item", "numpy", "__bool__", "__int__", "__float__", "__index__"}


class Reads(TorchFunctionMode):
    """The reads of tensor values made while it is on, but those of ``allowed``."""

    def __init__(self) -> None:
        super().__init__()
        self.reads: list[str] = []
        self.allowed = 0
        self._inside = False

    def allow(self, read: Callable[[torch.Tensor], Any]) -> Callable[[torch.Tensor], Any]:
        def allowed(tensor: torch.Tensor) -> Any:
            self.allowed += 1
            self._inside = True
            try:
                return read(tensor)
            finally:
                self._inside = False

        return allowed

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        if getattr(func, "__name__", "") in READS and not self._inside:
            self.reads.append(func.__name__)
        return func(*args, **(kwargs or {}))


def test_a_batch_is_read_back_once_for_its_durations(
    model: KokoroModel,
    tokens: Callable[[str, str], list[int]],
    style_row: Callable[[str, list[int]], np.ndarray],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ids = [tokens("नमस्ते", "hi"), tokens("आज मौसम अच्छा है।", "hi")]  # of two lengths
    styles = torch.from_numpy(np.stack([style_row("hf_alpha", t) for t in ids]))
    reads = Reads()
    monkeypatch.setattr(model_module, "read_back", reads.allow(model_module.read_back))
    with reads:
        launched = model.launch(ids, styles, torch.ones(2))
    assert reads.reads == [] and reads.allowed == 1
    assert [d.numel() for d in launched.durations] == [len(t) for t in ids]


def test_unpacked_lstm_reads_each_item_as_packing_does() -> None:
    torch.manual_seed(0)
    lstm = nn.LSTM(6, 4, 1, batch_first=True, bidirectional=True)
    lengths = [7, 3, 5]
    x = torch.randn(3, 7, 6) * (
        torch.arange(7)[None, :, None] < torch.tensor(lengths)[:, None, None]
    )
    packed = nn.utils.rnn.pack_padded_sequence(
        x, torch.tensor(lengths), batch_first=True, enforce_sorted=False
    )
    expected = nn.utils.rnn.pad_packed_sequence(lstm(packed)[0], batch_first=True, total_length=7)[
        0
    ]
    with torch.no_grad():
        ours = bidirectional(lstm, x, lengths)
    assert float((ours - expected.detach()).abs().max()) <= 1e-6
    assert torch.equal(ours[1, 3:], torch.zeros(4, 8))  # zeros past an item's length
