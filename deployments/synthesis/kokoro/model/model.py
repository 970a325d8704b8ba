"""Kokoro-82M in torch, for a batch of texts in one forward pass.

Each item has its own tokens, style row and speed; the batch is padded to its
longest item and every stage masks padding (see :mod:`.layers`), so each item's
durations and audio are those it gets alone, to float rounding and the last few
samples at its end. Items come back as their own audio and per-token durations.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import torch
from torch import nn

from deployments.synthesis.kokoro.model.albert import HIDDEN as BERT_HIDDEN
from deployments.synthesis.kokoro.model.albert import VOCAB, Albert
from deployments.synthesis.kokoro.model.decoder import SAMPLES_PER_FRAME, Decoder
from deployments.synthesis.kokoro.model.layers import length_mask
from deployments.synthesis.kokoro.model.predictor import (
    HIDDEN,
    STYLE,
    ProsodyPredictor,
    TextEncoder,
)


@dataclass(frozen=True)
class Spoken:
    """One item's result: its audio (float32, 24 kHz) and frames per token (25 ms each,
    boundary tokens included): those it was spoken with, and those the model predicted
    (the same unless the call gave durations)."""

    audio: torch.Tensor
    durations: torch.Tensor
    predicted: torch.Tensor


class KokoroModel(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.bert = Albert()
        self.bert_encoder = nn.Linear(BERT_HIDDEN, HIDDEN)
        self.predictor = ProsodyPredictor()
        self.text_encoder = TextEncoder(VOCAB)
        self.decoder = Decoder(HIDDEN)

    @classmethod
    def from_state(cls, state: dict[str, torch.Tensor]) -> KokoroModel:
        model = cls()
        model.load_state_dict(state, strict=True)
        return model.eval()

    @classmethod
    def from_file(cls, path: Path) -> KokoroModel:
        from deployments.synthesis.kokoro.model.weights import load

        return cls.from_state(load(path))

    def in_precision(self, dtype: torch.dtype) -> KokoroModel:
        """This model with its decoder in ``dtype`` (float16 or bfloat16 on a GPU).

        The decoder is nearly all of the compute (it runs at audio rates); the text
        side (ALBERT, the text encoder and the prosody predictors, over tokens and
        frames) stays in float32, so durations, and with them word timings, are
        exactly those of float32. Inside the decoder the spectral parts and the
        instance norms' statistics stay in float32 too (see :mod:`.decoder`)."""
        self.decoder.to(dtype)
        return self

    @property
    def device(self) -> torch.device:
        return self.bert_encoder.weight.device

    @property
    def dtype(self) -> torch.dtype:
        return self.bert_encoder.weight.dtype

    @torch.inference_mode()
    def forward(
        self,
        tokens: list[list[int]],
        styles: torch.Tensor,
        speeds: torch.Tensor,
        durations: list[list[int]] | None = None,
    ) -> list[Spoken]:
        """Speak each token list (boundary tokens included) with its style row
        ``styles`` [batch, 256] at its ``speeds`` [batch]; ``durations`` (frames per
        token, each list as long as its tokens) replaces the predicted ones."""
        lengths = torch.tensor([len(t) for t in tokens], device=self.device)
        ids = torch.zeros(len(tokens), int(lengths.max()), dtype=torch.long, device=self.device)
        for i, t in enumerate(tokens):
            ids[i, : len(t)] = torch.tensor(t, device=self.device)
        styles = styles.to(self.device, self.dtype)
        mask = length_mask(lengths, ids.shape[1], self.dtype)

        bert = self.bert(ids, mask)
        d_en = self.bert_encoder(bert).transpose(1, 2) * mask
        prosody_style, decoder_style = styles[:, STYLE:], styles[:, :STYLE]
        d = self.predictor.text_encoder(d_en, prosody_style, lengths, mask)
        raw = self.predictor.durations(d, lengths, speeds.to(self.device, self.dtype))
        predicted = torch.round(raw.float()).clamp(min=1).long() * mask.squeeze(1).long()
        frames_per_token = predicted
        if durations is not None:
            frames_per_token = torch.zeros_like(frames_per_token)
            for i, given in enumerate(durations):
                frames_per_token[i, : len(given)] = torch.tensor(given, device=self.device)
        frames = frames_per_token.sum(-1)

        # alignment [batch, tokens, frames]: token t covers its own run of frames
        ends = frames_per_token.cumsum(-1)
        positions = torch.arange(int(frames.max()), device=self.device)
        alignment = (positions >= (ends - frames_per_token)[..., None]) & (
            positions < ends[..., None]
        )
        alignment = alignment.to(self.dtype)
        frame_mask = length_mask(frames, alignment.shape[-1], self.dtype)

        en = d.transpose(1, 2) @ alignment
        f0, energy = self.predictor.pitch_energy(en, prosody_style, frames, frame_mask)
        asr = self.text_encoder(ids, lengths, mask) @ alignment
        half = self.decoder.dtype
        audio = self.decoder(
            asr.to(half), f0.to(half), energy.to(half), decoder_style.to(half), frame_mask.to(half)
        ).float()
        return [
            Spoken(
                audio[i, : int(frames[i]) * SAMPLES_PER_FRAME],
                frames_per_token[i, : len(t)],
                predicted[i, : len(t)],
            )
            for i, t in enumerate(tokens)
        ]
