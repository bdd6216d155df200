"""The accurate mode's second stage: the first stage's best candidates scored again by a
reranker (`.rerank`), fused with their first-stage scores.

Both scores are z-scored over the candidates and summed with ``SearchConfig.reranker_weight``
on the reranker's: the first stage keeps a say, so a reranker's confident mistake on one
candidate moves it up only so far. Documents outside the candidates can no longer be returned.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from toolrig.search._fusion import zscore

if TYPE_CHECKING:
    from toolrig.search._config import SearchConfig
    from toolrig.search._documents import ActionDocument
    from toolrig.search._rerank import Reranker

__all__ = ["accurate_config", "prepare_reranker", "rerank_scores"]


def accurate_config(config: SearchConfig | None, accurate: bool) -> SearchConfig:
    """The configuration an index runs: ``config`` (else the default), or with ``accurate``
    the accurate mode's (a ``config`` that names no reranker gets that mode's)."""
    from dataclasses import replace

    from toolrig.search._config import SearchConfig

    if not accurate:
        return config if config is not None else SearchConfig()
    chosen = SearchConfig.accurate()
    if config is None:
        return chosen
    if config.reranker is not None:
        return config
    return replace(config, reranker=chosen.reranker)


def rerank_scores(
    total: Any,
    query: str,
    docs: Sequence[ActionDocument | None],
    reranker: Reranker,
    config: SearchConfig,
    k: int,
) -> Any:
    """``total`` (one first-stage score per slot, ``-inf`` where nothing may be returned)
    with its ``max(reranker_depth, k)`` best slots re-scored and every other slot ``-inf``."""
    import numpy as np

    finite = np.flatnonzero(np.isfinite(total))
    depth = min(max(config.reranker_depth, k), finite.size)
    if depth < 2:
        return total
    picked = finite[np.argpartition(-total[finite], depth - 1)[:depth]]
    texts = [_text_of(docs[int(slot)]) for slot in picked]
    second = reranker.scores(query, texts)
    every = np.ones(depth, dtype=np.bool_)
    fused = zscore(total[picked].astype(np.float32), every) + np.float32(
        config.reranker_weight
    ) * zscore(np.asarray(second, dtype=np.float32), every)
    out = np.full(total.shape[0], -np.inf, dtype=np.float32)
    out[picked] = fused
    return out


def prepare_reranker(
    reranker: Reranker, docs: Sequence[ActionDocument | None], slots: Iterable[int]
) -> None:
    """Let ``reranker`` read the texts of the documents at ``slots`` ahead of the searches
    that need them (a late-interaction model's token vectors of new tools, made by a
    background thread), so that searches seldom pay for them one candidate at a time."""
    prepare = getattr(reranker, "prepare_soon", None)
    if prepare is not None:
        prepare([_text_of(docs[slot]) for slot in sorted(slots) if docs[slot] is not None])


def _text_of(doc: ActionDocument | None) -> str:
    """What the reranker reads of a tool: its first passage (name words and description)."""
    if doc is None:
        return ""
    return doc.dense_pieces[0] if doc.dense_pieces else doc.fields.get("description", "")
