"""The RAG index: one SQLite file with an FTS5 table (BM25 ranking), nothing else to install.

Tables: ``documents`` (source, content hash), ``chunks`` (text, position, offsets, optional
embedding vector) and ``chunks_fts`` (an external-content FTS5 index kept in step by triggers).
The file is in WAL mode, so searches keep working while another process indexes; every
operation opens its own connection, so one store can be used from several threads.
"""

from __future__ import annotations

import math
import os
import re
import sqlite3
import time
from array import array
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from toolrig.tools.rag._chunking import Chunk

__all__ = ["RagStore", "StoredHit"]

_SCHEMA_VERSION: Final = "1"
_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    id INTEGER PRIMARY KEY,
    source TEXT NOT NULL UNIQUE,
    hash TEXT NOT NULL,
    title TEXT,
    indexed_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY,
    doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    start INTEGER NOT NULL,
    "end" INTEGER NOT NULL,
    text TEXT NOT NULL,
    vector BLOB
);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(doc_id);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    text, content='chunks', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS chunks_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER IF NOT EXISTS chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
"""
_WORD: Final = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True, slots=True)
class StoredHit:
    """A chunk found by a search, with its score (higher is better)."""

    chunk_id: int
    source: str
    position: int
    start: int
    end: int
    text: str
    score: float


def fts_query(text: str) -> str | None:
    """A safe FTS5 query matching any word of ``text`` (each word quoted); ``None`` if none."""
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(text)))[:64]
    return " OR ".join(f'"{w}"' for w in words) if words else None


def _hit(row: Sequence[Any], score: float) -> StoredHit:
    chunk_id, source, position, start, end, text = row
    return StoredHit(
        chunk_id=int(chunk_id),
        source=str(source),
        position=int(position),
        start=int(start),
        end=int(end),
        text=str(text),
        score=round(score, 6),
    )


def _pack(vector: Sequence[float]) -> bytes:
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return array("f", (v / norm for v in vector)).tobytes()


def _unpack(blob: bytes) -> array[float]:
    values = array("f")
    values.frombytes(blob)
    return values


class RagStore:
    """The chunks of indexed documents, searchable by words (BM25) and, when vectors were
    stored, by meaning (cosine similarity)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as conn:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.executescript(_SCHEMA)
            conn.execute(
                "INSERT OR IGNORE INTO meta(key, value) VALUES ('schema', ?)", (_SCHEMA_VERSION,)
            )

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
        try:
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("PRAGMA busy_timeout=30000")
            yield conn
        finally:
            conn.close()

    # -- documents ---------------------------------------------------------------------------
    def hashes(self) -> dict[str, str]:
        """Every indexed source with its content hash."""
        with self._connect() as conn:
            return dict(conn.execute("SELECT source, hash FROM documents").fetchall())

    def replace(
        self,
        source: str,
        content_hash: str,
        chunks: Sequence[Chunk],
        vectors: Sequence[Sequence[float]] | None = None,
        title: str | None = None,
    ) -> None:
        """Store ``source``'s chunks in place of the ones it had, in one transaction."""
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.execute("DELETE FROM documents WHERE source = ?", (source,))
                doc_id = conn.execute(
                    "INSERT INTO documents(source, hash, title, indexed_at) VALUES (?, ?, ?, ?)",
                    (source, content_hash, title, time.time()),
                ).lastrowid
                conn.executemany(
                    'INSERT INTO chunks(doc_id, position, start, "end", text, vector) '
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    [
                        (
                            doc_id,
                            c.position,
                            c.start,
                            c.end,
                            c.text,
                            None if vectors is None else _pack(vectors[i]),
                        )
                        for i, c in enumerate(chunks)
                    ],
                )
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise

    def delete(self, sources: Iterable[str]) -> int:
        """Remove documents by source; returns how many there were."""
        names = list(sources)
        if not names:
            return 0
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                removed = sum(
                    conn.execute("DELETE FROM documents WHERE source = ?", (s,)).rowcount
                    for s in names
                )
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        return removed

    def counts(self) -> tuple[int, int]:
        """``(documents, chunks)`` in the index."""
        with self._connect() as conn:
            docs = conn.execute("SELECT count(*) FROM documents").fetchone()[0]
            chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        return int(docs), int(chunks)

    # -- searching ---------------------------------------------------------------------------
    def search_words(self, query: str, k: int) -> list[StoredHit]:
        """The ``k`` chunks ranking best by BM25 for any word of ``query``."""
        match = fts_query(query)
        if match is None:
            return []
        with self._connect() as conn:
            rows = conn.execute(
                'SELECT c.id, d.source, c.position, c.start, c."end", c.text, '
                "bm25(chunks_fts) AS rank FROM chunks_fts "
                "JOIN chunks c ON c.id = chunks_fts.rowid JOIN documents d ON d.id = c.doc_id "
                "WHERE chunks_fts MATCH ? ORDER BY rank LIMIT ?",
                (match, k),
            ).fetchall()
        return [_hit(row[:6], -float(row[6])) for row in rows]

    def search_vector(self, vector: Sequence[float], k: int) -> list[StoredHit]:
        """The ``k`` chunks whose stored vectors are most similar (cosine) to ``vector``."""
        query = _unpack(_pack(vector))
        scored: list[tuple[float, int]] = []
        with self._connect() as conn:
            for chunk_id, blob in conn.execute(
                "SELECT id, vector FROM chunks WHERE vector IS NOT NULL"
            ):
                stored = _unpack(blob)
                if len(stored) == len(query):
                    scored.append(
                        (sum(a * b for a, b in zip(stored, query, strict=True)), chunk_id)
                    )
        best = sorted(scored, reverse=True)[:k]
        return self._hits([(cid, score) for score, cid in best])

    def _hits(self, ranked: list[tuple[int, float]]) -> list[StoredHit]:
        if not ranked:
            return []
        ids = [cid for cid, _ in ranked]
        marks = ",".join("?" * len(ids))
        with self._connect() as conn:
            rows = {
                row[0]: row
                for row in conn.execute(
                    'SELECT c.id, d.source, c.position, c.start, c."end", c.text FROM chunks c '
                    f"JOIN documents d ON d.id = c.doc_id WHERE c.id IN ({marks})",
                    ids,
                )
            }
        return [_hit(rows[cid], score) for cid, score in ranked if cid in rows]

    def chunks_by_id(self, ranked: list[tuple[int, float]]) -> list[StoredHit]:
        """Hits for chunk ids with the given scores, in the given order."""
        return self._hits(ranked)
