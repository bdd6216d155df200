"""Turning scores into hits, boundary by boundary (docs/search.md; ``search._hits`` and
``search._diversify``): the ``k`` best, one per tool when grouped, near-duplicates moved down.

The promises: the hits are the ``k`` best scores, best first, ties in slot order, never a slot
that may not be returned (``-inf``) nor a removed one; grouped, each tool once, under its best
action's score, and still ``k`` tools when one tool's actions fill the first candidates; a
near-duplicate (similarity above the threshold) of a candidate already taken is moved down by
how far it exceeds the threshold, its closest taken one counting (not the sum of them), and a
candidate below the threshold is not moved; with no weight or fewer than two candidates the
order is the scores'; after ``picks`` picks the rest follow by their lowered scores.

| promise | boundary | test |
|---|---|---|
| the best k | k under, at, over the finite count; `-inf` slots; removed slots | `..._best_k` |
| ties | equal scores: slot order | `..._best_k` |
| scores | rounded to 6 places | `..._best_k` |
| grouped | one per tool at its best action's score, named by the tool | `..._grouped_*` |
| still k | one tool's 40 actions ahead of 6 others, k 1, 3, 7 (± spread) | `..._still_k` |
| no spread | weight 0 or below, one candidate: the scores' order | `..._unmoved` |
| near-duplicate | above the threshold: moved below a lower distinct one | `..._near_*` |
| below threshold | similarity under it, at it: not moved | `..._near_*` |
| closest counts | two taken neighbours: the larger excess, not their sum | `..._closest_*` |
| picks | one pick, then the rest by lowered scores (not re-picked) | `..._picks` |
| negative | a weight below 0: nothing pulled up | `..._negative_*` |
| the scale | weight 2 × lead 0.5 is a push of 1 (not 4) | `..._weight_times_*` |
| the rest | lowered after one pick; 40 ties of 5 values in slot order | `..._the_rest_*` |
| stable rest | equal lowered scores keep their order | `..._picks` |
| with spread | `top_hits` diversifies its candidates, `k` picks when not grouped | `..._spread` |
| the lead | weight 1 and a lead of 0.15: not moved; equal scores: a lead of 1 | `..._the_lead_*` |
| many ties | 40 scores of 5 values: ties in slot order (past numpy's small sort) | `..._many_*` |
| not finite | an infinite or NaN score: shown as 0 | `..._not_finite_*` |
| the window | k = 2: a distinct 16th (24th by tool) comes up, a 17th (25th) not | `..._window_*` |
"""

from __future__ import annotations

from typing import Any

import pytest

from toolrig.core.model._spec import ToolAnnotations
from toolrig.search._diversify import diversify
from toolrig.search._documents import ActionDocument
from toolrig.search._hits import SearchHit, hits_of, top_hits

np: Any = pytest.importorskip("numpy", reason="the search extra (numpy) ranks with arrays")
INF = float("-inf")


def doc(tool: str, action: str = "run") -> ActionDocument:
    return ActionDocument(
        call_name=f"{tool}.{action}",
        tool=tool,
        action=action,
        fields={},
        examples=(),
        type=None,
        layer=None,
        tags=frozenset(),
        annotations=ToolAnnotations(),
    )


def unit(*rows: list[float]) -> Any:
    matrix = np.array(rows, dtype=np.float32)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def names(hits: list[SearchHit]) -> list[str]:
    return [h.name for h in hits]


# -- the best k -------------------------------------------------------------------------------
DOCS = [doc("a"), doc("b"), None, doc("c"), doc("d"), doc("e")]
TOTAL = np.array([0.5, 0.9, 0.99, INF, 0.9, 0.1234567891], dtype=np.float64)
"""Slot 2 is removed (no document) and slot 3 may not be returned."""


