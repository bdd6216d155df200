"""A usage prior: tools that are called often rank a little higher.

In a real catalogue a few tools take most of the calls. Knowing how often each tool was called
(from the execution log, or counted as calls happen) is evidence about the next request, as
a word match is. Each document gets ``log(1 + calls)``, divided by the largest such value in
the index, times ``weight`` times the query's *lead*: how far its best score stands above the
mean score. The most-used tool gains ``weight`` leads, a tool called once a small fraction of
that, an unused tool nothing; with ``weight < 1`` a tool that scores no better than average
can never overtake the best match, however often it was called. With no calls known the
ranking is unchanged.

Counts are kept by name: ``tool`` for a whole tool, ``tool.action`` for one action. An action
of a tool whose actions have counts of their own uses its own (0 when it has none); otherwise
every action of a tool shares the tool's count. Counts outlive the tools they name, so a tool
that is reloaded or re-registered keeps its history.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final

from toolrig.core.model._names import ActionRef

if TYPE_CHECKING:
    from toolrig.search._documents import ActionDocument

__all__ = ["UsagePrior"]

MAX_NAMES: Final = 1_000_000


def checked_counts(counts: Mapping[str, int]) -> dict[str, int]:
    """``counts`` as a plain dict, or a ``TypeError``/``ValueError`` naming the bad entry."""
    if not isinstance(counts, Mapping):
        raise TypeError(f"usage counts must be a mapping of name to calls, not {type(counts)}")
    if len(counts) > MAX_NAMES:
        raise ValueError(f"{len(counts):,} usage counts; at most {MAX_NAMES:,} names are kept")
    out: dict[str, int] = {}
    for name, calls in counts.items():
        if not isinstance(name, str) or not name:
            raise TypeError(f"usage count keys must be tool names, got {name!r}")
        out[name] = checked_calls(name, calls)
    return out


def checked_calls(name: str, calls: Any) -> int:
    if isinstance(calls, bool) or not isinstance(calls, int) or calls < 0:
        raise ValueError(f"usage count of {name!r} must be a whole number >= 0, got {calls!r}")
    return calls


class UsagePrior:
    """Call counts by name, and ``log(1 + calls)`` per document slot of the index."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self._split: set[str] = set()
        """Names before the last dot of the counted names: tools counted action by action."""
        self._logs = array("f")

    def __bool__(self) -> bool:
        """Whether any call is known (else the prior changes nothing); counts are never 0."""
        return bool(self.counts)

    def place(self, slot: int, doc: ActionDocument | None) -> None:
        """Set the value of ``slot`` for ``doc`` (``None``: an empty slot)."""
        if slot >= len(self._logs):
            self._logs.extend([0.0] * (slot + 1 - len(self._logs)))
        self._logs[slot] = 0.0 if doc is None else math.log1p(self._calls(doc))

    def _calls(self, doc: ActionDocument) -> int:
        counts = self.counts
        if doc.call_name != doc.tool and doc.tool in self._split:
            return counts.get(doc.call_name, 0)
        return counts.get(doc.tool, 0)

    def replace(
        self, counts: Mapping[str, int], docs: Iterable[tuple[int, ActionDocument | None]]
    ) -> None:
        """Use ``counts`` instead of what was known, then refresh every slot of ``docs``."""
        self.counts = {name: calls for name, calls in checked_counts(counts).items() if calls}
        self._split = {ref.tool for ref in map(ActionRef.parse, self.counts) if ref.multi}
        for slot, doc in docs:
            self.place(slot, doc)

    def add(self, name: str, calls: int) -> None:
        """Count ``calls`` more for ``name`` (the caller refreshes the slots it names)."""
        if not checked_calls(name, calls):
            return
        self.counts[name] = self.counts.get(name, 0) + calls
        ref = ActionRef.parse(name)
        if ref.multi:
            self._split.add(ref.tool)

    def boost(self, total: Any, mask: Any, slots: Any, weight: float) -> Any:
        """``total`` (scores of ``slots``, or of every slot) plus the prior, scaled by the
        lead of the scores over ``mask``, the documents that may be returned (numpy)."""
        import numpy as np

        if not weight or not self or not mask.any():
            return total
        logs = np.frombuffer(self._logs, dtype=np.float32)  # one value per slot ever used
        top = float(logs.max())
        if top <= 0:
            return total
        if slots is not None:
            logs = logs[slots]
        scores = total[mask]
        lead = float(scores.max() - scores.mean()) or 1.0
        boosted: Any = total + np.float32(weight * lead / top) * logs
        return boosted

    def boost_pairs(self, ranked: list[tuple[int, float]], weight: float, population: int) -> None:
        """The same without numpy, for the ``(slot, score)`` pairs that matched out of
        ``population`` documents (the others score 0): re-scored and re-sorted in place."""
        if not weight or not self or not ranked:
            return
        population = max(population, len(ranked))
        logs = self._logs
        top = max(logs)
        if top <= 0:
            return
        lead = ranked[0][1] - sum(s for _, s in ranked) / population or 1.0  # best first
        scale = weight * lead / top
        ranked[:] = [(slot, score + scale * logs[slot]) for slot, score in ranked]
        ranked.sort(key=lambda item: (-item[1], item[0]))
