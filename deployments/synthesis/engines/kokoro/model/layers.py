"""Kokoro's building blocks, written for padded batches.

Every block takes ``mask`` ([batch, 1, time], 1.0 on an item's own frames, 0.0 on
padding) and returns zeros on padding, so that a convolution at an item's end sees
the zeros it would see alone, and instance norms take their statistics over the
item's own frames only: an item's output does not depend on what it was batched
with.

Lengths the host needs (to size a tensor, to order an LSTM's steps) are Python
ints kept on the host; none is read back from the device (on a GPU each read waits
for every kernel queued before it).
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


def on_device(host: torch.Tensor, device: torch.device) -> torch.Tensor:
    """``host`` (a tensor made on the host) on ``device``: on a GPU copied from pinned
    memory without waiting (queued on the current stream, before the kernels that use it)."""
    if device.type != "cuda":
        return host.to(device)
    return host.pin_memory().to(device, non_blocking=True)


def _rolled(steps: int, shifts: list[int], device: torch.device) -> torch.Tensor:
    """[batch, steps] indices: row i's steps turned by ``shifts[i]`` (index (t - s) mod steps)."""
    positions = torch.arange(steps)[None, :]
    return on_device((positions - torch.tensor(shifts)[:, None]) % steps, device)


def bidirectional(lstm: nn.LSTM, x: torch.Tensor, lengths: list[int]) -> torch.Tensor:
    """``lstm`` over [batch, time, features], each item read over its own length only
    (its backward direction starts at its own end); zeros on padding.

    Not packed: ``pack_padded_sequence`` wants the lengths on the host and copies its
    order back to the device with a wait. Instead the forward direction is read from
    the padded batch as it is (padding comes after an item's steps), the backward one
    from a copy with each item turned to the end of its row (padding before its
    steps), both in one call of twice the batch, and the backward outputs turned back."""
    batch, steps = x.shape[0], x.shape[1]
    if all(n == steps for n in lengths):
        whole: torch.Tensor = lstm(x)[0]
        return whole
    shifts = [steps - n for n in lengths]
    to_end = _rolled(steps, shifts, x.device)
    back = _rolled(steps, [-s for s in shifts], x.device)
    ended = x.gather(1, to_end[..., None].expand(-1, -1, x.shape[2]))
    out = lstm(torch.cat([x, ended]))[0]
    hidden = out.shape[2] // 2
    backward = out[batch:, :, hidden:].gather(1, back[..., None].expand(-1, -1, hidden))
    mask = torch.arange(steps)[None, :] < torch.tensor(lengths)[:, None]
    own = on_device(mask[..., None], x.device).to(out.dtype)
    return torch.cat([out[:batch, :, :hidden], backward], dim=2) * own


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