@pytest.mark.parametrize(
    ("k", "expected"),
    [
        (1, ["b.run"]),
        (2, ["b.run", "d.run"]),  # a tie: the lower slot first
        (4, ["b.run", "d.run", "a.run", "e.run"]),
        (5, ["b.run", "d.run", "a.run", "e.run"]),  # all there is
        (50, ["b.run", "d.run", "a.run", "e.run"]),
    ],
)
def test_the_best_k(k: int, expected: list[str]) -> None:
    hits = top_hits(TOTAL, DOCS, k, "action")
    assert names(hits) == expected
    assert [h.score for h in hits] == [0.9, 0.9, 0.5, 0.123457][: len(hits)]
    assert all((h.tool, h.action) == (h.name.split(".")[0], "run") for h in hits)


def test_grouped_one_per_tool_at_its_best_action() -> None:
    docs = [doc("x", "low"), doc("y", "one"), doc("x", "high"), doc("z", "one"), doc("y", "two")]
    total = np.array([0.2, 0.5, 0.8, 0.1, 0.6])
    hits = top_hits(total, docs, 5, "tool")
    assert [(h.name, h.action, h.score) for h in hits] == [
        ("x", "high", 0.8),
        ("y", "two", 0.6),
        ("z", "one", 0.1),
    ]
    assert names(hits_of(docs, [(2, 0.8), (0, 0.2), (4, 0.6)], 2, "tool")) == ["x", "y"]
    assert names(hits_of(docs, [(2, 0.8), (0, 0.2)], 2, "action")) == ["x.high", "x.low"]


def crowd() -> tuple[list[ActionDocument | None], Any]:
    """One tool's 40 actions score above six single tools."""
    docs: list[ActionDocument | None] = [doc("ledger", f"a{i}") for i in range(40)]
    docs += [doc(f"tool{i}") for i in range(6)]
    total = np.array([1.0 - i / 1000 for i in range(40)] + [0.5 - i / 100 for i in range(6)])
    return docs, total


@pytest.mark.parametrize("spread", [False, True])
@pytest.mark.parametrize("k", [1, 3, 7])
def test_a_grouped_search_still_gives_k_tools(k: int, spread: bool) -> None:
    docs, total = crowd()
    vectors = unit(*([[1.0, 0.0]] * 40 + [[0.0, 1.0]] * 6))
    how = (lambda order: vectors[order], 1.0, 0.8) if spread else None
    hits = top_hits(total, docs, k, "tool", how)
    assert names(hits) == ["ledger", *(f"tool{i}" for i in range(6))][:k]


# -- diversify --------------------------------------------------------------------------------
ORDER = np.array([10, 11, 12])
SCORES = np.array([1.0, 0.95, 0.9], dtype=np.float32)


def spread(vectors: Any, *, weight: float = 1.0, picks: int | None = None) -> list[int]:
    return diversify(ORDER, SCORES, vectors, weight=weight, lead=1.0, threshold=0.8, picks=picks)


NEAR = unit([1.0, 0.0, 0.0], [0.99, 0.141, 0.0], [0.0, 1.0, 0.0])
"""Slot 11 is a near-duplicate of 10 (similarity 0.99); 12 is unlike both."""


@pytest.mark.parametrize("weight", [0.0, -1.0])
def test_no_weight_or_one_candidate_is_unmoved(weight: float) -> None:
    assert spread(NEAR, weight=weight) == [10, 11, 12]
    one = diversify(
        np.array([7]), np.array([1.0]), unit([1.0, 0.0]), weight=1, lead=1, threshold=0.8
    )
    assert one == [7] and all(type(i) is int for i in spread(NEAR, weight=0.0))


def test_a_near_duplicate_is_moved_below_a_distinct_one() -> None:
    moved = spread(NEAR)
    assert moved == [10, 12, 11] and all(type(i) is int for i in moved)


@pytest.mark.parametrize("similarity", [0.5, 0.8])
def test_a_candidate_at_or_below_the_threshold_is_not_moved(similarity: float) -> None:
    below = unit([1.0, 0.0], [similarity, float(np.sqrt(1 - similarity**2))], [0.0, 1.0])
    assert spread(below) == [10, 11, 12]


