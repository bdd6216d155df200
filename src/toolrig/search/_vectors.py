"""``VectorTable``: the embeddings of the indexed documents, for one embedding model.

Rows are addressed by document slot in a growable array (capacity doubles); a document's
sample requests have rows of their own in a second array that records their owner. Changes
only mark rows pending; the next query embeds every pending text in one batch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolrig.search._vector_cache import cached_embed

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from toolrig.search._dense import Embedder

    Matrix = npt.NDArray[np.float32]
else:
    Matrix = Any

__all__ = ["VectorTable"]


class VectorTable:
    """Document and sample-request vectors of one :class:`~.dense.Embedder`."""

    def __init__(self, embedder: Embedder) -> None:
        import numpy as np

        self.embedder = embedder
        self.name = embedder.name
        self._np = np
        self._docs: Matrix = np.zeros((0, 0), dtype=np.float32)
        self._examples: Matrix = np.zeros((0, 0), dtype=np.float32)
        self._owners = np.zeros(0, dtype=np.int64)
        self._example_rows: dict[int, list[int]] = {}
        self._free_rows: list[int] = []
        self._used_rows = 0
        self._pending: dict[int, tuple[str, tuple[str, ...]]] = {}
        self._groups: tuple[Any, Any, Matrix] | None = None
        """Sample requests grouped by document (made on demand, dropped on change)."""

    def put(self, slot: int, text: str, examples: tuple[str, ...]) -> None:
        """Schedule document ``slot`` to be embedded from ``text`` and ``examples``."""
        self._pending[slot] = (text, examples)

    @property
    def has_examples(self) -> bool:
        """Whether any indexed document has sample requests (pending ones count)."""
        return self._used_rows > len(self._free_rows) or any(e for _, e in self._pending.values())

    def clear(self, slot: int) -> None:
        """Forget document ``slot``."""
        self._pending.pop(slot, None)
        self._release_examples(slot)

    def similarities(
        self, queries: Matrix, n: int, example_weight: float, slots: Any = None
    ) -> Matrix:
        """Cosine similarity of each query row to documents ``0..n-1`` (or to ``slots`` only),
        one row per query; with sample requests, the closest one is mixed in:
        ``(1 - w) * doc + w * max(doc, closest request)``."""
        np = self._np
        self.flush()
        width = n if slots is None else len(slots)
        sims = np.zeros((queries.shape[0], width), dtype=np.float32)
        stored = self._docs.shape[0]
        if stored:
            docs = self._docs[: min(n, stored)] if slots is None else self._docs[slots]
            # one matrix-vector product per query row: BLAS is several times slower on a
            # (rows x dim) @ (dim x docs) product with few rows
            for row in range(queries.shape[0]):
                sims[row, : docs.shape[0]] = docs @ queries[row]
        if self._used_rows and example_weight > 0:
            best = self._closest_examples(queries, n, slots, width)
            if best is not None:
                best = np.maximum(best, sims)
                sims = (1.0 - example_weight) * sims + example_weight * best
        out: Matrix = sims.astype(np.float32, copy=False)
        return out

    def _closest_examples(self, queries: Matrix, n: int, slots: Any, width: int) -> Any:
        """Per query row and column, the similarity of the document's closest sample request
        (``-inf`` for documents without any); ``None`` when no column has one.

        Rows are grouped by document once per change, so a query costs one matrix-vector
        product and one ``maximum.reduceat`` per row; with ``slots`` (sorted), only the
        candidates' rows are compared.
        """
        np = self._np
        _, owners, grouped = self._example_groups()
        if slots is None:
            keep = owners < n
            columns = owners[keep] if not keep.all() else owners
            examples = grouped[keep] if not keep.all() else grouped
        else:  # the rows of each candidate, found by binary search in the grouped rows
            first = np.searchsorted(owners, slots, side="left")
            counts = np.searchsorted(owners, slots, side="right") - first
            present = np.flatnonzero(counts)
            counts = counts[present]
            offsets = np.cumsum(counts) - counts
            picked = np.arange(int(counts.sum())) + np.repeat(first[present] - offsets, counts)
            columns = np.repeat(present, counts)
            examples = grouped[picked]
        if columns.size == 0:
            return None
        starts = np.flatnonzero(np.r_[True, columns[1:] != columns[:-1]])
        best = np.full((queries.shape[0], width), -np.inf, dtype=np.float32)
        for row in range(queries.shape[0]):
            best[row, columns[starts]] = np.maximum.reduceat(examples @ queries[row], starts)
        return best

    def _example_groups(self) -> tuple[Any, Any, Matrix]:
        """Live sample-request rows sorted by owner: their row numbers, owners and vectors."""
        if self._groups is None:
            np = self._np
            owners = self._owners[: self._used_rows]
            live = np.flatnonzero(owners >= 0)
            order = live[np.argsort(owners[live], kind="stable")]
            self._groups = (order, owners[order], self._examples[order])
        return self._groups

    def flush(self) -> None:
        """Embed every pending document now (one batch)."""
        if not self._pending:
            return
        np = self._np
        pending = list(self._pending.items())
        texts = [text for _, (text, _) in pending]
        for _, (_, examples) in pending:
            texts.extend(examples)
        vectors = cached_embed(self.embedder, texts)
        dim = vectors.shape[1]
        top = max(slot for slot, _ in pending) + 1
        self._docs = _grown(np, self._docs, top, dim)
        cursor = len(pending)
        for i, (slot, (_, examples)) in enumerate(pending):
            self._docs[slot] = vectors[i]
            self._release_examples(slot)
            rows = []
            for _ in examples:
                row = self._claim_row(dim)
                self._examples[row] = vectors[cursor]
                self._owners[row] = slot
                rows.append(row)
                cursor += 1
            if rows:
                self._example_rows[slot] = rows
        self._pending.clear()
        self._groups = None

    def _claim_row(self, dim: int) -> int:
        np = self._np
        if self._free_rows:
            return self._free_rows.pop()
        row = self._used_rows
        self._examples = _grown(np, self._examples, row + 1, dim)
        if self._owners.shape[0] < self._examples.shape[0]:
            owners = np.full(self._examples.shape[0], -1, dtype=np.int64)
            owners[: self._owners.shape[0]] = self._owners
            self._owners = owners
        self._used_rows += 1
        return row

    def _release_examples(self, slot: int) -> None:
        if slot in self._example_rows:
            self._groups = None
        for row in self._example_rows.pop(slot, ()):
            self._owners[row] = -1
            self._free_rows.append(row)


def _grown(np: Any, matrix: Matrix, rows: int, dim: int) -> Matrix:
    """``matrix`` with room for at least ``rows`` rows of width ``dim`` (capacity doubles)."""
    if matrix.shape[0] >= rows and matrix.shape[1] == dim:
        return matrix
    capacity = max(rows, 2 * matrix.shape[0], 64)
    out: Matrix = np.zeros((capacity, dim), dtype=np.float32)
    if matrix.shape[1] == dim:
        out[: matrix.shape[0]] = matrix
    return out
