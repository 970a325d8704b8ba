"""Kokoro-82M in torch, for a batch of texts in one forward pass.

Each item has its own tokens, style row and speed; the batch is padded to its
longest item and every stage masks padding (see :mod:`.layers`), so each item's
durations and audio are those it gets alone, to float rounding and the last few
samples at its end. Items come back as their own audio and per-token durations.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import nn

from deployments.synthesis.engines.kokoro.model.albert import HIDDEN as BERT_HIDDEN
from deployments.synthesis.engines.kokoro.model.albert import VOCAB, Albert
from deployments.synthesis.engines.kokoro.model.decoder import SAMPLES_PER_FRAME, Decoder
from deployments.synthesis.engines.kokoro.model.layers import length_mask, on_device
from deployments.synthesis.engines.kokoro.model.predictor import (
    HIDDEN,
    STYLE,
    ProsodyPredictor,
    TextEncoder,
)
from deployments.synthesis.engines.kokoro.model.shapes import PAD_ITEM, Buckets

Decode = Callable[..., torch.Tensor]


@dataclass(frozen=True)
class Launched:
    """A batch whose forward pass is queued on the device: its ``audio`` [batch,
    samples] (float32, on the device, complete once the device has run the queue),
    and per item its frames per token as spoken and as predicted (on the host) and
    the samples of its own audio (the rest of its row is padding)."""

    audio: torch.Tensor
    durations: list[torch.Tensor]
    predicted: list[torch.Tensor]
    samples: list[int]

    def spoken(self) -> list[Spoken]:
        return [
            Spoken(self.audio[i, :n], d, p)
            for i, (n, d, p) in enumerate(
                zip(self.samples, self.durations, self.predicted, strict=True)
            )
        ]


@dataclass(frozen=True)
class Spoken:
    """One item's result: its audio (float32, 24 kHz, on the model's device) and frames
    per token (25 ms each, boundary tokens included; on the host): those it was spoken
    with, and those the model predicted (the same unless the call gave durations)."""

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
        # where set, batches are padded to these shapes (a compiled decoder's)
        self.buckets: Buckets | None = None
        self._decode: Decode | None = None  # the decoder compiled, where it is

    def compile_decoder(self, mode: str, buckets: Buckets | None) -> None:
        """Run the decoder compiled by ``torch.compile`` (``mode``: ``"default"`` fuses
        its kernels; ``"reduce-overhead"`` also records a CUDA graph per shape: give
        ``buckets`` so that shapes are few). Compiled once for any shape (dynamic), at
        its first call; :meth:`eager` undoes it."""
        self._decode = torch.compile(self.decoder.forward, mode=mode, dynamic=True)
        self.buckets = buckets

    def eager(self) -> None:
        """The decoder as written again, shapes unpadded (a compile that failed)."""
        self._decode, self.buckets = None, None

    @property
    def compiled(self) -> bool:
        return self._decode is not None

    @classmethod
    def from_state(cls, state: dict[str, torch.Tensor]) -> KokoroModel:
        model = cls()
        model.load_state_dict(state, strict=True)
        return model.eval()

    @classmethod
    def from_file(cls, path: Path) -> KokoroModel:
        from deployments.synthesis.engines.kokoro.model.weights import load

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
        return self.launch(tokens, styles, speeds, durations).spoken()

    @torch.inference_mode()
    def launch(
        self,
        tokens: list[list[int]],
        styles: torch.Tensor,
        speeds: torch.Tensor,
        durations: list[list[int]] | None = None,
    ) -> Launched:
        """:meth:`forward`'s pass, queued on the device: it returns once the decoder's
        kernels are queued, having waited for the device once, for the durations
        that size the decoder (:func:`read_back`). ``styles`` and ``speeds`` may be
        on the host; inputs go to the device without waiting."""
        device, dtype = self.device, self.dtype
        real = len(tokens)
        if self.buckets is not None:  # rows that fill the batch's size, dropped after
            extra = Buckets.up(real, self.buckets.batch) - real
            tokens = [*tokens, *[PAD_ITEM] * extra]
            styles = torch.cat([styles, styles[:1].expand(extra, -1)])
            speeds = torch.cat([speeds, speeds[:1].expand(extra)])
        counts = [len(t) for t in tokens]
        width = self._size(max(counts), "tokens")
        ids = torch.zeros(len(tokens), width, dtype=torch.long)
        for i, t in enumerate(tokens):
            ids[i, : len(t)] = torch.tensor(t, dtype=torch.long)
        ids = on_device(ids, device)
        mask = length_mask(on_device(torch.tensor(counts), device), width, dtype)
        styles = on_device(styles, device).to(dtype)
        prosody_style, decoder_style = styles[:, STYLE:], styles[:, :STYLE]

        bert = self.bert(ids, mask, padded=min(counts) < width)
        d_en = self.bert_encoder(bert).transpose(1, 2) * mask
        d = self.predictor.text_encoder(d_en, prosody_style, counts, mask)
        raw = self.predictor.durations(d, counts, on_device(speeds, device).to(dtype))
        predicted = torch.round(raw.float()).clamp(min=1).long() * mask.squeeze(1).long()
        guessed = read_back(predicted)  # the one wait: what sizes the decoder
        given = durations if durations is not None else guessed
        per_token = [
            (list(given[i][:n]) if i < real else [1] * n) + [0] * (width - n)
            for i, n in enumerate(counts)
        ]
        frames = [sum(row) for row in per_token]
        frame_width = self._size(max(frames), "frames")
        frames_per_token = on_device(torch.tensor(per_token, dtype=torch.long), device)

        # alignment [batch, tokens, frames]: token t covers its own run of frames
        ends = frames_per_token.cumsum(-1)
        positions = torch.arange(frame_width, device=device)
        alignment = (positions >= (ends - frames_per_token)[..., None]) & (
            positions < ends[..., None]
        )
        alignment = alignment.to(dtype)
        frame_mask = length_mask(on_device(torch.tensor(frames), device), frame_width, dtype)

        en = d.transpose(1, 2) @ alignment
        f0, energy = self.predictor.pitch_energy(en, prosody_style, frames, frame_mask)
        asr = self.text_encoder(ids, counts, mask) @ alignment
        half = self.decoder.dtype
        decode = self._decode or self.decoder
        audio = decode(
            asr.to(half), f0.to(half), energy.to(half), decoder_style.to(half), frame_mask.to(half)
        ).float()
        return Launched(
            audio[:real],
            [torch.tensor(row[:n]) for row, n in zip(per_token[:real], counts, strict=False)],
            [torch.tensor(row[:n]) for row, n in zip(guessed[:real], counts, strict=False)],
            [n * SAMPLES_PER_FRAME for n in frames[:real]],
        )

    def _size(self, size: int, axis: str) -> int:
        """``size`` (tokens or frames) padded up to its bucket, where batches are padded."""
        if self.buckets is None:
            return size
        sizes: tuple[int, ...] = getattr(self.buckets, axis)
        return Buckets.up(size, sizes)


def read_back(tensor: torch.Tensor) -> list[list[int]]:
    """``tensor``'s values on the host: the one read of the device a forward pass makes
    (it waits for every kernel queued before it)."""
    values: list[list[int]] = tensor.cpu().tolist()
    return values
