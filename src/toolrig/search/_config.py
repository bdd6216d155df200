"""``SearchConfig``: how a `ToolIndex` ranks.

Kept apart from the index so the tuned numbers, and the measurements behind them, sit in one
short module.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from toolrig.search._bm25f import BM25FParams

__all__ = ["SearchConfig"]


def _default_bm25f() -> BM25FParams:
    return BM25FParams(
        weights={
            "name": 2.0,
            "description": 1.0,
            "tags": 1.0,
            "parameters": 1.0,
            "output": 0.5,
            "examples": 0.25,
        },
        default_b=0.3,
        k1=3.0,
        common={"name": 0.05},
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchConfig:
    """How the index ranks: lexical parameters, embedding models and fusion weights.

    The defaults were tuned on a dev slice of MetaTool (``bench/retrieval.py``): BM25F with
    ``k1=3, b=0.3``, names weighted twice and sample requests a quarter (more helped single
    requests a little and cost two-part ones more); z-scored BM25F, MiniLM and static scores
    summed with weights 1 : 2 : 2; a document's closest sample request counted half; call
    counts, when known, move the most-called tool up by 0.6 of the best score's lead.
    Parameters (weight 1), learned pairs (1.5 leads, 10 neighbours above cosine 0.4),
    near-duplicates (0.3) and common name words (5% of the catalogue) were tuned on the dev
    slices of MetaTool and of BFCL's pooled functions (``bench/tune_search.py``); parameter
    weights of 1-2, MiniLM weights of 2-4 and name shares of 0-5% scored within a point.
    A request with several parts (`.segments`) is also ranked part by part. In catalogues
    above ``rerank_above`` actions, MiniLM re-ranks the ``rerank_depth`` best candidates of
    BM25F and the static model instead of scanning every vector (the scan is memory-bound).
    ``SearchConfig(embedders=("static",))`` drops MiniLM: a few points of recall for about
    a third of the time per query.
    """

    bm25f: BM25FParams = field(default_factory=_default_bm25f)
    embedders: tuple[str, ...] = ("minilm", "static")
    """Embedding models to fuse (see `.dense`); ``()`` ranks by words alone."""
    lexical_weight: float = 1.0
    dense_weights: Mapping[str, float] = field(
        default_factory=lambda: {"minilm": 2.0, "static": 2.0}
    )
    example_weight: float = 0.5
    """How much a document's closest sample request adds to its own semantic similarity."""
    part_weight: float = 1.0
    """How much a document's best part of a many-part request adds (see `.segments`)."""
    rerank_above: int = 2_000
    """Catalogue size (in actions) above which costly models score only candidates."""
    rerank_depth: int = 300
    """How many candidates the words and the cheap models pick for the costly ones."""
    learned_weight: float = 1.5
    """How far the tools that the nearest learned requests led to move up
    (`ToolIndex.learn`), as a share of the query's lead (see `.learned`); 0 turns
    learning from use off (nothing is remembered either)."""
    learned_neighbours: int = 10
    """How many of the nearest learned requests vote."""
    learned_floor: float = 0.4
    """Cosine similarity a learned request must exceed to vote."""
    learned_sharpen: float = 1.0
    """Exponent on a tool's share of the votes: above 1, tools that the nearest learned
    requests disagree on gain less."""
    diversity: float = 0.3
    """How far near-duplicates of a better hit move down, as a share of the query's lead
    (see `.diversify`); 0 turns diversification off."""
    duplicate_threshold: float = 0.8
    """Cosine similarity of two documents above which they count as near-duplicates."""
    reranker: str | None = None
    """The accurate mode's second stage (``"late-interaction"`` or ``"cross-encoder"``, see
    `.rerank`; extra ``search-accurate``): it re-scores the ``reranker_depth`` best
    candidates of the first stage. ``None``: one stage."""
    reranker_depth: int = 40
    """How many first-stage candidates the reranker scores (at least the ``k`` asked for)."""
    reranker_weight: float = 0.3
    """The reranker's weight beside the first stage's (1) once both are z-scored over the
    candidates. On the dev slices (late interaction, 40 candidates) 0.3 kept two-tool and BFCL
    recall and gained 1.7 points of MetaTool single-tool recall@5; 0.5 and 1 lost on BFCL
    and two-tool requests; 30 or 50 candidates scored as 40."""
    usage_weight: float = 0.6
    """How far the most-called tool moves up once call counts are known
    (`ToolIndex.set_usage`), as a share of how far the query's best score stands above
    its mean (see `.usage`); 0 ignores the counts."""

    @classmethod
    def accurate(cls) -> SearchConfig:
        """The accurate mode: the default first stage, then its best candidates re-scored by
        a reranker (extra ``search-accurate``; see ``docs/search.md`` for the figures)."""
        return cls(reranker="late-interaction")
