"""PL-BERT, Kokoro's phoneme-level ALBERT: one transformer layer applied twelve times.

Parameter names follow ``transformers``' ALBERT (``embeddings``,
``encoder.albert_layer_groups.0.albert_layers.0``), so the original checkpoint
loads as it is; padding tokens are masked out of attention.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

VOCAB = 178
EMBEDDING = 128
HIDDEN = 768
HEADS = 12
FFN = 2048
LAYERS = 12
POSITIONS = 512
EPS = 1e-12


class Embeddings(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.word_embeddings = nn.Embedding(VOCAB, EMBEDDING)
        self.position_embeddings = nn.Embedding(POSITIONS, EMBEDDING)
        self.token_type_embeddings = nn.Embedding(2, EMBEDDING)
        self.LayerNorm = nn.LayerNorm(EMBEDDING, eps=EPS)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(tokens.shape[1], device=tokens.device)
        x = self.word_embeddings(tokens) + self.position_embeddings(positions)[None]
        out: torch.Tensor = self.LayerNorm(x + self.token_type_embeddings.weight[0])
        return out


class Attention(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.query = nn.Linear(HIDDEN, HIDDEN)
        self.key = nn.Linear(HIDDEN, HIDDEN)
        self.value = nn.Linear(HIDDEN, HIDDEN)
        self.dense = nn.Linear(HIDDEN, HIDDEN)
        self.LayerNorm = nn.LayerNorm(HIDDEN, eps=EPS)

    def forward(self, x: torch.Tensor, attend: torch.Tensor | None) -> torch.Tensor:
        batch, time, _ = x.shape

        def heads(t: torch.Tensor) -> torch.Tensor:
            return t.view(batch, time, HEADS, HIDDEN // HEADS).transpose(1, 2)

        context = F.scaled_dot_product_attention(
            heads(self.query(x)), heads(self.key(x)), heads(self.value(x)), attn_mask=attend
        )
        context = context.transpose(1, 2).reshape(batch, time, HIDDEN)
        out: torch.Tensor = self.LayerNorm(x + self.dense(context))
        return out


class Layer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.attention = Attention()
        self.ffn = nn.Linear(HIDDEN, FFN)
        self.ffn_output = nn.Linear(FFN, HIDDEN)
        self.full_layer_layer_norm = nn.LayerNorm(HIDDEN, eps=EPS)

    def forward(self, x: torch.Tensor, attend: torch.Tensor | None) -> torch.Tensor:
        x = self.attention(x, attend)
        hidden = self.ffn_output(F.gelu(self.ffn(x), approximate="tanh"))
        out: torch.Tensor = self.full_layer_layer_norm(x + hidden)
        return out


class LayerGroup(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.albert_layers = nn.ModuleList([Layer()])


class Encoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embedding_hidden_mapping_in = nn.Linear(EMBEDDING, HIDDEN)
        self.albert_layer_groups = nn.ModuleList([LayerGroup()])


class Albert(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embeddings = Embeddings()
        self.encoder = Encoder()

    def forward(
        self, tokens: torch.Tensor, mask: torch.Tensor, padded: bool = True
    ) -> torch.Tensor:
        """[batch, time, 768] for ``tokens`` [batch, time]; ``mask`` [batch, 1, time]
        (1.0 on tokens) keeps padding out of every token's attention where the batch
        is ``padded`` (the caller knows: reading the mask would wait for the device)."""
        attend = mask.bool().unsqueeze(1) if padded else None  # [batch, 1, 1, time]
        x = self.encoder.embedding_hidden_mapping_in(self.embeddings(tokens))
        group = self.encoder.albert_layer_groups[0]
        assert isinstance(group, LayerGroup)
        layer = group.albert_layers[0]
        assert isinstance(layer, Layer)
        for _ in range(LAYERS):
            x = layer(x, attend)
        out: torch.Tensor = x
        return out
