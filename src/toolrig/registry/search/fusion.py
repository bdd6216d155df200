"""Fusing rankers: a weighted sum of z-scored scores.

Each ranker's scores are centred and scaled over the documents that may be returned, so a word
match and a cosine similarity become comparable; the weights then say how much each ranker is
trusted. On MetaTool this beat reciprocal-rank fusion clearly: ranks throw away how far ahead
the leader is, and with two hundred tools that margin is most of the signal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Vector = npt.NDArray[np.float32]
    Mask = npt.NDArray[np.bool_]
else:
    Vector = Any
    Mask = Any

__all__ = ["fuse", "zscore"]


def zscore(scores: Vector, mask: Mask) -> Vector:
    """``scores`` centred and scaled over the entries where ``mask`` holds (others: 0)."""
    import numpy as np

    out = np.zeros_like(scores)
    picked = scores[mask]
    if picked.size == 0:
        return out
    std = float(picked.std())
    if std <= 1e-12:
        return out
    out[mask] = (picked - float(picked.mean())) / std
    return out


def fuse(scores: Sequence[Vector], weights: Sequence[float], mask: Mask) -> Vector:
    """``sum(weight * zscore(s))`` over the rankers, on the entries where ``mask`` holds."""
    import numpy as np

    total = np.zeros(mask.shape[0], dtype=np.float32)
    for s, w in zip(scores, weights, strict=True):
        if w:
            total += np.float32(w) * zscore(s, mask)
    return total
