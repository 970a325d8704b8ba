"""The generator's inverse STFT against torch's own."""

from __future__ import annotations

import pytest
import torch

from deployments.synthesis.engines.kokoro.model.decoder import HOP, N_FFT
from deployments.synthesis.engines.kokoro.model.inverse_stft import InverseStft


@pytest.mark.parametrize(
    ("n_fft", "hop", "frames"),
    [(N_FFT, HOP, 2), (N_FFT, HOP, 301), (16, 4, 57), (12, 3, 40)],
)
def test_it_equals_torch_istft(n_fft: int, hop: int, frames: int) -> None:
    generator = torch.Generator().manual_seed(frames)
    bins = n_fft // 2 + 1
    # log-magnitudes and phases as the generator makes them, over a batch of three
    magnitude = torch.exp(torch.randn(3, bins, frames, generator=generator))
    phase = torch.sin(torch.randn(3, bins, frames, generator=generator)) * 3
    window = torch.hann_window(n_fft)
    expected = torch.istft(
        torch.polar(magnitude, phase), n_fft, hop, n_fft, window=window, center=True
    )
    ours = InverseStft(n_fft, hop)(magnitude * torch.cos(phase), magnitude * torch.sin(phase))
    assert ours.dtype == torch.float32 and ours.shape == expected.shape
    scale = float(expected.abs().max())
    assert float((ours - expected).abs().max()) <= 1e-5 * max(1.0, scale)


def test_the_hop_must_divide_the_frame() -> None:
    with pytest.raises(ValueError, match="multiple of hop"):
        InverseStft(20, 6)


def test_its_tables_stay_float32_in_a_half_precision_model() -> None:
    istft = InverseStft(N_FFT, HOP).to(torch.bfloat16)
    assert istft.basis.dtype == istft.window_squared.dtype == torch.float32
    assert torch.equal(istft.basis, InverseStft(N_FFT, HOP).basis)
