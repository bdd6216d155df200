"""Document vectors kept on disk between processes."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from search_doubles import HashingEmbedder, catalogue

from toolrig.search import ToolIndex
from toolrig.search import _vector_cache as vector_cache
from toolrig.search._vector_cache import VectorCache, cached_embed

np = pytest.importorskip("numpy")


class KeyedEmbedder(HashingEmbedder):
    cache_key = "hashing-v1"


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TOOLRIG_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(vector_cache, "_caches", {})  # as in a new process
    return tmp_path


def test_a_second_process_reads_vectors_instead_of_running_the_model(cache_dir: Path) -> None:
    first = KeyedEmbedder()
    ToolIndex(catalogue(), embedders=(first,)).search("weather in Oslo")
    documents = [t for t in first.embedded if t != "weather in Oslo"]
    assert len(documents) == 5  # one per action
    vector_cache._caches.clear()
    second = KeyedEmbedder()
    index = ToolIndex(catalogue(), embedders=(second,))
    assert index.search("weather in Oslo", mode="dense")[0].name == "get_weather"
    assert second.embedded == ["weather in Oslo"]  # the documents came from disk
    assert (cache_dir / "vectors" / "hashing-v1.sqlite").is_file()


def test_vectors_read_back_equal_those_computed(cache_dir: Path) -> None:
    texts = ["alpha beta", "gamma", "alpha beta", "delta epsilon"]
    fresh = cached_embed(KeyedEmbedder(), texts)
    embedder = KeyedEmbedder()
    again = cached_embed(embedder, texts)
    assert embedder.embedded == []
    assert again.dtype == np.float32 and np.array_equal(fresh, again)
    partly = KeyedEmbedder()
    cached_embed(partly, ["gamma", "zeta"])
    assert partly.embedded == ["zeta"]  # only what is missing is embedded


def test_a_model_without_cache_key_is_always_run(cache_dir: Path) -> None:
    embedder = HashingEmbedder()
    cached_embed(embedder, ["a b"])
    cached_embed(embedder, ["a b"])
    assert embedder.embedded == ["a b", "a b"]
    assert not (cache_dir / "vectors").exists()


def test_a_damaged_cache_file_warns_once_and_search_still_works(
    cache_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = cache_dir / "vectors" / "hashing-v1.sqlite"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not a database" * 100)
    embedder = KeyedEmbedder()
    with caplog.at_level("WARNING", logger="toolrig.search"):
        index = ToolIndex(catalogue(), embedders=(embedder,))
        assert index.search("share price of a company", mode="dense")[0].name == "stock_quote"
        cached_embed(embedder, ["more text"])
    assert caplog.text.count("vector cache") == 1


def test_the_file_keeps_only_the_newest_vectors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vector_cache, "MAX_VECTORS", 3)
    cache = VectorCache(tmp_path / "v.sqlite")
    for i in range(5):
        cache.put_many([f"text {i}"], np.ones((1, 4), dtype=np.float32) * i)
    kept = cache.get_many([f"text {i}" for i in range(5)])
    assert sorted(kept) == ["text 2", "text 3", "text 4"]
    assert kept["text 4"].tolist() == [4.0] * 4
    cache.close()
    count: Any = sqlite3.connect(tmp_path / "v.sqlite").execute("SELECT count(*) FROM vectors")
    assert count.fetchone()[0] == 3


def test_matrices_of_any_height_come_back_as_stored(tmp_path: Path) -> None:
    """A late-interaction model's token vectors: one float16 matrix per text, kept by limit."""
    cache = VectorCache(tmp_path / "t.sqlite", width=3, dtype="float16", limit=2)
    rng = np.random.default_rng(0)
    made = {f"text {i}": rng.standard_normal((i + 1, 3)).astype(np.float16) for i in range(3)}
    cache.put_many(list(made), list(made.values()))
    kept = cache.get_many(list(made))
    assert sorted(kept) == ["text 1", "text 2"]
    for text, matrix in kept.items():
        assert matrix.dtype == np.float16 and matrix.shape == made[text].shape
        assert np.array_equal(matrix, made[text])
    cache.close()


def test_the_cache_is_private_to_its_user_whatever_the_umask(cache_dir: Path) -> None:
    import os
    import stat

    old = os.umask(0)  # the loosest umask: everything would be world-writable
    try:
        cached_embed(KeyedEmbedder(), ["alpha"])
    finally:
        os.umask(old)
    folder = cache_dir / "vectors"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    for file in folder.iterdir():  # the database and its WAL files
        assert stat.S_IMODE(file.stat().st_mode) == 0o600, file


def test_a_damaged_row_is_recomputed_never_served(cache_dir: Path) -> None:
    texts = ["alpha beta", "gamma", "delta"]
    good = cached_embed(KeyedEmbedder(), texts)
    vector_cache._caches.clear()
    db = sqlite3.connect(cache_dir / "vectors" / "hashing-v1.sqlite")
    rows = db.execute("SELECT key, vector FROM vectors ORDER BY rowid").fetchall()
    nan = np.full(len(rows[1][1]) // 4, np.nan, dtype=np.float32).tobytes()
    with db:
        db.execute("UPDATE vectors SET vector = ? WHERE key = ?", (rows[0][1][:-4], rows[0][0]))
        db.execute("UPDATE vectors SET vector = ? WHERE key = ?", (nan, rows[1][0]))
        db.execute("UPDATE vectors SET dim = 3 WHERE key = ?", (rows[2][0],))
    db.close()
    embedder = KeyedEmbedder()
    again = cached_embed(embedder, texts)
    assert sorted(embedder.embedded) == sorted(texts)  # every damaged row was run again
    assert np.array_equal(again, good)
    vector_cache._caches.clear()
    fixed = KeyedEmbedder()
    cached_embed(fixed, texts)
    assert fixed.embedded == []  # and replaced


def test_progress_is_told_of_a_cold_build_only(cache_dir: Path) -> None:
    """Only texts the cache lacks are reported, from 0 to all, in steps; a warm start and a
    caller that passed no ``progress`` hear nothing."""
    texts = [f"tool text {i}" for i in range(150)]
    seen: list[tuple[str, int, int]] = []
    fresh = cached_embed(KeyedEmbedder(), texts, lambda *a: seen.append(a))
    assert seen[0] == ("fake", 0, 150) and seen[-1] == ("fake", 150, 150)
    assert [d for _, d, _ in seen] == [0, 64, 128, 150]
    vector_cache._caches.clear()
    again: list[tuple[str, int, int]] = []
    warm = cached_embed(KeyedEmbedder(), texts, lambda *a: again.append(a))
    assert again == [] and np.array_equal(fresh, warm)  # steps change no vector
    vector_cache._caches.clear()
    index_seen: list[tuple[str, int, int]] = []
    index = ToolIndex(
        catalogue(), embedders=(KeyedEmbedder(),), progress=lambda *a: index_seen.append(a)
    )
    assert index_seen == []  # nothing is embedded before a search needs it
    index.search("weather in Oslo")
    assert index_seen == [("fake", 0, 5), ("fake", 5, 5)]  # one text per action
