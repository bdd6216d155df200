"""Learned sample requests: the requests that led to calls of each tool, as use taught them.

A deployment knows better than any author which requests each tool answers: the request text
that led to every successful call (``RequestLog`` in the execution log's database, or the
searches and calls of this process). Each distinct request is embedded once; for a new
request, its ``neighbours`` nearest learned requests vote for the tools they led to, each
with its similarity above ``floor``. A tool's votes, as a share of all votes, times how close
the nearest learned request is, times ``weight``, times the request's *lead* (how far its
best score stands above the mean) are added to its score. So the pairs count only for
requests like those they came from: a tool called a thousand times for other requests gains
nothing, unlike a global popularity count.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Final

from toolrig.search._vector_cache import cached_embed

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]
else:
    Matrix = Any

__all__ = ["MAX_LEARNED", "LearnedRequests"]

MAX_LEARNED: Final = 50_000
"""Distinct requests kept (the newest); about 75 MB of MiniLM vectors at most."""


class LearnedRequests:
    """Distinct requests with the names of the tools they led to, and their vectors."""

    def __init__(self) -> None:
        self._tools: OrderedDict[str, dict[str, None]] = OrderedDict()
        self._vectors: dict[Any, tuple[int, list[str], Matrix]] = {}
        """Per embedder: the version embedded, its requests in order, and their vectors."""
        self._version = 0

    def __len__(self) -> int:
        return len(self._tools)

    def pairs(self) -> list[tuple[str, str]]:
        return [(request, tool) for request, tools in self._tools.items() for tool in tools]

    def replace(self, pairs: Iterable[tuple[str, str]]) -> None:
        self._tools.clear()
        self._vectors.clear()
        self._version += 1
        for request, tool in pairs:
            self.add(request, tool)

    def add(self, request: str, tool: str) -> None:
        """Learn that ``request`` led to a call of ``tool`` (newest kept first)."""
        text = request.strip()
        if not text or not tool:
            return
        tools = self._tools.pop(text, None) or {}
        tools[tool] = None
        self._tools[text] = tools
        self._version += 1
        while len(self._tools) > MAX_LEARNED:
            self._tools.popitem(last=False)
            self._vectors.clear()

    def votes(
        self, embedder: Any, query: Matrix, *, neighbours: int, floor: float
    ) -> dict[str, float]:
        """Each tool's share of the votes of the nearest learned requests, times how far the
        nearest one stands above ``floor`` (0..1); empty when none is near."""
        import numpy as np

        if not self._tools:
            return {}
        texts, vectors = self._embedded(embedder)
        sims = vectors @ query
        k = min(neighbours, sims.shape[0])
        near = np.argpartition(-sims, k - 1)[:k] if k < sims.shape[0] else np.arange(k)
        weights = sims[near] - floor
        keep = weights > 0
        if not keep.any():
            return {}
        near, weights = near[keep], weights[keep]
        total = float(weights.sum())
        confidence = float(weights.max()) / max(1.0 - floor, 1e-6)
        out: dict[str, float] = {}
        for row, weight in zip(near.tolist(), weights.tolist(), strict=True):
            tools = self._tools.get(texts[row], {})
            for tool in tools:
                out[tool] = out.get(tool, 0.0) + confidence * weight / total / len(tools)
        return out

    def _embedded(self, embedder: Any) -> tuple[list[str], Matrix]:
        """The learned requests and their vectors for ``embedder`` (new ones embedded, in
        one batch, read from the vector cache when stored there)."""
        import numpy as np

        version, texts, vectors = self._vectors.get(embedder, (-1, [], None))
        if version == self._version and vectors is not None:
            return texts, vectors
        rows = dict(zip(texts, vectors, strict=True)) if vectors is not None else {}
        current = list(self._tools)
        fresh = [t for t in current if t not in rows]
        if fresh:
            rows.update(zip(fresh, cached_embed(embedder, fresh), strict=True))
        matrix: Matrix = np.stack([rows[t] for t in current]).astype(np.float32, copy=False)
        self._vectors[embedder] = (self._version, current, matrix)
        return current, matrix


def learned_boost(
    total: Any,
    mask: Any,
    slots: Any,
    votes: dict[str, float],
    where: Any,
    weight: float,
) -> Any:
    """``total`` (scores of ``slots``, or of every slot) plus ``weight`` times the lead of
    the scores over ``mask`` times each voted tool's votes; ``where(name)`` gives the slots a
    name stands for (a tool's actions, or one action)."""
    import numpy as np

    if not votes or not weight or not mask.any():
        return total
    scores = total[mask]
    lead = float(scores.max() - scores.mean()) or 1.0
    out = total.copy()
    for name, vote in votes.items():
        targets = np.asarray(where(name), dtype=np.int64)
        if targets.size == 0:
            continue
        if slots is not None:  # a large catalogue: only the candidates have scores
            at = np.searchsorted(slots, targets)
            inside = at < len(slots)
            at = at[inside]
            targets = at[slots[at] == targets[inside]]
        out[targets] += np.float32(weight * lead * vote)
    return out
