"""The generator's inverse STFT as fixed arithmetic: ``torch.istft`` (Hann window,
``center=True``) for one ``n_fft`` and ``hop``, written so that it never waits for the
device.

``torch.istft`` checks that the window's overlap-added envelope has no zeros before it
divides by it, which copies a flag back to the host and so waits for every kernel
queued before it: on a GPU, the host stalls once per forward pass at the very end
(28% of the engine thread's time at 256 streams). Here the envelope is a function of
the frame count alone, so nothing is checked: each frame's inverse real DFT and its
window are one matrix (``[2 * bins, n_fft]``: the real parts' cosines and the
imaginary parts' sines, the window folded in), applied by one matmul, then the
frames overlap-add as ``n_fft / hop`` shifted sums. All in float32; a float32
matmul is exact float32 on CUDA by default (TF32 is off for matmuls, unlike cuDNN's
convolutions, which is why this is no ``conv_transpose1d``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch
from torch import nn


def _tables(n_fft: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The inverse real DFT with the Hann window folded in, ``[2 * bins, n_fft]`` (the
    real parts' rows, then the imaginary parts'), and the window squared, in float32."""
    window = torch.hann_window(n_fft, dtype=torch.float64)
    bins = n_fft // 2 + 1
    k = torch.arange(bins, dtype=torch.float64)[:, None]
    n = torch.arange(n_fft, dtype=torch.float64)[None, :]
    angle = 2 * math.pi * k * n / n_fft
    # irfft: the bins other than DC and Nyquist stand for their conjugates too
    weight = torch.full((bins, 1), 2.0, dtype=torch.float64)
    weight[0] = 1.0
    if n_fft % 2 == 0:
        weight[-1] = 1.0
    basis = torch.cat([weight * torch.cos(angle), -weight * torch.sin(angle)]) / n_fft
    return (basis * window).float(), window.square().float()


class InverseStft(nn.Module):
    def __init__(self, n_fft: int, hop: int) -> None:
        super().__init__()
        if n_fft % hop:
            raise ValueError("the overlap-add needs n_fft to be a multiple of hop")
        self.n_fft, self.hop = n_fft, hop
        basis, window_squared = _tables(n_fft)
        self.basis: torch.Tensor
        self.window_squared: torch.Tensor
        self.register_buffer("basis", basis, persistent=False)
        self.register_buffer("window_squared", window_squared, persistent=False)

    def _apply(self, fn: Callable[[torch.Tensor], torch.Tensor], recurse: bool = True) -> Any:
        """Moved with the model, but float32 whatever dtype the model is cast to (a
        half-precision model's ``.to(torch.bfloat16)`` would round the tables)."""
        module = super()._apply(fn, recurse)  # type: ignore[no-untyped-call]
        device = self.basis.device
        self.basis, self.window_squared = (t.to(device) for t in _tables(self.n_fft))
        return module

    def _overlap_add(self, frames: torch.Tensor) -> torch.Tensor:
        """[batch, (count + n_fft / hop - 1) * hop] from ``frames`` [batch, count, n_fft]."""
        batch, count, _ = frames.shape
        shifts = self.n_fft // self.hop
        pieces = frames.reshape(batch, count, shifts, self.hop)
        out = frames.new_zeros(batch, count + shifts - 1, self.hop)
        for shift in range(shifts):
            out[:, shift : shift + count] += pieces[:, :, shift]
        return out.reshape(batch, -1)

    def forward(self, real: torch.Tensor, imag: torch.Tensor) -> torch.Tensor:
        """[batch, hop * (frames - 1)] of float32 audio from the spectrum's real and
        imaginary parts, each [batch, n_fft // 2 + 1, frames]: ``torch.istft``'s."""
        spectrum = torch.cat([real, imag], dim=1).float().transpose(1, 2)
        signal = self._overlap_add(spectrum @ self.basis)
        count = spectrum.shape[1]
        envelope = self._overlap_add(self.window_squared.expand(1, count, self.n_fft))
        half = self.n_fft // 2
        end = signal.shape[-1] - half
        return signal[:, half:end] / envelope[:, half:end]
