"""``VectorTable.similarities`` against a direct computation, with sample requests, and its
coarse pass (cut vectors) for picking candidates."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from toolrig.search._vectors import VectorTable  # noqa: E402


class TableEmbedder:
    """Vectors looked up by text, from a fixed random table."""

    name = "table"

    def __init__(self) -> None:
        self.vectors: dict[str, Any] = {}
        self.rng = np.random.default_rng(7)

    def embed(self, texts: Sequence[str]) -> Any:
        for text in texts:
            if text not in self.vectors:
                v = self.rng.standard_normal(16).astype(np.float32)
                self.vectors[text] = v / np.linalg.norm(v)
        return np.stack([self.vectors[t] for t in texts])


def reference(
    embedder: TableEmbedder,
    docs: dict[int, tuple[str, tuple[str, ...]]],
    query: Any,
    n: int,
    weight: float,
) -> Any:
    out = np.zeros(n, dtype=np.float32)
    for slot, (text, examples) in docs.items():
        doc = float(embedder.vectors[text] @ query)
        closest = max([float(embedder.vectors[e] @ query) for e in examples], default=-np.inf)
        out[slot] = (1 - weight) * doc + weight * max(doc, closest)
    return out


def test_closest_sample_requests_match_a_direct_computation() -> None:
    embedder = TableEmbedder()
    table = VectorTable(embedder)
    docs: dict[int, tuple[str, tuple[str, ...]]] = {}
    for slot in range(40):
        examples = tuple(f"ex {slot} {j}" for j in range(slot % 4))  # 0 to 3 each
        docs[slot] = (f"doc {slot}", examples)
        table.put(slot, *docs[slot])
    table.flush()
    for slot in (3, 7, 11):  # removed documents free their rows, which are then reused
        table.clear(slot)
        del docs[slot]
    docs[41] = ("doc 41", ("ex new a", "ex new b", "ex new c", "ex new d"))
    table.put(41, *docs[41])
    queries = embedder.embed(["q1", "q2"])
    n = 42
    full = table.similarities(queries, n, 0.5)
    for row, query in enumerate(queries):
        expected = reference(embedder, docs, query, n, 0.5)
        live = sorted(docs)
        assert np.allclose(full[row, live], expected[live], atol=1e-5)
    slots = np.array([0, 2, 5, 13, 41])
    some = table.similarities(queries, n, 0.5, slots)
    assert some.shape == (2, 5)
    assert np.allclose(some, full[:, slots], atol=1e-5)
    assert np.allclose(
        table.similarities(queries, n, 0.0)[0, live],
        [float(embedder.vectors[docs[s][0]] @ queries[0]) for s in live],
        atol=1e-5,
    )


@pytest.mark.parametrize("rows", [1, 3, 4, 9])
def test_a_request_with_many_parts_scores_each_part_as_alone(rows: int) -> None:
    embedder = TableEmbedder()
    table = VectorTable(embedder)
    for slot in range(50):
        table.put(slot, f"doc {slot}")
    queries = embedder.embed([f"part {i}" for i in range(rows)])
    together = table.similarities(queries, 50, 0.0)
    assert together.shape == (rows, 50)
    for row in range(rows):
        alone = table.similarities(queries[row : row + 1], 50, 0.0)[0]
        np.testing.assert_allclose(together[row], alone, atol=1e-6)
        direct = [float(embedder.vectors[f"doc {s}"] @ queries[row]) for s in range(50)]
        np.testing.assert_allclose(together[row], direct, atol=1e-5)


class CoarseEmbedder(TableEmbedder):
    """Says its first 8 of 16 dimensions are an embedding of their own."""

    coarse_dims = 8


def test_the_coarse_pass_compares_the_cut_vectors_at_unit_length() -> None:
    embedder = CoarseEmbedder()
    table = VectorTable(embedder)
    for slot in range(30):
        table.put(slot, f"doc {slot}")
    queries = embedder.embed(["q1", "q2", "q3"])
    rough = table.coarse_similarities(queries, 30)
    assert rough.shape == (3, 30)

    def unit(v: Any) -> Any:
        return v[:8] / np.linalg.norm(v[:8])

    for row, query in enumerate(queries):
        direct = [float(unit(embedder.vectors[f"doc {s}"]) @ unit(query)) for s in range(30)]
        np.testing.assert_allclose(rough[row], direct, atol=1e-5)
    full = table.similarities(queries, 30, 0.0)
    assert not np.allclose(rough, full, atol=1e-3)  # the cut changes the scores
    table.put(30, "doc 30")  # a change is seen by the next coarse pass
    assert table.coarse_similarities(queries, 31)[0, 30] == pytest.approx(
        float(unit(embedder.vectors["doc 30"]) @ unit(queries[0])), abs=1e-5
    )


def test_without_coarse_dimensions_the_coarse_pass_is_the_full_one() -> None:
    embedder = TableEmbedder()
    table = VectorTable(embedder)
    for slot in range(20):
        table.put(slot, f"doc {slot}", (f"ex {slot}",))
    queries = embedder.embed(["q1"])
    np.testing.assert_array_equal(
        table.coarse_similarities(queries, 20), table.similarities(queries, 20, 0.0)
    )
