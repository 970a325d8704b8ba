"""Kokoro's decoder: aligned phoneme features, F0 and energy -> 24 kHz audio through
StyleTTS 2's residual blocks and an iSTFTNet generator (two transposed-convolution
upsamplings by 10 and 6, snake-activated residual blocks, and an inverse STFT of
hop 5), driven by a harmonic source built from the F0 curve.

The inverse STFT is :class:`.inverse_stft.InverseStft`: ``torch.istft``'s result
without its check, which waits for the device.

The source is deterministic (no random initial phases, no additive noise), as in
the ONNX export the service ships, so torch and ONNX can be compared sample for
sample and a batched item equals the item alone.

In a half-precision model (bfloat16 or float16) the spectral parts stay in float32:
the harmonic source, the STFT of it and the inverse STFT with its exponential.
FFTs have no half-precision kernels on the CPU, and on CUDA only for power-of-two
sizes (the STFT here is 20 points); the exponential of a log-magnitude overflows
float16 above ~11; and the source's phase needs the precision anyway. The layers
between them run in the model's dtype.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from deployments.synthesis.engines.kokoro.model.inverse_stft import InverseStft
from deployments.synthesis.engines.kokoro.model.layers import AdaIN1d, AdainResBlk1d, length_mask

SAMPLE_RATE = 24_000
STYLE = 128
UPSAMPLE_RATES = (10, 6)
UPSAMPLE_KERNELS = (20, 12)
RESBLOCK_KERNELS = (3, 7, 11)
DILATIONS = (1, 3, 5)
INITIAL_CHANNELS = 512
N_FFT = 20
HOP = 5
HARMONICS = 9  # the fundamental and 8 overtones
SINE_AMP = 0.1
VOICED_HZ = 10.0
# Audio samples per frame of the F0 curve (which runs at twice the token-frame rate).
SOURCE_UPSAMPLE = math.prod(UPSAMPLE_RATES) * HOP
SAMPLES_PER_FRAME = 2 * SOURCE_UPSAMPLE  # 600: one duration frame is 25 ms


def _snake(x: torch.Tensor, alpha: torch.Tensor) -> torch.Tensor:
    return x + (1 / alpha) * torch.sin(alpha * x).square()


class AdaINResBlock1(nn.Module):
    """The generator's residual block: three dilated convolutions, snake activations."""

    def __init__(self, channels: int, kernel: int) -> None:
        super().__init__()
        self.convs1 = nn.ModuleList(
            nn.Conv1d(channels, channels, kernel, dilation=d, padding=d * (kernel - 1) // 2)
            for d in DILATIONS
        )
        self.convs2 = nn.ModuleList(
            nn.Conv1d(channels, channels, kernel, padding=(kernel - 1) // 2) for _ in DILATIONS
        )
        self.adain1 = nn.ModuleList(AdaIN1d(STYLE, channels) for _ in DILATIONS)
        self.adain2 = nn.ModuleList(AdaIN1d(STYLE, channels) for _ in DILATIONS)
        self.alpha1 = nn.ParameterList(nn.Parameter(torch.ones(1, channels, 1)) for _ in DILATIONS)
        self.alpha2 = nn.ParameterList(nn.Parameter(torch.ones(1, channels, 1)) for _ in DILATIONS)

    def forward(self, x: torch.Tensor, style: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        for c1, c2, n1, n2, a1, a2 in zip(
            self.convs1,
            self.convs2,
            self.adain1,
            self.adain2,
            self.alpha1,
            self.alpha2,
            strict=True,
        ):
            h = c1(_snake(n1(x, style, mask), a1)) * mask
            h = c2(_snake(n2(h, style, mask), a2)) * mask
            x = x + h
        return x


class SourceModule(nn.Module):
    """The harmonic source: sines at F0 and its overtones, merged by a linear layer."""

    def __init__(self) -> None:
        super().__init__()
        self.l_linear = nn.Linear(HARMONICS, 1)

    def forward(self, f0: torch.Tensor) -> torch.Tensor:
        """[batch, samples] of float32 source for ``f0`` [batch, frames] (Hz, 0 on
        padding), whatever the model's dtype."""
        # in float64: the running phase reaches ~1e5 radians in a long sentence, where
        # float32 keeps three decimals and an item's source would depend on its batch
        harmonics = torch.arange(1, HARMONICS + 1, device=f0.device, dtype=torch.float64)
        per_frame = f0.double()[:, None, :] * harmonics[None, :, None] / SAMPLE_RATE
        rad = per_frame - torch.floor(per_frame)  # [batch, 9, frames]
        # each frame's phase advance (its samples', summed), spread back over the
        # samples linearly: one cumulative sum per frame, not per sample
        phase = torch.cumsum(rad, dim=-1) * (2 * math.pi * SOURCE_UPSAMPLE)
        phase = F.interpolate(phase, scale_factor=float(SOURCE_UPSAMPLE), mode="linear")
        voiced = (f0 > VOICED_HZ).repeat_interleave(SOURCE_UPSAMPLE, dim=-1)
        sines = (torch.sin(phase) * SINE_AMP).float() * voiced[:, None, :]
        weight, bias = self.l_linear.weight.float(), self.l_linear.bias.float()
        return torch.tanh(F.linear(sines.transpose(1, 2), weight, bias)).squeeze(-1)


class Generator(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.m_source = SourceModule()
        self.ups = nn.ModuleList()
        self.resblocks = nn.ModuleList()
        self.noise_convs = nn.ModuleList()
        self.noise_res = nn.ModuleList()
        channels = INITIAL_CHANNELS
        for i, (rate, kernel) in enumerate(zip(UPSAMPLE_RATES, UPSAMPLE_KERNELS, strict=True)):
            channels //= 2
            self.ups.append(
                nn.ConvTranspose1d(
                    channels * 2, channels, kernel, rate, padding=(kernel - rate) // 2
                )
            )
            self.resblocks.extend(AdaINResBlock1(channels, k) for k in RESBLOCK_KERNELS)
            if i + 1 < len(UPSAMPLE_RATES):
                stride = math.prod(UPSAMPLE_RATES[i + 1 :])
                self.noise_convs.append(
                    nn.Conv1d(N_FFT + 2, channels, stride * 2, stride, padding=(stride + 1) // 2)
                )
                self.noise_res.append(AdaINResBlock1(channels, 7))
            else:
                self.noise_convs.append(nn.Conv1d(N_FFT + 2, channels, 1))
                self.noise_res.append(AdaINResBlock1(channels, 11))
        self.conv_post = nn.Conv1d(channels, N_FFT + 2, 7, padding=3)
        self.window: torch.Tensor
        self.register_buffer("window", torch.hann_window(N_FFT), persistent=False)
        self.istft = InverseStft(N_FFT, HOP)

    def forward(
        self, x: torch.Tensor, style: torch.Tensor, f0: torch.Tensor, mask: torch.Tensor
    ) -> torch.Tensor:
        """[batch, samples] of audio from features ``x`` [batch, 512, frames] and ``f0``
        [batch, frames] (both at the F0 curve's rate, ``mask`` marking each item's)."""
        frames = mask.sum(-1).squeeze(1).long()
        window = self.window.float()
        source = self.m_source(f0)
        spectrum = torch.stft(
            source, N_FFT, HOP, N_FFT, window=window, center=True, return_complex=True
        )
        harmonic = torch.cat([spectrum.abs(), spectrum.angle()], dim=1).to(x.dtype)
        harmonic = harmonic * length_mask(
            frames * (SOURCE_UPSAMPLE // HOP) + 1, harmonic.shape[-1], x.dtype
        )
        scale, kernels, size = 1, len(RESBLOCK_KERNELS), x.shape[-1]
        for i, up in enumerate(self.ups):
            scale *= UPSAMPLE_RATES[i]
            # the last upsampling is padded by one frame on the left, as the source's STFT is
            # (an int: a compiled decoder's sizes are symbols, and a symbol plus a bool fails)
            last = int(i == len(self.ups) - 1)
            m = length_mask(frames * scale + last, size * scale + last, x.dtype)
            src = self.noise_res[i](self.noise_convs[i](harmonic) * m, style, m)
            x = up(F.leaky_relu(x, 0.1))
            if last:
                x = F.pad(x, (1, 0), mode="reflect")
            x = (x + src) * m
            blocks = self.resblocks[i * kernels : (i + 1) * kernels]
            x = sum((block(x, style, m) for block in blocks), torch.zeros_like(x)) / kernels
        x = (self.conv_post(F.leaky_relu(x)) * m).float()
        bins = N_FFT // 2 + 1
        magnitude = torch.exp(x[:, :bins]) * m.float()
        phase = torch.sin(x[:, bins:])
        audio: torch.Tensor = self.istft(magnitude * torch.cos(phase), magnitude * torch.sin(phase))
        return audio


class Decoder(nn.Module):
    def __init__(self, hidden: int = 512) -> None:
        super().__init__()
        self.encode = AdainResBlk1d(hidden + 2, 1024, STYLE)
        self.decode = nn.ModuleList(
            [
                AdainResBlk1d(1024 + 2 + 64, 1024, STYLE),
                AdainResBlk1d(1024 + 2 + 64, 1024, STYLE),
                AdainResBlk1d(1024 + 2 + 64, 1024, STYLE),
                AdainResBlk1d(1024 + 2 + 64, 512, STYLE, upsample=True),
            ]
        )
        self.F0_conv = nn.Conv1d(1, 1, 3, 2, padding=1)
        self.N_conv = nn.Conv1d(1, 1, 3, 2, padding=1)
        self.asr_res = nn.Sequential(nn.Conv1d(hidden, 64, 1))
        self.generator = Generator()

    @property
    def dtype(self) -> torch.dtype:
        return self.F0_conv.weight.dtype

    def forward(
        self,
        asr: torch.Tensor,
        f0: torch.Tensor,
        energy: torch.Tensor,
        style: torch.Tensor,
        mask: torch.Tensor,
    ) -> torch.Tensor:
        """[batch, samples] from aligned features ``asr`` [batch, 512, frames] and the
        curves [batch, 2 * frames]; ``mask`` [batch, 1, frames] marks each item's."""
        f0_down = self.F0_conv(f0[:, None]) * mask
        energy_down = self.N_conv(energy[:, None]) * mask
        x, _ = self.encode(torch.cat([asr, f0_down, energy_down], dim=1), style, mask)
        residual = self.asr_res(asr) * mask
        for block in self.decode:
            x, mask = block(torch.cat([x, residual, f0_down, energy_down], dim=1), style, mask)
        audio: torch.Tensor = self.generator(x, style, f0, mask)
        return audio
