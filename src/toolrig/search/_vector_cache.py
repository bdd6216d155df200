"""Document vectors kept on disk, so a process that indexes the same tools again skips the model.

Embedding 10,000 tool descriptions with MiniLM takes about a minute on two cores; reading their
vectors back takes a fraction of a second. Vectors are stored per model in a SQLite file under
the cache folder (see `.quantize.cache_dir`), keyed by a hash of the text. The file keeps
the newest `MAX_VECTORS` vectors. Any failure to read or write (a read-only folder, a
damaged file) logs one warning and the model is simply run; search never depends on the cache.
The folder is private to the user (0700) and the file too (0600, whatever the umask; SQLite
gives its WAL files the same mode), and a row whose stored size does not match its shape, or
whose values are not finite, is recomputed and replaced, never served.
The same store keeps a late-interaction model's token vectors (one float16 matrix per text,
`shared_cache` with ``width``), so the accurate mode's tools are read back instead of run again.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]
else:
    Matrix = Any

__all__ = ["MAX_VECTORS", "Progress", "VectorCache", "cached_embed", "shared_cache"]

logger = logging.getLogger("toolrig.search")

MAX_VECTORS: Final = 100_000
_CHUNK: Final = 500  # SQLite host parameters per lookup
_PROGRESS_STEP: Final = 64  # texts embedded between two progress reports

Progress = Callable[[str, int, int], None]
"""Told ``(model, texts embedded, texts to embed)`` as a model embeds the texts the cache
does not hold: first with 0, then after every few texts; never when the cache holds them all."""


class VectorCache:
    """Vectors of one model, by text (thread-safe).

    By default one float32 vector per text. With ``width``, one matrix per text of that many
    columns (any number of rows, stored as ``dtype``), e.g. a text's token vectors; ``limit``
    is how many texts are kept (the newest; `MAX_VECTORS` when not given).
    """

    def __init__(
        self,
        path: Path,
        *,
        width: int | None = None,
        dtype: str = "float32",
        limit: int | None = None,
    ) -> None:
        self.path = path
        self.width = width
        self.dtype = dtype
        self.limit = limit
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._pid = os.getpid()
        self._broken = False

    def get_many(self, texts: Sequence[str]) -> dict[str, Matrix]:
        """The stored vectors of those of ``texts`` that have one."""
        import numpy as np

        keys = {_key(t): t for t in texts}
        found: dict[str, Matrix] = {}
        rows = self._run(lambda db: _select(db, list(keys)), [])
        dtype = np.dtype(np.float32 if self.width is None else self.dtype)
        for key, dim, blob in rows:
            text = keys.get(key)
            cells = dim * (1 if self.width is None else self.width)
            if text is None or dim <= 0 or len(blob) != cells * dtype.itemsize:
                continue  # damaged: recomputed (and replaced) by the caller
            vector = np.frombuffer(blob, dtype=dtype, count=cells)
            if not np.isfinite(vector).all():
                continue
            found[text] = vector if self.width is None else vector.reshape(dim, self.width)
        return found

    def put_many(self, texts: Sequence[str], vectors: Sequence[Matrix] | Matrix) -> None:
        """Store one vector (or matrix, with ``width``) per text; the oldest beyond
        ``limit`` are dropped."""
        import numpy as np

        dtype = np.float32 if self.width is None else np.dtype(self.dtype)
        rows = [
            (_key(t), int(v.shape[0]), np.ascontiguousarray(v, dtype=dtype).tobytes())
            for t, v in zip(texts, vectors, strict=True)
        ]

        def write(db: sqlite3.Connection) -> None:
            with db:
                db.executemany(
                    "INSERT OR REPLACE INTO vectors (key, dim, vector) VALUES (?, ?, ?)", rows
                )
                db.execute(
                    "DELETE FROM vectors WHERE rowid <= (SELECT max(rowid) FROM vectors) - ?",
                    (MAX_VECTORS if self.limit is None else self.limit,),
                )

        self._run(write, None)

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def _run(self, work: Callable[[sqlite3.Connection], Any], failed: Any) -> Any:
        with self._lock:
            if self._broken:
                return failed
            if self._pid != os.getpid():  # forked: the parent's connection is not ours to use
                self._db, self._pid = None, os.getpid()
            try:
                if self._db is None:
                    self._db = _open(self.path)
                return work(self._db)
            except (sqlite3.Error, OSError) as exc:
                # a file another process keeps locked for over a second counts as unusable
                # too: search must not wait on a cache
                self._broken = True
                logger.warning(
                    "tool search will embed every tool again in each process: its vector "
                    "cache %s is unusable: %s",
                    self.path,
                    exc,
                )
                return failed


def _open(path: Path) -> sqlite3.Connection:
    folder = path.parent
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if _mine(folder):
        folder.chmod(0o700)  # made before by an older version, or under a loose umask
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))  # created private, never wider
    if _mine(path):
        path.chmod(0o600)
    db = sqlite3.connect(path, timeout=1, check_same_thread=False, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute(
        "CREATE TABLE IF NOT EXISTS vectors ("
        "rowid INTEGER PRIMARY KEY, key BLOB NOT NULL UNIQUE, dim INTEGER NOT NULL, "
        "vector BLOB NOT NULL)"
    )
    return db


def _mine(path: Path) -> bool:
    """Whether this user owns ``path`` (always, where there are no user ids)."""
    getuid = getattr(os, "getuid", None)
    return getuid is None or path.stat().st_uid == getuid()


def _select(db: sqlite3.Connection, keys: list[bytes]) -> list[tuple[bytes, int, bytes]]:
    rows: list[tuple[bytes, int, bytes]] = []
    for start in range(0, len(keys), _CHUNK):
        chunk = keys[start : start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        rows.extend(
            db.execute(f"SELECT key, dim, vector FROM vectors WHERE key IN ({marks})", chunk)
        )
    return rows


def _key(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


_caches: dict[str, VectorCache] = {}
_caches_lock = threading.Lock()


def _after_fork_in_child() -> None:
    global _caches_lock
    _caches_lock = threading.Lock()
    for cache in _caches.values():
        cache._lock = threading.Lock()


os.register_at_fork(after_in_child=_after_fork_in_child)


def shared_cache(
    key: str, *, width: int | None = None, dtype: str = "float32", limit: int | None = None
) -> VectorCache:
    """The process's cache of the vectors named ``key`` (a model file and version), in
    ``vectors/{key}.sqlite`` under the cache folder."""
    from toolrig.search._quantize import cache_dir

    path = cache_dir() / "vectors" / f"{key}.sqlite"
    with _caches_lock:
        cache = _caches.get(str(path))
        if cache is None:
            cache = _caches[str(path)] = VectorCache(path, width=width, dtype=dtype, limit=limit)
        return cache


def cached_embed(embedder: Any, texts: Sequence[str], progress: Progress | None = None) -> Matrix:
    """``embedder.embed(texts)``, reading and storing vectors on disk when the embedder names
    a ``cache_key`` (its model file and version); others are run as they are. ``progress``
    is told how far the texts not yet cached are (each text is embedded alone, so reporting
    between groups of texts changes no vector)."""
    key = getattr(embedder, "cache_key", None)
    if not key or not texts:
        out: Matrix = embedder.embed(texts)
        return out
    import numpy as np

    cache = shared_cache(key)
    found = cache.get_many(texts)
    missing = list(dict.fromkeys(t for t in texts if t not in found))
    if missing:
        fresh = _embed(embedder, missing, progress) if progress else embedder.embed(missing)
        cache.put_many(missing, fresh)
        found.update(zip(missing, fresh, strict=True))
    return np.stack([found[t] for t in texts]).astype(np.float32, copy=False)


def _embed(embedder: Any, texts: list[str], progress: Progress) -> Matrix:
    import numpy as np

    name = str(getattr(embedder, "name", embedder.cache_key))
    progress(name, 0, len(texts))
    parts = []
    for start in range(0, len(texts), _PROGRESS_STEP):
        parts.append(embedder.embed(texts[start : start + _PROGRESS_STEP]))
        progress(name, min(start + _PROGRESS_STEP, len(texts)), len(texts))
    out: Matrix = np.concatenate(parts)
    return out
