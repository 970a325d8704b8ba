"""Kokoro's text side: the phoneme encoder the decoder reads, and the prosody predictor
(durations from the PL-BERT features, then F0 and energy per frame)."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from deployments.synthesis.engines.kokoro.model.layers import (
    LEAK,
    AdainResBlk1d,
    AdaLayerNorm,
    ChannelNorm,
    bidirectional,
)

HIDDEN = 512
STYLE = 128
LAYERS = 3
MAX_DURATION = 50
KERNEL = 5


def _bilstm(inputs: int) -> nn.LSTM:
    return nn.LSTM(inputs, HIDDEN // 2, 1, batch_first=True, bidirectional=True)


class TextEncoder(nn.Module):
    """Phonemes -> [batch, 512, tokens]: embedding, three convolutions, a BiLSTM."""

    def __init__(self, vocab: int) -> None:
        super().__init__()
        self.embedding = nn.Embedding(vocab, HIDDEN)
        self.cnn = nn.ModuleList(
            nn.ModuleList(
                [nn.Conv1d(HIDDEN, HIDDEN, KERNEL, padding=KERNEL // 2), ChannelNorm(HIDDEN)]
            )
            for _ in range(LAYERS)
        )
        self.lstm = _bilstm(HIDDEN)

    def forward(self, tokens: torch.Tensor, lengths: list[int], mask: torch.Tensor) -> torch.Tensor:
        x = self.embedding(tokens).transpose(1, 2) * mask
        for layer in self.cnn:
            conv, norm = layer[0], layer[1]  # type: ignore[index]
            x = F.leaky_relu(norm(conv(x)), LEAK) * mask
        return bidirectional(self.lstm, x.transpose(1, 2), lengths).transpose(1, 2) * mask


class DurationEncoder(nn.Module):
    """BiLSTMs and style-conditioned layer norms, the style appended after each."""

    def __init__(self) -> None:
        super().__init__()
        self.lstms = nn.ModuleList()
        for _ in range(LAYERS):
            self.lstms.append(_bilstm(HIDDEN + STYLE))
            self.lstms.append(AdaLayerNorm(STYLE, HIDDEN))

    def forward(
        self, x: torch.Tensor, style: torch.Tensor, lengths: list[int], mask: torch.Tensor
    ) -> torch.Tensor:
        """[batch, tokens, 640] from PL-BERT's projection ``x`` [batch, 512, tokens]."""
        steps = mask.transpose(1, 2)  # [batch, tokens, 1]
        styles = style[:, None, :].expand(-1, x.shape[2], -1)
        h = torch.cat([x.transpose(1, 2), styles], dim=-1) * steps
        for block in self.lstms:
            if isinstance(block, nn.LSTM):
                h = bidirectional(block, h, lengths)
            else:
                h = torch.cat([block(h, style), styles], dim=-1) * steps
        return h


class LinearNorm(nn.Module):
    def __init__(self, inputs: int, outputs: int) -> None:
        super().__init__()
        self.linear_layer = nn.Linear(inputs, outputs)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.linear_layer(x)
        return out


class ProsodyPredictor(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.text_encoder = DurationEncoder()
        self.lstm = _bilstm(HIDDEN + STYLE)
        self.duration_proj = LinearNorm(HIDDEN, MAX_DURATION)
        self.shared = _bilstm(HIDDEN + STYLE)
        half = HIDDEN // 2
        self.F0 = nn.ModuleList(
            [
                AdainResBlk1d(HIDDEN, HIDDEN, STYLE),
                AdainResBlk1d(HIDDEN, half, STYLE, upsample=True),
                AdainResBlk1d(half, half, STYLE),
            ]
        )
        self.N = nn.ModuleList(
            [
                AdainResBlk1d(HIDDEN, HIDDEN, STYLE),
                AdainResBlk1d(HIDDEN, half, STYLE, upsample=True),
                AdainResBlk1d(half, half, STYLE),
            ]
        )
        self.F0_proj = nn.Conv1d(half, 1, 1)
        self.N_proj = nn.Conv1d(half, 1, 1)

    def durations(self, d: torch.Tensor, lengths: list[int], speed: torch.Tensor) -> torch.Tensor:
        """Frames per token, [batch, tokens] (float, before rounding), from the duration
        encoder's output ``d``; ``speed`` [batch] divides them."""
        x = bidirectional(self.lstm, d, lengths)
        return torch.sigmoid(self.duration_proj(x)).sum(-1) / speed[:, None]

    def pitch_energy(
        self, en: torch.Tensor, style: torch.Tensor, frames: list[int], mask: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """F0 and energy curves [batch, 2 * frames] from the aligned features ``en``
        [batch, 640, frames]; zeros past each item's frames."""
        x = bidirectional(self.shared, en.transpose(1, 2), frames).transpose(1, 2)
        curves = []
        for blocks, proj in ((self.F0, self.F0_proj), (self.N, self.N_proj)):
            h, m = x, mask
            for block in blocks:
                h, m = block(h, style, m)
            curves.append((proj(h) * m).squeeze(1))
        return curves[0], curves[1]
