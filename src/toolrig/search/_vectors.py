"""``VectorTable``: the embeddings of the indexed documents, for one embedding model.

Rows are addressed by document slot in a growable array (capacity doubles). A document whose
text is longer than the model's window has its further pieces in rows of their own, and its
sample requests in others (see `OwnedRows`); its similarity is that of its best piece.
Changes only mark rows pending; the next query embeds every pending text in one batch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolrig.search._vector_cache import Progress, cached_embed

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from toolrig.search._dense import Embedder

    Matrix = npt.NDArray[np.float32]
else:
    Matrix = Any

__all__ = ["OwnedRows", "VectorTable"]

_ONE_PRODUCT_FROM = 4
"""Query rows (a request and its parts) from which documents are scored in one product."""


class OwnedRows:
    """Vectors that each belong to one document slot (its sample requests, or the further
    pieces of its text); rows of removed documents are reused."""

    def __init__(self, np: Any) -> None:
        self._np = np
        self._vectors: Matrix = np.zeros((0, 0), dtype=np.float32)
        self._owners = np.zeros(0, dtype=np.int64)
        self._rows: dict[int, list[int]] = {}
        self._free: list[int] = []
        self._used = 0
        self._groups: tuple[Any, Matrix] | None = None
        """Live rows sorted by owner: owners and vectors (made on demand, dropped on change)."""

    def __bool__(self) -> bool:
        return self._used > len(self._free)

    def set(self, slot: int, vectors: Matrix) -> None:
        """Give ``slot`` exactly these rows (replacing its earlier ones)."""
        self.release(slot)
        rows = []
        for vector in vectors:
            row = self._claim(vector.shape[0])
            self._vectors[row] = vector
            self._owners[row] = slot
            rows.append(row)
        if rows:
            self._rows[slot] = rows
            self._groups = None

    def release(self, slot: int) -> None:
        rows = self._rows.pop(slot, ())
        for row in rows:
            self._owners[row] = -1
            self._free.append(row)
        if rows:
            self._groups = None

    def closest(self, queries: Matrix, n: int, slots: Any, width: int) -> Any:
        """Per query row and column, the similarity of the column's closest row (``-inf``
        for documents without any); ``None`` when no column has one.

        Rows are grouped by document once per change, so a query costs one matrix-vector
        product and one ``maximum.reduceat`` per row; with ``slots`` (sorted), only the
        candidates' rows are compared.
        """
        np = self._np
        owners, grouped = self._sorted()
        if slots is None:
            keep = owners < n
            columns = owners[keep] if not keep.all() else owners
            vectors = grouped[keep] if not keep.all() else grouped
        else:  # the rows of each candidate, found by binary search in the grouped rows
            first = np.searchsorted(owners, slots, side="left")
            counts = np.searchsorted(owners, slots, side="right") - first
            present = np.flatnonzero(counts)
            counts = counts[present]
            offsets = np.cumsum(counts) - counts
            picked = np.arange(int(counts.sum())) + np.repeat(first[present] - offsets, counts)
            columns = np.repeat(present, counts)
            vectors = grouped[picked]
        if columns.size == 0:
            return None
        starts = np.flatnonzero(np.r_[True, columns[1:] != columns[:-1]])
        best = np.full((queries.shape[0], width), -np.inf, dtype=np.float32)
        for row in range(queries.shape[0]):
            best[row, columns[starts]] = np.maximum.reduceat(vectors @ queries[row], starts)
        return best

    def _sorted(self) -> tuple[Any, Matrix]:
        if self._groups is None:
            np = self._np
            owners = self._owners[: self._used]
            live = np.flatnonzero(owners >= 0)
            order = live[np.argsort(owners[live], kind="stable")]
            self._groups = (owners[order], self._vectors[order])
        return self._groups

    def _claim(self, dim: int) -> int:
        np = self._np
        if self._free:
            return self._free.pop()
        row = self._used
        self._vectors = _grown(np, self._vectors, row + 1, dim)
        if self._owners.shape[0] < self._vectors.shape[0]:
            owners = np.full(self._vectors.shape[0], -1, dtype=np.int64)
            owners[: self._owners.shape[0]] = self._owners
            self._owners = owners
        self._used += 1
        return row


class VectorTable:
    """Document, piece and sample-request vectors of one `Embedder`."""

    def __init__(self, embedder: Embedder, progress: Progress | None = None) -> None:
        import numpy as np

        self.embedder = embedder
        self.progress = progress
        self.name = embedder.name
        self._np = np
        self._docs: Matrix = np.zeros((0, 0), dtype=np.float32)
        self._pieces = OwnedRows(np)
        self._examples = OwnedRows(np)
        self._pending: dict[int, tuple[tuple[str, ...], tuple[str, ...]]] = {}
        self._coarse: Matrix | None = None
        """The documents' first-piece vectors cut to the model's ``coarse_dims`` (see
        `coarse_similarities`), at unit length again; made on demand, dropped on change."""

    def put(self, slot: int, text: str | tuple[str, ...], examples: tuple[str, ...] = ()) -> None:
        """Schedule document ``slot`` to be embedded from ``text`` (or its pieces, each
        within the model's window) and its sample requests ``examples``."""
        pieces = (text,) if isinstance(text, str) else text
        self._pending[slot] = (pieces or ("",), examples)

    @property
    def has_examples(self) -> bool:
        """Whether any indexed document has sample requests (pending ones count)."""
        return bool(self._examples) or any(e for _, e in self._pending.values())

    def clear(self, slot: int) -> None:
        """Forget document ``slot``."""
        self._pending.pop(slot, None)
        self._pieces.release(slot)
        self._examples.release(slot)

    def similarities(
        self, queries: Matrix, n: int, example_weight: float, slots: Any = None
    ) -> Matrix:
        """Cosine similarity of each query row to documents ``0..n-1`` (or to ``slots`` only),
        one row per query: that of the document's best piece; with sample requests, the
        closest one is mixed in: ``(1 - w) * doc + w * max(doc, closest request)``."""
        np = self._np
        self.flush()
        width = n if slots is None else len(slots)
        sims = np.zeros((queries.shape[0], width), dtype=np.float32)
        stored = self._docs.shape[0]
        if stored:
            docs = self._docs[: min(n, stored)] if slots is None else self._docs[slots]
            _scan(docs, queries, sims)
        if self._pieces:
            best = self._pieces.closest(queries, n, slots, width)
            if best is not None:
                sims = np.maximum(sims, best)
        if self._examples and example_weight > 0:
            best = self._closest_examples(queries, n, slots, width)
            if best is not None:
                best = np.maximum(best, sims)
                sims = (1.0 - example_weight) * sims + example_weight * best
        out: Matrix = sims.astype(np.float32, copy=False)
        return out

    def coarse_similarities(self, queries: Matrix, n: int) -> Matrix:
        """Like `similarities` without sample requests, for picking candidates: cheaper when
        the model says its first ``coarse_dims`` dimensions are an embedding of their own
        (Matryoshka-trained), since a scan of every document reads only those.

        Cosines of the cut, re-normalised vectors; a long document's further pieces (few)
        are compared in full. Without ``coarse_dims``, exactly ``similarities(.., 0.0)``.
        """
        np = self._np
        dims = getattr(self.embedder, "coarse_dims", None)
        self.flush()
        stored = self._docs.shape[0]
        if not dims or not stored or dims >= self._docs.shape[1]:
            return self.similarities(queries, n, 0.0)
        if self._coarse is None:
            head = self._docs[:, :dims]
            norms = np.linalg.norm(head, axis=1, keepdims=True)
            self._coarse = np.ascontiguousarray(head / np.maximum(norms, 1e-12))
        cut = queries[:, :dims]
        cut = cut / np.maximum(np.linalg.norm(cut, axis=1, keepdims=True), 1e-12)
        docs = self._coarse[: min(n, stored)]
        sims: Matrix = np.zeros((queries.shape[0], n), dtype=np.float32)
        _scan(docs, cut, sims)
        if self._pieces:
            best = self._pieces.closest(queries, n, None, n)
            if best is not None:
                sims = np.maximum(sims, best)
        return sims

    def vectors_of(self, slots: Any) -> Matrix:
        """The first-piece vectors of ``slots`` (for telling near-duplicates apart)."""
        self.flush()
        out: Matrix = self._docs[slots]
        return out

    def _closest_examples(self, queries: Matrix, n: int, slots: Any, width: int) -> Any:
        return self._examples.closest(queries, n, slots, width)

    def flush(self) -> None:
        """Embed every pending document now (one batch)."""
        if not self._pending:
            return
        np = self._np
        pending = list(self._pending.items())
        texts = [pieces[0] for _, (pieces, _) in pending]
        for _, (pieces, examples) in pending:
            texts.extend(pieces[1:])
            texts.extend(examples)
        vectors = cached_embed(self.embedder, texts, self.progress)
        dim = vectors.shape[1]
        top = max(slot for slot, _ in pending) + 1
        self._docs = _grown(np, self._docs, top, dim)
        cursor = len(pending)
        for i, (slot, (pieces, examples)) in enumerate(pending):
            self._docs[slot] = vectors[i]
            more = len(pieces) - 1
            self._pieces.set(slot, vectors[cursor : cursor + more])
            cursor += more
            self._examples.set(slot, vectors[cursor : cursor + len(examples)])
            cursor += len(examples)
        self._pending.clear()
        self._coarse = None


def _scan(docs: Matrix, queries: Matrix, out: Matrix) -> None:
    """``out[row, :len(docs)] = docs @ queries[row]`` for every query row. Up to three rows,
    one matrix-vector product each (faster than a matrix product with so few rows); from
    four, one product reads the documents once (nine rows over 10,000 documents: 1.7 ms
    instead of 4.5 on one BLAS thread)."""
    if queries.shape[0] < _ONE_PRODUCT_FROM:
        for row in range(queries.shape[0]):
            out[row, : docs.shape[0]] = docs @ queries[row]
    else:
        out[:, : docs.shape[0]] = (docs @ queries.T).T


def _grown(np: Any, matrix: Matrix, rows: int, dim: int) -> Matrix:
    """``matrix`` with room for at least ``rows`` rows of width ``dim`` (capacity doubles)."""
    if matrix.shape[0] >= rows and matrix.shape[1] == dim:
        return matrix
    capacity = max(rows, 2 * matrix.shape[0], 64)
    out: Matrix = np.zeros((capacity, dim), dtype=np.float32)
    if matrix.shape[1] == dim:
        out[: matrix.shape[0]] = matrix
    return out
