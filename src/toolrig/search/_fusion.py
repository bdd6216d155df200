"""Fusing rankers: a weighted sum of z-scored scores, then the parts of a request.

Each ranker's scores are centred and scaled over the documents that may be returned, so a word
match and a cosine similarity become comparable; the weights then say how much each ranker is
trusted. On MetaTool this beat reciprocal-rank fusion clearly: ranks throw away how far ahead
the leader is, and with two hundred tools that margin is most of the signal.

Scores come as one row per query text: the whole request first, then its parts (see
`.segments`). `combine_parts` lets each document add its best row, so every part
of a request that asks for two things brings its own tool near the top.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]
    Mask = npt.NDArray[np.bool_]
else:
    Matrix = Any
    Mask = Any

__all__ = ["combine_parts", "fuse", "zscore"]


def zscore(scores: Matrix, mask: Mask) -> Matrix:
    """Each row of ``scores`` centred and scaled over the columns where ``mask`` holds
    (others: 0); a 1-D array is one row."""
    import numpy as np

    if mask.all():  # the usual case: no filter, no removed slot; no copies by mask
        return _standardised(np, scores)
    out = np.zeros_like(scores)
    picked = scores[..., mask]
    if picked.shape[-1] == 0:
        return out
    out[..., mask] = _standardised(np, picked)
    return out


def _standardised(np: Any, scores: Matrix) -> Matrix:
    """``(scores - mean) / std`` along the last axis, in float32 and in three passes (0 for a
    flat row); every search runs this several times over the whole catalogue."""
    centred = scores.astype(np.float32) - scores.mean(axis=-1, keepdims=True, dtype=np.float32)
    std = np.sqrt(np.einsum("...i,...i->...", centred, centred) / max(scores.shape[-1], 1))
    std = std[..., None]
    flat = std <= 1e-12
    centred /= np.where(flat, np.float32(1.0), std).astype(np.float32)
    if flat.any():
        centred = np.where(flat, np.float32(0.0), centred)
    return centred  # type: ignore[no-any-return]


def fuse(scores: Sequence[Matrix], weights: Sequence[float], mask: Mask) -> Matrix:
    """``sum(weight * zscore(s))`` over the rankers, on the columns where ``mask`` holds."""
    import numpy as np

    total = np.zeros(np.broadcast_shapes(*(s.shape for s in scores)), dtype=np.float32)
    for s, w in zip(scores, weights, strict=True):
        if w:
            total += np.float32(w) * zscore(s, mask)
    return total


def combine_parts(rows: Matrix, part_weight: float) -> Matrix:
    """One score per document from row 0 (the whole request) and the part rows:
    ``whole + part_weight * max(whole, best part)``; just ``whole`` without parts."""
    import numpy as np

    whole = rows[0]
    if rows.shape[0] == 1 or not part_weight:
        out: Matrix = whole
        return out
    best = np.maximum(whole, rows[1:].max(axis=0))
    combined: Matrix = whole + np.float32(part_weight) * best
    return combined
