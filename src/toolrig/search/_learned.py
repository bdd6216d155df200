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

import logging
from collections import OrderedDict
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Final

from toolrig.search._vector_cache import cached_embed

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from toolrig.storage._requests import RequestLog

    Matrix = npt.NDArray[np.float32]
else:
    Matrix = Any

__all__ = ["MAX_LEARNED", "LearnedRequests", "learned_boost", "store_pair"]

logger = logging.getLogger("toolrig.search")

MAX_LEARNED: Final = 50_000
"""Distinct requests kept (the newest); about 75 MB of MiniLM vectors at most."""


class LearnedRequests:
    """Distinct requests with the names of the tools they led to, and their vectors."""

    def __init__(self) -> None:
        self._tools: OrderedDict[str, dict[str, None]] = OrderedDict()
        self._vectors: dict[Any, _Rows] = {}
        """Per embedder: the requests embedded so far (forgotten ones stay until rebuilt)."""
        self._version = 0
        """Counts the requests added, so a query embeds new ones only after a change."""

    def __len__(self) -> int:
        return len(self._tools)

    def pairs(self) -> list[tuple[str, str]]:
        return [(request, tool) for request, tools in self._tools.items() for tool in tools]

    def replace(self, pairs: Iterable[tuple[str, str]]) -> None:
        """Know only ``pairs`` (checked first: a bad pair changes nothing)."""
        pairs = list(pairs)
        for request, tool in pairs:
            if not isinstance(request, str) or not isinstance(tool, str):
                raise TypeError(f"learned pairs are (request, tool) strings, got {request!r}")
        self._tools.clear()
        self._vectors.clear()
        for request, tool in pairs:
            self.add(request, tool)

    def add(self, request: str, tool: str) -> None:
        """Learn that ``request`` led to a call of ``tool`` (newest kept first)."""
        text = request.strip()
        if not text or not tool:
            return
        tools = self._tools.pop(text, None)
        if tools is None:
            tools = {}
            self._version += 1
        tools[tool] = None
        self._tools[text] = tools
        while len(self._tools) > MAX_LEARNED:
            self._tools.popitem(last=False)

    def votes(
        self, embedder: Any, query: Matrix, *, neighbours: int, floor: float, sharpen: float = 1.0
    ) -> dict[str, float]:
        """Each tool's share of the votes of the nearest learned requests, times how far the
        nearest one stands above ``floor`` (0..1); empty when none is near."""
        import numpy as np

        if not self._tools:
            return {}
        texts, vectors = self._embedded(embedder)
        if not texts:
            return {}
        sims = vectors @ query
        # forgotten requests keep their rows until a rebuild: look past them
        k = min(neighbours + len(texts) - len(self._tools), sims.shape[0])
        near = np.argpartition(-sims, k - 1)[:k] if k < sims.shape[0] else np.arange(k)
        near = near[np.argsort(-sims[near], kind="stable")]
        near = np.asarray([i for i in near.tolist() if texts[i] in self._tools][:neighbours])
        if near.size == 0:
            return {}
        weights = sims[near] - floor
        keep = weights > 0
        if not keep.any():
            return {}
        near, weights = near[keep], weights[keep]
        total = float(weights.sum())
        confidence = float(weights.max()) / max(1.0 - floor, 1e-6)
        out: dict[str, float] = {}
        for row, weight in zip(near.tolist(), weights.tolist(), strict=True):
            tools = self._tools[texts[row]]
            for tool in tools:
                out[tool] = out.get(tool, 0.0) + weight / total / len(tools)
        return {tool: confidence * share**sharpen for tool, share in out.items()}

    def _embedded(self, embedder: Any) -> tuple[list[str], Matrix]:
        """The requests embedded for ``embedder`` and their vectors: those learned since the
        last query are added in one batch (read from the vector cache when stored there);
        rebuilt from scratch when forgotten ones make up half."""
        rows = self._vectors.get(embedder)
        if rows is None or rows.count > 2 * max(len(self._tools), 1_000):
            rows = self._vectors[embedder] = _Rows()
        if rows.version != self._version:
            fresh = [t for t in self._tools if t not in rows.known]
            if fresh:
                rows.extend(fresh, cached_embed(embedder, fresh))
            rows.version = self._version
        return rows.texts, rows.matrix[: rows.count]


class _Rows:
    """Vectors of requests in the order they were embedded (capacity doubles)."""

    def __init__(self) -> None:
        import numpy as np

        self.texts: list[str] = []
        self.known: set[str] = set()
        self.version = -1
        self.matrix: Matrix = np.zeros((0, 0), dtype=np.float32)
        self.count = 0

    def extend(self, texts: list[str], vectors: Matrix) -> None:
        import numpy as np

        need = self.count + len(texts)
        if need > self.matrix.shape[0] or self.matrix.shape[1] != vectors.shape[1]:
            grown = np.zeros(
                (max(need, 2 * self.matrix.shape[0], 256), vectors.shape[1]), np.float32
            )
            if self.count:
                grown[: self.count] = self.matrix[: self.count]
            self.matrix = grown
        self.matrix[self.count : need] = vectors
        self.texts.extend(texts)
        self.known.update(texts)
        self.count = need


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


def store_pair(requests: RequestLog, request: str, tool: str) -> None:
    """Store that ``request`` led to ``tool``; a log that cannot take it is warned about,
    never raised into the tool call that was made."""
    try:
        requests.record(request, tool, source="search")
    except Exception as exc:  # a locked or unreachable database must not fail the call
        logger.warning("tool search could not store the request that led to %r: %s", tool, exc)
