"""The vectors of search requests: remembered per model for the last few hundred requests
(an agent often searches the same words again, and every index of a process shares them),
and embedded on a worker thread while the caller ranks by words and by the cheap models."""

from __future__ import annotations

import os
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final

from toolrig.search._dense import Embedder, Matrix

__all__ = ["cached_request", "clear_query_cache", "embed_request", "embed_request_soon"]

_QUERY_CACHE: Final = 512
"""Requests remembered per model."""
_queries: weakref.WeakKeyDictionary[Any, OrderedDict[str, Matrix]] = weakref.WeakKeyDictionary()
_queries_lock = threading.Lock()
_encoder: ThreadPoolExecutor | None = None


def _after_fork_in_child() -> None:
    """A lock held, or a worker thread running, at ``fork()`` does not exist in the child."""
    global _queries_lock, _encoder
    _queries_lock, _encoder = threading.Lock(), None


os.register_at_fork(after_in_child=_after_fork_in_child)


def cached_request(embedder: Embedder, text: str) -> Matrix | None:
    """The remembered vectors of ``text`` (see `embed_request`), if any."""
    with _queries_lock:
        cache = _queries.setdefault(embedder, OrderedDict())
        cached = cache.get(text)
        if cached is not None:
            cache.move_to_end(text)
        return cached


def embed_request(embedder: Embedder, text: str, spans: Sequence[tuple[int, int]]) -> Matrix:
    """The vectors of a request and of its parts (``spans`` must be those of ``text``),
    remembered for the last few hundred requests per model: an agent often searches the same
    words again, and every index of a process shares them."""
    cached = cached_request(embedder, text)
    if cached is not None:
        return cached
    parts = getattr(embedder, "embed_parts", None)
    if parts is not None:
        vectors: Matrix = parts(text, spans)
    else:
        vectors = embedder.embed([text, *(text[a:b] for a, b in spans)])
    _remember(embedder, text, vectors)
    return vectors


def _remember(embedder: Embedder, text: str, vectors: Matrix) -> None:
    with _queries_lock:
        cache = _queries.setdefault(embedder, OrderedDict())
        cache[text] = vectors
        if len(cache) > _QUERY_CACHE:
            cache.popitem(last=False)


def embed_request_soon(
    embedder: Embedder, text: str, spans: Sequence[tuple[int, int]]
) -> Callable[[], Matrix]:
    """Start `embed_request` on a worker thread and return a function that waits for
    its vectors: the model runs (without the GIL) while the caller ranks by words and by the
    cheap models, so a search costs about the model's time, not the sum."""
    global _encoder
    cached = cached_request(embedder, text)
    if cached is not None:
        return lambda: cached
    with _queries_lock:
        if _encoder is None:  # also in a forked child (see _after_fork_in_child)
            _encoder = ThreadPoolExecutor(max_workers=1, thread_name_prefix="toolrig-embed")
        worker = _encoder
    soon = getattr(embedder, "embed_parts_soon", None)
    if soon is None:  # embed_request remembers the vectors itself
        wait: Callable[[], Matrix] = worker.submit(embed_request, embedder, text, spans).result
    else:
        wait = _remembering(embedder, text, soon(text, spans, worker))
    # hand the GIL over now: the worker starts the model at once (it drops the GIL inside
    # the model) instead of waiting for the caller's next switch interval or numpy call
    # (without this, 0.2-0.4 ms p50 more a request at 10,000 tools, paired on a busy machine)
    time.sleep(0)
    return wait


def _remembering(embedder: Embedder, text: str, wait: Callable[[], Matrix]) -> Callable[[], Matrix]:
    """``wait``, whose vectors of ``text`` are remembered once they are there."""

    def remembered() -> Matrix:
        vectors = wait()
        _remember(embedder, text, vectors)
        return vectors

    return remembered


def clear_query_cache() -> None:
    """Forget remembered request vectors (for measuring)."""
    with _queries_lock:
        _queries.clear()
