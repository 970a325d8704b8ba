"""Kokoro's building blocks, written for padded batches.

Every block takes ``mask`` ([batch, 1, time], 1.0 on an item's own frames, 0.0 on
padding) and returns zeros on padding, so that a convolution at an item's end sees
the zeros it would see alone, and instance norms take their statistics over the
item's own frames only: an item's output does not depend on what it was batched
with.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

LEAK = 0.2


def length_mask(lengths: torch.Tensor, size: int, dtype: torch.dtype) -> torch.Tensor:
    """[batch, 1, size]: 1.0 where the position is below the item's length."""
    positions = torch.arange(size, device=lengths.device)
    return (positions[None, :] < lengths[:, None]).unsqueeze(1).to(dtype)


def bidirectional(lstm: nn.LSTM, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """``lstm`` over [batch, time, features], each item read over its own length only
    (its backward direction starts at its own end); zeros on padding."""
    if bool((lengths == x.shape[1]).all()):
        whole: torch.Tensor = lstm(x)[0]
        return whole
    packed = nn.utils.rnn.pack_padded_sequence(
        x, lengths.cpu(), batch_first=True, enforce_sorted=False
    )
    out, _ = lstm(packed)
    padded: torch.Tensor = nn.utils.rnn.pad_packed_sequence(
        out, batch_first=True, total_length=x.shape[1]
    )[0]
    return padded


class ChannelNorm(nn.Module):
    """Layer norm over the channels of [batch, channels, time] (StyleTTS 2's LayerNorm)."""

    def __init__(self, channels: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.gamma = nn.Parameter(torch.ones(channels))
        self.beta = nn.Parameter(torch.zeros(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.layer_norm(x.transpose(1, 2), x.shape[1:2], self.gamma, self.beta, self.eps)
        return y.transpose(1, 2)


class AdaLayerNorm(nn.Module):
    """Layer norm over the last axis, scaled and shifted by the style."""

    def __init__(self, style_dim: int, channels: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.fc = nn.Linear(style_dim, channels * 2)

    def forward(self, x: torch.Tensor, style: torch.Tensor) -> torch.Tensor:
        gamma, beta = self.fc(style).unsqueeze(1).chunk(2, dim=-1)
        out: torch.Tensor = (1 + gamma) * F.layer_norm(x, x.shape[-1:], eps=self.eps) + beta
        return out


class AdaIN1d(nn.Module):
    """Instance norm over each item's own frames, scaled and shifted by the style."""

    def __init__(self, style_dim: int, channels: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.fc = nn.Linear(style_dim, channels * 2)

    def forward(self, x: torch.Tensor, style: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        # statistics in float32 whatever the model's dtype: summed over thousands of
        # samples, squares overflow float16 and lose their digits in bfloat16
        full, mask32 = x.float(), mask.float()
        frames = mask32.sum(-1, keepdim=True)
        mean = (full * mask32).sum(-1, keepdim=True) / frames
        centred = (full - mean) * mask32
        var = centred.square().sum(-1, keepdim=True) / frames
        gamma, beta = self.fc(style).float().unsqueeze(-1).chunk(2, dim=1)
        out = ((1 + gamma) * centred * torch.rsqrt(var + self.eps) + beta) * mask32
        normed: torch.Tensor = out.to(x.dtype)
        return normed


class AdainResBlk1d(nn.Module):
    """StyleTTS 2's style-conditioned residual block; ``upsample`` doubles its frames."""

    def __init__(self, dim_in: int, dim_out: int, style_dim: int, upsample: bool = False) -> None:
        super().__init__()
        self.upsample = upsample
        self.conv1 = nn.Conv1d(dim_in, dim_out, 3, padding=1)
        self.conv2 = nn.Conv1d(dim_out, dim_out, 3, padding=1)
        self.norm1 = AdaIN1d(style_dim, dim_in)
        self.norm2 = AdaIN1d(style_dim, dim_out)
        self.conv1x1 = nn.Conv1d(dim_in, dim_out, 1, bias=False) if dim_in != dim_out else None
        self.pool = (
            nn.ConvTranspose1d(dim_in, dim_in, 3, 2, groups=dim_in, padding=1, output_padding=1)
            if upsample
            else None
        )

    def forward(
        self, x: torch.Tensor, style: torch.Tensor, mask: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """The block's output and its mask (twice as long when it upsamples)."""
        out_mask = mask.repeat_interleave(2, dim=-1) if self.upsample else mask
        r = F.leaky_relu(self.norm1(x, style, mask), LEAK)
        if self.pool is not None:
            r = self.pool(r) * out_mask
        r = self.conv1(r) * out_mask
        r = F.leaky_relu(self.norm2(r, style, out_mask), LEAK)
        r = self.conv2(r)
        shortcut = F.interpolate(x, scale_factor=2.0, mode="nearest") if self.upsample else x
        if self.conv1x1 is not None:
            shortcut = self.conv1x1(shortcut)
        return (r + shortcut) * out_mask * (1 / math.sqrt(2)), out_mask
