"""BM25F over several text fields, updated one document at a time.

Each document keeps its term counts per field, so adding or removing one touches only its own
postings and the corpus totals; average field lengths (and so length normalisation) are read at
query time, which keeps every score exact after any sequence of changes.

Score of a document for query terms ``t`` (Zaragoza et al., "Microsoft Cambridge at TREC-13")::

    tf~(t) = sum over fields f of  w_f * tf_f(t) / (1 - b_f + b_f * len_f / avglen_f)
    score  = sum over t of  idf(t) * tf~(t) * (k1 + 1) / (k1 + tf~(t))
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["BM25F", "BM25FParams"]


@dataclass(frozen=True, slots=True, kw_only=True)
class BM25FParams:
    """Weights and length normalisation per field, and the term-saturation constant."""

    weights: Mapping[str, float]
    """Field name -> weight; fields not named are not indexed."""
    b: Mapping[str, float] = field(default_factory=dict)
    """Field name -> length normalisation in [0, 1] (``default_b`` when absent)."""
    default_b: float = 0.3
    k1: float = 3.0
    common: Mapping[str, float] = field(default_factory=dict)
    """Field name -> share of documents: a term found in that field of more documents than
    this share (and more than `COMMON_FLOOR`) counts there in proportion less, e.g.
    a name word such as ``get`` or ``model_id`` shared by hundreds of tools."""


COMMON_FLOOR = 10
"""Documents below which no term counts as common (small catalogues are left alone)."""


class BM25F:
    """An inverted index of documents (identified by integers) with BM25F scoring."""

    __slots__ = (
        "_arrays",
        "_b",
        "_common",
        "_docs",
        "_fields",
        "_gains",
        "_k1",
        "_length_array",
        "_lengths",
        "_postings",
        "_totals",
        "_weights",
    )

    def __init__(self, params: BM25FParams) -> None:
        self._fields: tuple[str, ...] = tuple(f for f, w in params.weights.items() if w > 0)
        self._weights = tuple(params.weights[f] for f in self._fields)
        self._b = tuple(params.b.get(f, params.default_b) for f in self._fields)
        self._k1 = params.k1
        self._common = tuple(params.common.get(f, 0.0) for f in self._fields)
        self._postings: dict[str, dict[int, tuple[int, ...]]] = {}
        """Per term, per document: the term's count in each field (one entry per field)."""
        self._docs: dict[int, tuple[str, ...]] = {}
        self._lengths: dict[int, tuple[int, ...]] = {}
        self._totals = [0] * len(self._fields)
        # numpy copies for fast scoring, made on first use and kept current from then on
        self._arrays: dict[str, tuple[Any, Any]] = {}
        self._length_array: Any = None
        self._gains: dict[str, Any] = {}
        """Per term, its score in each document holding it; any change of the collection
        changes the lengths and idf behind them, so every change drops them all."""

    @property
    def fields(self) -> tuple[str, ...]:
        return self._fields

    def __len__(self) -> int:
        return len(self._docs)

    def add(self, doc: int, terms: Mapping[str, Sequence[str]]) -> None:
        """Index document ``doc`` with its analysed ``terms`` per field (replacing it)."""
        if doc in self._docs:
            self.remove(doc)
        per_term: dict[str, list[tuple[int, int]]] = {}
        lengths = []
        for i, name in enumerate(self._fields):
            field_terms = terms.get(name, ())
            lengths.append(len(field_terms))
            self._totals[i] += len(field_terms)
            for term, count in Counter(field_terms).items():
                per_term.setdefault(term, []).append((i, count))
        width = len(self._fields)
        for term, counts in per_term.items():
            dense = [0] * width
            for i, count in counts:
                dense[i] = count
            self._postings.setdefault(term, {})[doc] = tuple(dense)
        self._docs[doc] = tuple(per_term)
        self._lengths[doc] = tuple(lengths)
        for term in per_term:
            self._arrays.pop(term, None)
        self._gains.clear()
        if self._length_array is not None:
            self._set_length_row(doc, lengths)

    def remove(self, doc: int) -> None:
        """Forget document ``doc`` (no effect when unknown)."""
        terms = self._docs.pop(doc, None)
        if terms is None:
            return
        for i, length in enumerate(self._lengths.pop(doc)):
            self._totals[i] -= length
        self._gains.clear()
        for term in terms:
            self._arrays.pop(term, None)
            posting = self._postings[term]
            del posting[doc]
            if not posting:
                del self._postings[term]
        if self._length_array is not None and doc < self._length_array.shape[0]:
            self._length_array[doc] = 0

    def idf(self, term: str) -> float:
        """Inverse document frequency of ``term`` (0 when no document has it)."""
        df = len(self._postings.get(term, ()))
        if not df:
            return 0.0
        n = len(self._docs)
        return math.log(1.0 + (n - df + 0.5) / (df + 0.5))

    def scores(self, query: Iterable[str]) -> dict[int, float]:
        """``{doc: score}`` of every document sharing a term with ``query`` (analysed terms)."""
        n = len(self._docs)
        if not n:
            return {}
        avg = [max(total / n, 1e-9) for total in self._totals]
        weights, b, k1 = self._weights, self._b, self._k1
        lengths = self._lengths
        out: dict[int, float] = {}
        for term, qtf in Counter(query).items():
            posting = self._postings.get(term)
            if not posting:
                continue
            idf = qtf * self.idf(term)
            damp = self._damping(posting.values(), n)
            for doc, counts in posting.items():
                length = lengths[doc]
                tf = 0.0
                for i, count in enumerate(counts):
                    if count:
                        tf += (
                            damp[i] * weights[i] * count / (1.0 - b[i] + b[i] * length[i] / avg[i])
                        )
                out[doc] = out.get(doc, 0.0) + idf * tf * (k1 + 1.0) / (k1 + tf)
        return out

    # -- numpy scoring (used by fused ranking; same formula, vectorised per term) ----------
    def score_array(self, query: Iterable[str], size: int) -> Any:
        """Scores of documents ``0..size-1`` as a float32 numpy array (0 where no term
        matches); document ids must be below ``size``."""
        return self.score_arrays([list(query)], size)[0]

    def score_arrays(self, queries: Sequence[Sequence[str]], size: int) -> Any:
        """`score_array` for several queries at once, one row each; a term shared by
        several queries (a request and its parts) is scored once."""
        import numpy as np

        out = np.zeros((len(queries), size), dtype=np.float32)
        if not self._docs:
            return out
        counts_per_query = [Counter(query) for query in queries]
        for term in dict.fromkeys(t for counts in counts_per_query for t in counts):
            if term not in self._postings:
                continue
            docs, gain = self._term_gains(term)
            for row, query_counts in enumerate(counts_per_query):
                qtf = query_counts.get(term)
                if qtf:
                    out[row, docs] += np.float32(qtf) * gain
        return out

    def _term_gains(self, term: str) -> tuple[Any, Any]:
        """The documents holding ``term`` and its score in each (remembered until the next
        change: most of a query's time went into recomputing them)."""
        cached = self._gains.get(term)
        if cached is not None:
            return cached  # type: ignore[no-any-return]
        import numpy as np

        n = len(self._docs)
        if self._length_array is None:
            self._length_array = np.zeros((64, len(self._fields)), dtype=np.float32)
            for doc, lengths in self._lengths.items():
                self._set_length_row(doc, lengths)
        avg = np.maximum(np.asarray(self._totals, dtype=np.float32) / n, 1e-9)
        weights = np.asarray(self._weights, dtype=np.float32)
        b = np.asarray(self._b, dtype=np.float32)
        k1 = self._k1
        docs, counts = self._term_arrays(term)
        norm = 1.0 - b + b * self._length_array[docs] / avg
        damp = weights
        if any(self._common):
            df = (counts > 0).sum(axis=0).tolist()
            damp = weights * np.asarray(self._damping((), n, df), dtype=np.float32)
        tf = (counts * damp / norm).sum(axis=1)
        gain = (np.float32(self.idf(term)) * tf * (k1 + 1.0) / (k1 + tf)).astype(np.float32)
        self._gains[term] = (docs, gain)
        return docs, gain

    def _damping(
        self,
        postings: Iterable[tuple[int, ...]],
        n: int,
        df: Sequence[int] | None = None,
    ) -> list[float]:
        """Per field, the factor of a term (its ``postings``, or documents per field ``df``):
        ``limit / documents`` where a field holds it in more than ``limit`` documents."""
        out = [1.0] * len(self._fields)
        if not any(self._common):
            return out
        if df is None:
            df = [0] * len(self._fields)
            for counts in postings:
                for i, count in enumerate(counts):
                    if count:
                        df[i] += 1
        for i, share in enumerate(self._common):
            limit = max(share * n, COMMON_FLOOR)
            if share and df[i] > limit:
                out[i] = limit / df[i]
        return out

    def _term_arrays(self, term: str) -> tuple[Any, Any]:
        cached = self._arrays.get(term)
        if cached is None:
            import numpy as np

            posting = self._postings[term]
            docs = np.fromiter(posting, dtype=np.int64, count=len(posting))
            counts = np.array(list(posting.values()), dtype=np.float32)
            cached = self._arrays[term] = (docs, counts)
        return cached

    def _set_length_row(self, doc: int, lengths: Sequence[int]) -> None:
        import numpy as np

        table = self._length_array
        if doc >= table.shape[0]:
            grown = np.zeros((max(doc + 1, 2 * table.shape[0]), table.shape[1]), np.float32)
            grown[: table.shape[0]] = table
            self._length_array = table = grown
        table[doc] = lengths
