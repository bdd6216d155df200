"""``ToolIndex``: ranked search over tool actions, updated one tool at a time.

Adding, updating or removing a tool touches only that tool's documents: its postings in the
BM25F index and its rows of the vector tables (slots are reused). Embeddings are computed
lazily, in one batch, at the next search, and an update whose text did not change keeps its
vectors, so a hot reload of one file costs at most one tool's embeddings.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal

from toolrig.core.model._names import ActionRef
from toolrig.core.model._spec import ToolSpec
from toolrig.search._bm25f import BM25F
from toolrig.search._config import SearchConfig
from toolrig.search._documents import ActionDocument, documents_of
from toolrig.search._filters import SearchFilters
from toolrig.search._follow import Following
from toolrig.search._hits import SearchHit, hits_of, top_hits
from toolrig.search._learned import LearnedRequests, learned_boost, store_pair
from toolrig.search._request import check_request
from toolrig.search._rerank import load_reranker
from toolrig.search._second_stage import accurate_config, prepare_reranker, rerank_scores
from toolrig.search._segments import request_parts
from toolrig.search._ties import break_ties, lexical_hits
from toolrig.search._tokenize import analyze, field_terms, vocabulary_of
from toolrig.search._usage import UsagePrior
from toolrig.search._vector_cache import Progress
from toolrig.search._vectors import VectorTable

if TYPE_CHECKING:
    from toolrig.registry._catalog import Catalog
    from toolrig.storage._requests import RequestLog

__all__ = ["SearchHit", "ToolIndex"]

Mode = Literal["auto", "lexical", "dense", "fused"]


class ToolIndex:
    """Search over the actions of a changing set of tools (thread-safe).
    ``embedders`` overrides the configured models (``()`` for lexical ranking only);
    ``accurate=True`` adds the second stage of `SearchConfig.accurate`; ``progress`` is told
    ``(model, done, total)`` while tool texts the vector cache lacks are embedded.
    """

    def __init__(
        self,
        specs: Iterable[ToolSpec] = (),
        *,
        config: SearchConfig | None = None,
        embedders: tuple[Any, ...] | None = None,
        accurate: bool = False,
        progress: Progress | None = None,
    ) -> None:
        self.config = accurate_config(config, accurate)
        self._reranker = load_reranker(self.config.reranker) if self.config.reranker else None
        if embedders is None:
            from toolrig.search._dense import load_embedders

            embedders = load_embedders(self.config.embedders) if self.config.embedders else ()
        self._embedders = embedders
        self._lock = threading.RLock()
        self._bm25 = BM25F(self.config.bm25f)
        self._docs: list[ActionDocument | None] = []
        self._slots: dict[tuple[str, str], int] = {}  # (tool, action) -> slot
        self._tools: dict[str, tuple[tuple[str, str], ...]] = {}
        self._free: list[int] = []
        self._alive = bytearray()
        self._usage = UsagePrior()
        self._learned = LearnedRequests()
        self._last_query: str | None = None
        self._requests: RequestLog | None = None
        self._tables = [VectorTable(e, progress) for e in embedders]
        self._unprepared: set[int] = set()  # slots whose text the reranker has yet to read
        self._numpy = importlib.util.find_spec("numpy") is not None
        self._following: list[Following] = []
        self.add_many(specs)

    @property
    def dense(self) -> bool:
        """Whether semantic ranking is available (else ranking is lexical only)."""
        return bool(self._embedders)

    # -- following a catalogue -------------------------------------------------------------
    @classmethod
    def follow(
        cls,
        catalog: Catalog,
        *,
        config: SearchConfig | None = None,
        embedders: tuple[Any, ...] | None = None,
        accurate: bool = False,
        progress: Progress | None = None,
    ) -> ToolIndex:
        """A new index of ``catalog``'s tools that follows every later change (tools added,
        updated, removed or reloaded) until `unfollow`."""
        index = cls(config=config, embedders=embedders, accurate=accurate, progress=progress)
        following = Following(catalog, index)
        with index._lock:
            index._following.append(following)
        return index

    def unfollow(self, catalog: Catalog) -> bool:
        """Stop following ``catalog`` (the tools indexed stay); ``False`` when not following."""
        with self._lock:
            mine = [f for f in self._following if f.catalog is catalog]
            self._following = [f for f in self._following if f.catalog is not catalog]
        for following in mine:
            following.stop()
        return bool(mine)

    # -- changes ---------------------------------------------------------------------------
    def add(self, spec: ToolSpec) -> None:
        """Index ``spec`` (replacing the tool of that name, if indexed)."""
        self.add_many([spec])

    update = add

    def add_many(self, specs: Iterable[ToolSpec]) -> None:
        """Index several tools (embeddings are computed in one batch at the next search)."""
        with self._lock:
            for spec in specs:
                self._put(spec)

    def remove(self, name: str) -> bool:
        """Forget the tool ``name``; ``False`` when it was not indexed."""
        with self._lock:
            calls = self._tools.pop(name, None)
            if calls is None:
                return False
            for call in calls:
                self._drop(self._slots.pop(call))
            return True

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        """Number of indexed actions."""
        return len(self._slots)

    def tool_names(self) -> list[str]:
        return list(self._tools)

    def _put(self, spec: ToolSpec) -> None:
        docs = documents_of(spec)
        old = self._tools.get(spec.name, ())
        keep = {(d.tool, d.action) for d in docs}
        for call in old:
            if call not in keep:
                self._drop(self._slots.pop(call))
        vocabulary = vocabulary_of(
            d.fields[f] for d in docs for f in ("description", "examples", "parameters")
        )
        for doc in docs:
            key = (doc.tool, doc.action)
            slot = self._slots.get(key)
            previous = None
            if slot is None:
                slot = self._free.pop() if self._free else len(self._docs)
                if slot == len(self._docs):
                    self._docs.append(None)
                    self._alive.append(0)
                self._slots[key] = slot
            else:
                previous = self._docs[slot]
            self._docs[slot] = doc
            self._alive[slot] = 1
            self._usage.place(slot, doc)
            self._bm25.add(slot, field_terms(doc.fields, vocabulary))
            same_text = (
                previous is not None
                and previous.dense_pieces == doc.dense_pieces
                and previous.examples == doc.examples
            )
            if not same_text:
                for table in self._tables:
                    table.put(slot, doc.dense_pieces, doc.examples)
                if self._reranker is not None:
                    self._unprepared.add(slot)
        self._tools[spec.name] = tuple((d.tool, d.action) for d in docs)

    def _drop(self, slot: int) -> None:
        self._bm25.remove(slot)
        self._docs[slot] = None
        self._alive[slot] = 0
        self._usage.place(slot, None)
        for table in self._tables:
            table.clear(slot)
        self._free.append(slot)

    # -- usage -----------------------------------------------------------------------------
    @property
    def usage(self) -> dict[str, int]:
        """Known call counts by name (``tool`` or ``tool.action``), a copy."""
        with self._lock:
            return dict(self._usage.counts)

    def set_usage(self, counts: Mapping[str, int]) -> None:
        """Replace the known call counts, e.g. with ``ExecutionLog.tool_usage()``: tools called
        more often rank a little higher (see ``SearchConfig.usage_weight``)."""
        with self._lock:
            self._usage.replace(counts, enumerate(self._docs))

    def learn(self, pairs: Iterable[tuple[str, str]]) -> None:
        """Use these ``(request, tool)`` pairs as learned sample requests instead of those
        known: a new request like one of them ranks its tools higher (see
        ``SearchConfig.learned_weight``)."""
        with self._lock:
            self._learned.replace(pairs)

    def learn_from(self, requests: RequestLog) -> None:
        """Learn the successful pairs stored in ``requests``; each later use
        (`record_use`) is stored there with the request searched just before it."""
        self.learn((p.request, p.tool) for p in reversed(requests.pairs()))
        with self._lock:
            self._requests = requests

    @property
    def learned(self) -> list[tuple[str, str]]:
        """The learned ``(request, tool)`` pairs, oldest first (a copy)."""
        with self._lock:
            return self._learned.pairs()

    def record_use(self, name: str, calls: int = 1) -> None:
        """Count ``calls`` more calls of ``name`` (``tool`` or ``tool.action``; an action's
        call counts for its tool too). Names not indexed are kept for when they are. The
        request last searched is learned as one that leads to ``name``."""
        if not isinstance(name, str) or not name:
            raise TypeError(f"name must be a tool name, got {name!r}")
        with self._lock:
            query, requests = self._last_query, self._requests
            if query is not None and calls > 0 and self.config.learned_weight:
                self._learned.add(query, name)
        if query is not None and requests is not None and calls > 0:
            store_pair(requests, query, name)
        with self._lock:
            owner: str | None = name
            if name not in self._tools:
                ref = ActionRef.parse(name)
                if ref.multi and ref.tool in self._tools:
                    owner, name = (
                        ref.tool,
                        ref.call_name,
                    )  # ``tool__action`` counts as its call name
                else:
                    owner = None
            self._usage.add(name, calls)
            if owner is None:
                return
            if owner != name:
                self._usage.add(owner, calls)
            for call in self._tools[owner]:
                slot = self._slots[call]
                self._usage.place(slot, self._docs[slot])

    # -- queries ---------------------------------------------------------------------------
    def search(
        self,
        query: str,
        *,
        k: int = 5,
        filters: SearchFilters | Mapping[str, Any] | None = None,
        mode: Mode = "auto",
        group: Literal["action", "tool"] = "action",
    ) -> list[SearchHit]:
        """The ``k`` best actions (or tools, with ``group="tool"``) for ``query``, best first.

        ``mode``: ``"lexical"`` (BM25F), ``"dense"`` (embeddings), ``"fused"`` (both) or
        ``"auto"`` (fused when embeddings are available, else lexical).
        """
        check_request(query, k)
        if isinstance(filters, Mapping):
            filters = SearchFilters(**filters)
        with self._lock:
            self._last_query, second = query, self._reranker if mode != "lexical" else None
            if mode == "auto":
                mode = "fused" if self._embedders else "lexical"
            if mode != "lexical" and not self._embedders:
                raise ValueError(f"mode {mode!r} needs embeddings (the optional extra 'search')")
            allowed = None if filters is None else filters.predicate()
            if mode == "lexical" and not self._numpy:
                ranked = self._lexical(query, allowed)
                population = len(self._slots)
                if allowed is not None and self._usage:
                    population = sum(1 for d in self._docs if d is not None and allowed(d))
                self._usage.boost_pairs(ranked, self.config.usage_weight, population)
                break_ties(ranked, query, self._docs, k if group == "action" else 4 * k + 16)
                return hits_of(self._docs, ranked, k, group)
            if second is not None and self._unprepared:
                prepare_reranker(second, self._docs, self._unprepared)
                self._unprepared.clear()
            if second is not None and hasattr(second, "read_request_soon"):
                second.read_request_soon(query)  # overlaps the first stage
            depth = max(self.config.rerank_depth, 8 * k)
            total = self._scores(query, allowed, mode, depth)
            if second is not None:  # also after a words-only first stage
                total = rerank_scores(total, query, self._docs, second, self.config, k)
            if mode == "lexical":
                return lexical_hits(total, query, self._docs, k, group)
            return self._top(total, k, group, mode)

    def _lexical(self, query: str, allowed: Any) -> list[tuple[int, float]]:
        scores = self._bm25.scores(analyze(query))
        docs = self._docs
        out = [
            (slot, s)
            for slot, s in scores.items()
            if s > 0 and (allowed is None or allowed(docs[slot]))
        ]
        out.sort(key=lambda item: (-item[1], item[0]))
        return out

    def _scores(self, query: str, allowed: Any, mode: Mode, depth: int) -> Any:
        """Scores of every slot (``-inf`` where nothing may be returned), with numpy; in a
        large catalogue only ``depth`` candidates get a finite score."""
        import numpy as np

        from toolrig.search._fusion import combine_parts, fuse
        from toolrig.search._requests import embed_request, embed_request_soon

        config = self.config
        n = len(self._docs)
        mask = np.frombuffer(bytes(self._alive), dtype=np.bool_).copy()
        if allowed is not None:
            for i in np.flatnonzero(mask).tolist():
                doc = self._docs[i]
                mask[i] = doc is not None and allowed(doc)
        # parts change nothing in words-only ranking (a part's BM25F score never exceeds the
        # whole request's), so they are ranked only when scores are fused
        spans = request_parts(query) if mode != "lexical" else []
        tables = self._tables if mode != "lexical" else []
        costly = [t for t in tables if not getattr(t.embedder, "cheap", False)]
        for table in costly:
            table.flush()
        waiting = [embed_request_soon(t.embedder, query, spans) for t in costly]
        # In a large catalogue, words and the cheap models (documents only, a rough pass)
        # pick ``depth`` candidates; sample requests and every model then score just those.
        big = int(mask.sum()) > max(config.rerank_above, depth)
        rankers: list[Any] = []
        weights: list[float] = []
        scope = None  # in words-only ranking, the prior is scaled over every allowed document
        if mode in ("fused", "lexical"):
            texts = [query, *(query[a:b] for a, b in spans)]
            lexical = self._bm25.score_arrays([analyze(t) for t in texts], n)
            rankers.append(lexical)
            weights.append(config.lexical_weight)
            if mode == "lexical":
                scope = mask.copy()
                mask &= lexical.max(axis=0) > 0
        cheap = [t for t in tables if t not in costly]
        vectors = {t: embed_request(t.embedder, query, spans) for t in cheap}
        sampled = config.example_weight and any(t.has_examples for t in cheap)
        pick = big and bool(rankers or cheap) and bool(costly or sampled)
        for table in cheap:
            rankers.append(
                table.coarse_similarities(vectors[table], n)
                if pick
                else table.similarities(vectors[table], n, config.example_weight)
            )
            weights.append(config.dense_weights.get(table.name, 1.0))
        slots = None
        if pick:
            first = combine_parts(fuse(rankers, weights, mask), config.part_weight)
            first = np.where(mask, first, -np.inf)
            slots = np.sort(np.argpartition(-first, depth)[:depth])
            rankers = [r[:, slots] for r in rankers[: len(rankers) - len(cheap)]] + [
                t.similarities(vectors[t], n, config.example_weight, slots) for t in cheap
            ]
            mask = mask[slots]
        # learned requests are compared with the costliest model's vector of the request
        near: tuple[Any, Any] | None = next(iter(vectors.items()), None)
        for table, wait in zip(costly, waiting, strict=True):
            query_vectors = wait()
            if table is costly[0]:
                near = (table, query_vectors)
            rankers.append(table.similarities(query_vectors, n, config.example_weight, slots))
            weights.append(config.dense_weights.get(table.name, 1.0))
        fused = fuse(rankers, weights, mask) if len(rankers) > 1 else rankers[0]
        combined = combine_parts(fused, config.part_weight)
        if near is not None and self._learned and config.learned_weight:
            votes = self._learned.votes(
                near[0].embedder,
                near[1][0],
                neighbours=config.learned_neighbours,
                floor=config.learned_floor,
                sharpen=config.learned_sharpen,
            )
            combined = learned_boost(
                combined, mask, slots, votes, self._slots_of, config.learned_weight
            )
        scope = mask if scope is None else scope
        combined = self._usage.boost(combined, scope, slots, config.usage_weight)
        total = np.where(mask, combined, -np.inf)
        if slots is None:
            return total
        out = np.full(n, -np.inf, dtype=np.float32)
        out[slots] = total
        return out

    def _slots_of(self, name: str) -> list[int]:
        """The slots ``name`` stands for: every action of a tool, or one action."""
        calls = self._tools.get(name)
        if calls is None:
            ref = ActionRef.parse(name)
            slot = self._slots.get((ref.tool, ref.action)) if ref.multi else None
            return [] if slot is None else [slot]
        return [self._slots[call] for call in calls]

    def _top(self, total: Any, k: int, group: str, mode: str) -> list[SearchHit]:
        config = self.config
        spread = None  # words-only ranking embeds nothing, so it is not diversified
        if config.diversity > 0 and self._tables and mode != "lexical":
            table = next(
                (t for t in self._tables if not getattr(t.embedder, "cheap", False)),
                self._tables[0],
            )
            spread = (table.vectors_of, config.diversity, config.duplicate_threshold)
        return top_hits(total, self._docs, k, group, spread)
