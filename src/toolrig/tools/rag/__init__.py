"""Retrieval over local documents: chunking, a SQLite FTS5 index, and ``rag_tool``."""

from toolrig.tools.rag._chunking import Chunk, chunk_text
from toolrig.tools.rag._embedding import search_model_embedder
from toolrig.tools.rag._store import RagStore, StoredHit
from toolrig.tools.rag._tool import Embedder, IndexOutput, RagTool, SearchRagOutput

__all__ = [
    "Chunk",
    "Embedder",
    "IndexOutput",
    "RagStore",
    "RagTool",
    "SearchRagOutput",
    "StoredHit",
    "chunk_text",
    "search_model_embedder",
]