def test_the_closest_taken_one_counts_not_their_sum() -> None:
    """10 and 11 (unlike each other) are taken first; 12 is as near to each (0.71, over a
    threshold of 0.6): its excess counts once, so it stays above 13 (0.4, unlike all), where
    the sum of the two would drop it below."""
    order = np.array([10, 11, 12, 13])
    scores = np.array([1.0, 0.99, 0.9, 0.4], dtype=np.float32)
    vectors = unit([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0])
    excess = float((vectors @ vectors.T)[2, 0]) - 0.6
    assert 0.9 - excess / 0.4 > 0.4 > 0.9 - 2 * excess / 0.4
    ranked = diversify(order, scores, vectors, weight=1.0, lead=1.0, threshold=0.6)
    assert ranked == [10, 11, 12, 13]


def test_after_the_picks_the_rest_follow_by_their_lowered_scores() -> None:
    """A (1.0), B (0.9) unlike A, B' (0.89) a near-duplicate of B, C (0.5) unlike all: picked
    one by one B' falls below C once B is taken; after one pick (A) the rest keep their
    order, as only A's penalties apply."""
    order = np.array([1, 2, 3, 4])
    scores = np.array([1.0, 0.9, 0.89, 0.5], dtype=np.float32)
    vectors = unit([1, 0, 0], [0, 1, 0], [0, 0.99, 0.141], [0, 0, 1])
    args: dict[str, Any] = {"weight": 1.0, "lead": 1.0, "threshold": 0.8}
    assert diversify(order, scores, vectors, **args) == [1, 2, 4, 3]
    assert diversify(order, scores, vectors, picks=1, **args) == [1, 2, 3, 4]
    assert diversify(order, scores, vectors, picks=99, **args) == [1, 2, 4, 3]
    level = np.array([0.5, 0.5, 0.5, 0.5], dtype=np.float32)
    apart = unit([1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1])
    assert diversify(order, level, apart, picks=0, **args) == [1, 2, 3, 4]  # stable


def test_a_negative_weight_moves_nothing_up() -> None:
    """A weight below 0 is no spread at all: it would otherwise pull near-duplicates up."""
    order = np.array([1, 2, 3])
    scores = np.array([1.0, 0.95, 0.9], dtype=np.float32)
    vectors = unit([1.0, 0.0], [0.0, 1.0], [0.99, 0.141])  # 3 is a near-duplicate of 1
    for weight in (-1.0, -0.001):
        kept = diversify(order, scores, vectors, weight=weight, lead=1.0, threshold=0.8)
        assert kept == [1, 2, 3]


def test_the_push_is_the_weight_times_the_lead() -> None:
    """Weight 2 and lead 0.5 push by 1 per unit of excess (as weight 1, lead 1), so a
    near-duplicate 0.05 over the threshold (0.25 lower) stays above a distinct 0.5; pushed by
    4 (a quotient) it would fall below."""
    order = np.array([1, 2, 3])
    scores = np.array([1.0, 0.95, 0.5], dtype=np.float32)
    vectors = unit([1.0, 0.0], [0.85, float(np.sqrt(1 - 0.85**2))], [0.0, 1.0])
    args: dict[str, Any] = {"threshold": 0.8}
    assert diversify(order, scores, vectors, weight=2.0, lead=0.5, **args) == [1, 2, 3]
    assert diversify(order, scores, vectors, weight=8.0, lead=0.5, **args) == [1, 3, 2]


def test_the_rest_follows_its_lowered_scores_in_slot_order() -> None:
    """After one pick the rest is sorted by its scores less its push: a near-duplicate of
    the pick falls below a distinct lower one; among 40 of five values, ties keep their
    order (past numpy's stable small sort)."""
    order = np.array([1, 2, 3])
    scores = np.array([1.0, 0.9, 0.8], dtype=np.float32)
    vectors = unit([1.0, 0.0], [0.99, 0.141], [0.0, 1.0])
    args: dict[str, Any] = {"weight": 1.0, "lead": 1.0, "threshold": 0.8}
    assert diversify(order, scores, vectors, picks=1, **args) == [1, 3, 2]
    many = np.arange(100, 140)
    level = np.array([(i * 7) % 5 / 10 for i in range(40)], dtype=np.float32)
    apart = np.eye(40, dtype=np.float32)  # nothing alike: no push at all
    expected = [100 + i for i in sorted(range(40), key=lambda i: -float(level[i]))]
    assert diversify(many, level, apart, picks=0, **args) == expected


