"""The shapes a batch is padded up to, where the decoder runs compiled: a few sizes of
batch, tokens and frames (each about 1.25-1.5x the one before), so that a compiled or
graph-captured decoder meets a bounded set of shapes, each prepared once, instead of
one per batch. Padding costs compute (at most the step between two sizes), so a batch
is padded only where the model is told to (:attr:`.model.KokoroModel.buckets`).

Rows added to fill a batch size speak two boundary tokens for a frame each and are
dropped from the result; every stage masks padding, so a real item's audio is what
it is unpadded, within the batch bound (tested).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

PAD_ITEM = [0, 0]  # a row that fills a batch: the boundary tokens alone


def ladder(first: int, last: int, step: float, multiple: int) -> tuple[int, ...]:
    """Sizes from ``first`` to ``last``, each ``step`` times the one before at least,
    rounded up to a ``multiple`` (but the last)."""
    sizes = [first]
    while sizes[-1] < last:
        grown = max(sizes[-1] + 1, int(sizes[-1] * step))
        sizes.append(min(-(-grown // multiple) * multiple, last))
    return tuple(sizes)


@dataclass(frozen=True)
class Buckets:
    batch: tuple[int, ...] = (1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256)
    tokens: tuple[int, ...] = ladder(16, 512, 1.5, 16)
    frames: tuple[int, ...] = ladder(64, 8192, 1.25, 32)

    @staticmethod
    def up(size: int, sizes: tuple[int, ...]) -> int:
        """The smallest of ``sizes`` that holds ``size``; ``size`` itself past the last."""
        i = bisect.bisect_left(sizes, size)
        return sizes[i] if i < len(sizes) else size
