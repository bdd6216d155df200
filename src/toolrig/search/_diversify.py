"""Near-duplicates apart: maximal marginal relevance over the best candidates.

Several endpoints of one API ("list users", "list user groups", "list user roles") can fill
the top k, pushing out the other tools a request needs. The candidates are taken best first;
each one's score is lowered by ``weight`` times the request's lead times how far its
similarity to the closest one already taken exceeds ``threshold`` (as a share of the rest of
the way to 1), so only near-duplicates are pushed down, and only as far as that.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]
else:
    Matrix = Any

__all__ = ["diversify"]


def diversify(
    order: Any,
    scores: Any,
    vectors: Matrix,
    *,
    weight: float,
    lead: float,
    threshold: float,
    picks: int | None = None,
) -> list[int]:
    """``order`` (slots, best first, with their ``scores`` and unit ``vectors``) re-ranked
    by maximal marginal relevance; after ``picks`` picks (all by default), the rest follow
    by their scores as lowered so far."""
    import numpy as np

    count = len(order)
    if count < 2 or weight <= 0:
        return [int(i) for i in order]
    similar = vectors @ vectors.T
    penalty = np.zeros(count, dtype=np.float32)
    left = np.ones(count, dtype=bool)
    scale = np.float32(weight * lead / max(1.0 - threshold, 1e-6))
    picked: list[int] = []
    for _ in range(count if picks is None else min(picks, count)):
        adjusted = np.where(left, scores - scale * penalty, -np.inf)
        best = int(np.argmax(adjusted))
        picked.append(best)
        left[best] = False
        penalty = np.maximum(penalty, np.maximum(similar[best] - threshold, 0.0))
    rest = np.flatnonzero(left)
    picked.extend(rest[np.argsort(-(scores[rest] - scale * penalty[rest]), kind="stable")].tolist())
    return [int(order[i]) for i in picked]
