"""``SearchHit`` and turning scores into hits: the best ``k`` actions or tools, with
near-duplicates optionally moved down (see `.diversify`)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from toolrig.search._diversify import diversify
from toolrig.search._documents import ActionDocument

__all__ = ["SearchHit", "hits_of", "top_hits"]

Spread = tuple[Callable[[Any], Any], float, float]
"""How to diversify: vectors of slots, weight, near-duplicate threshold."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchHit:
    """One ranked action."""

    name: str
    """The name to call it by: ``tool`` or ``tool.action``."""
    tool: str
    action: str
    score: float


def top_hits(
    total: Any,
    docs: Sequence[ActionDocument | None],
    k: int,
    group: str,
    spread: Spread | None = None,
) -> list[SearchHit]:
    """The ``k`` best hits of ``total`` (one score per slot, ``-inf`` where none may be
    returned); with ``spread``, the best few candidates are diversified first."""
    import numpy as np

    count = int(np.isfinite(total).sum())
    want = min(count, k if group == "action" else 4 * k + 16)
    if spread is not None:
        want = min(count, max(want, 3 * k + 10))
    while True:
        if want >= count:
            order = np.argsort(-total, kind="stable")[:count]
        else:
            part = np.argpartition(-total, want)[:want]
            order = part[np.argsort(-total[part], kind="stable")]
        ranked = [(int(i), float(total[i])) for i in order]
        if spread is not None and len(order) > 1:
            vectors_of, weight, threshold = spread
            finite = total[np.isfinite(total)]
            lead = float(finite.max() - finite.mean()) or 1.0
            picked = diversify(
                order,
                total[order],
                vectors_of(order),
                weight=weight,
                lead=lead,
                threshold=threshold,
                picks=k if group == "action" else None,
            )
            ranked = [(i, float(total[i])) for i in picked]
        hits = hits_of(docs, ranked, k, group)
        if len(hits) >= k or want >= count:
            return hits
        want = min(count, want * 4)


def hits_of(
    docs: Sequence[ActionDocument | None], ranked: list[tuple[int, float]], k: int, group: str
) -> list[SearchHit]:
    """The first ``k`` hits of ``ranked`` ``(slot, score)`` pairs (one per tool with
    ``group="tool"``)."""
    hits: list[SearchHit] = []
    seen: set[str] = set()
    for slot, score in ranked:
        doc = docs[slot]
        if doc is None or (group == "tool" and doc.tool in seen):
            continue
        seen.add(doc.tool)
        name = doc.tool if group == "tool" else doc.call_name
        hits.append(
            SearchHit(
                name=name,
                tool=doc.tool,
                action=doc.action,
                score=round(score, 6) if math.isfinite(score) else 0.0,
            )
        )
        if len(hits) >= k:
            break
    return hits