def test_top_hits_diversifies_its_candidates_with_k_picks() -> None:
    docs = [doc("users", "list"), doc("users", "list_groups"), doc("mail", "send")]
    total = np.array([1.0, 0.95, 0.6])
    vectors = unit([1.0, 0.0], [0.99, 0.141], [0.0, 1.0])
    plain = top_hits(total, docs, 3, "action")
    assert names(plain) == ["users.list", "users.list_groups", "mail.send"]
    # 5 times the lead (1.0 less the mean 0.85), over 1 - 0.8, times 0.19 of excess: 0.71 off
    moved = top_hits(total, docs, 3, "action", (lambda order: vectors[order], 5.0, 0.8))
    assert names(moved) == ["users.list", "mail.send", "users.list_groups"]
    assert [h.score for h in moved] == [1.0, 0.6, 0.95]  # moved, its own score kept


def test_the_lead_scales_how_far_a_near_duplicate_moves() -> None:
    """The push is the weight times the lead (the best score less the mean): at weight 1 the
    lead of 0.15 moves the near-duplicate by 0.14, not below 0.6; equal scores (a lead of 0)
    count as a lead of 1, so they are still spread."""
    docs = [doc("users", "list"), doc("users", "list_groups"), doc("mail", "send")]
    vectors = unit([1.0, 0.0], [0.99, 0.141], [0.0, 1.0])
    how = (lambda order: vectors[order], 1.0, 0.8)
    kept = top_hits(np.array([1.0, 0.95, 0.6]), docs, 3, "action", how)
    assert names(kept) == ["users.list", "users.list_groups", "mail.send"]
    level = top_hits(np.array([0.5, 0.5, 0.5]), docs, 3, "action", how)
    assert names(level) == ["users.list", "mail.send", "users.list_groups"]
    assert [h.score for h in level] == [0.5, 0.5, 0.5]


def test_many_equal_scores_keep_their_slot_order() -> None:
    """Past 16 candidates numpy's default sort is no longer stable: among 40 scores of five
    values, each tie stays in slot order."""
    docs: list[ActionDocument | None] = [doc(f"t{i:02}") for i in range(40)]
    scores = [(i * 7) % 5 / 10 for i in range(40)]
    total = np.array(scores)
    expected = sorted(range(40), key=lambda i: -scores[i])  # Python's sort is stable
    hits = top_hits(total, docs, 40, "action")
    assert names(hits) == [f"t{i:02}.run" for i in expected]


def test_a_score_that_is_not_finite_is_shown_as_zero() -> None:
    hits = hits_of([doc("a"), doc("b")], [(0, float("inf")), (1, float("nan"))], 2, "action")
    assert [(h.name, h.score) for h in hits] == [("a.run", 0.0), ("b.run", 0.0)]


@pytest.mark.parametrize(("group", "window"), [("action", 16), ("tool", 24)])
@pytest.mark.parametrize("inside", [True, False])
def test_the_diversified_window_is_the_best_3k_plus_10_or_4k_plus_16(
    group: str, window: int, inside: bool
) -> None:
    """With k = 2 the best 16 candidates are diversified (24 grouped by tool): the rest of a
    window of near-duplicates of the best is pushed down, and a distinct candidate comes up
    second if it is among them, not if it is just past them."""
    count = window + 1
    distinct = window - 1 if inside else window  # its slot: the last inside, or the first out
    docs: list[ActionDocument | None] = [doc(f"t{i:02}") for i in range(count)]
    total = np.array([1.0 - i / 100 for i in range(count)])
    rows = [[0.0, 1.0] if i == distinct else [1.0, 0.02 * (i % 3)] for i in range(count)]
    vectors = unit(*rows)
    hits = top_hits(total, docs, 2, group, (lambda order: vectors[order], 5.0, 0.5))
    second = f"t{distinct:02}" if inside else "t01"
    assert [h.tool for h in hits] == ["t00", second]
