"""JSON data handling's promises, boundary by boundary (`toolrig.core.schema._json_data`).

The promise: `plain` says whether a value is JSON data a validator may read (no ``NaN`` or
``Infinity``, no lone surrogate, no integer past the int-to-text limit, only JSON types, at
most `MAX_DATA_DEPTH` deep), on its fast path for flat objects and on its general walk alike;
`data_problems` names where and why a value is not, within a limit and a budget, and refuses
rather than trusts what is past the budget; `value_at` finds a part or says it is absent;
`loads_json` refuses what JSON has no word for.

| boundary                                  | test                                                |
|-------------------------------------------|-----------------------------------------------------|
| `plain` agrees with `data_problems`: any  | `test_plain_agrees_with_data_problems`              |
| JSON value, and any with one bad value    |                                                     |
| put anywhere                              |                                                     |
| each bad kind, on each path: top-level    | `test_each_bad_value_on_each_path`                  |
| scalar, a flat object's value or key      |                                                     |
| (fast path), nested in                    |                                                     |
| arrays/objects/tuples (walk)              |                                                     |
| good non-ASCII: text and keys that are    | `test_each_bad_value_on_each_path`                  |
| not ASCII but are valid Unicode           |                                                     |
| depth: exactly `MAX_DATA_DEPTH` levels    | `test_depth_at_and_past_the_limit`                  |
| and one more, for arrays and objects      |                                                     |
| integers: the last readable and the first | `test_readable_int_at_the_limit`                    |
| unreadable integer, both signs; no limit  |                                                     |
| set                                       |                                                     |
| problems: each code, its location and its | `test_each_problem_is_named_where_it_is`            |
| words (the digits, the value, the advice) |                                                     |
| problems in the order of the value; at    | `test_problems_come_in_order_and_within_the_limit`  |
| most ``limit`` of them                    |                                                     |
| a mapping that cannot be read             | `test_each_problem_is_named_where_it_is`            |
| ``long_ints`` lets long integers through  | `test_each_problem_is_named_where_it_is`            |
| and nothing else                          |                                                     |
| the scan budget: exactly the budget of    | `test_the_scan_budget_at_its_boundary`              |
| values, and one more: refused, never      |                                                     |
| trusted                                   |                                                     |
| `value_at`: each kind of step that finds  | `test_value_at_finds_or_says_absent`                |
| nothing (absent values): a missing key, a |                                                     |
| non-text key, an index out of range at    |                                                     |
| either end, a step into a scalar          |                                                     |
| `loads_json`: ``NaN``, ``Infinity``,      | `test_loads_json_refuses_what_json_has_no_word_for` |
| ``-Infinity``; text nested too deep for   |                                                     |
| the decoder                               |                                                     |
"""

from __future__ import annotations

import math
import sys
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from datetime import date
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolrig import Tool
from toolrig.core.schema._json_data import (
    ABSENT,
    MAX_DATA_DEPTH,
    data_problems,
    loads_json,
    plain,
    readable_int,
    value_at,
)

LIMIT = sys.get_int_max_str_digits()
HUGE = 10**LIMIT  # the first integer past the int-to-text limit
SURROGATE = "a\ud800b"

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=20,
)
bad_values = st.sampled_from(
    [math.nan, math.inf, -math.inf, SURROGATE, HUGE, -HUGE, {1, 2}, b"x", date(2020, 1, 1)]
)


def _nested(depth: int, leaf: Any = 1, *, kind: str = "list") -> Any:
    value = leaf
    for _ in range(depth):
        value = [value] if kind == "list" else {"k": value}
    return value


@given(value=json_values)
def test_plain_agrees_with_data_problems(value: Any) -> None:
    assert plain(value) is True
    assert data_problems(value) == []


@given(value=json_values, bad=bad_values, data=st.data())
def test_plain_and_problems_find_one_bad_value_anywhere(value: Any, bad: Any, data: Any) -> None:
    # put the bad value at a random place: a new key of an object, an item of an array, the top
    path: list[Any] = []
    node = value
    while isinstance(node, dict | list) and node and data.draw(st.booleans()):
        key = data.draw(
            st.sampled_from(sorted(node) if isinstance(node, dict) else range(len(node)))
        )
        path.append(key)
        node = node[key]
    if isinstance(node, dict):
        node["bad"], loc = bad, (*path, "bad")
    elif isinstance(node, list):
        node.append(bad)
        loc = (*path, len(node) - 1)
    else:
        value, loc = bad, ()
    assert plain(value) is False
    problems = data_problems(value)
    assert [p[0] for p in problems] == [loc]


@pytest.mark.parametrize(
    "bad",
    [math.nan, math.inf, -math.inf, SURROGATE, HUGE, -HUGE, {1}, b"x", object(), 1j],
    ids=["nan", "inf", "-inf", "surrogate", "huge", "-huge", "set", "bytes", "object", "complex"],
)
def test_each_bad_value_on_each_path(bad: Any) -> None:
    for where in (
        bad,  # a top-level scalar
        {"a": 1, "b": bad},  # a flat object: the fast path
        {"a": "é", "b": True, "c": None, "d": 1.5, "e": bad},
        {"a": [1, bad]},  # the walk
        [1, "x", bad],
        [None, True, 2.5, bad],
        (1, (2, bad)),
        [{"a": {"b": bad}}],
        {"a": [1], "b": bad},  # the fast path gives up at the list; the walk must still look
    ):
        assert plain(where) is False, where
        assert data_problems(where), where


def test_bad_keys_on_each_path() -> None:
    for where in ({1: "x"}, {SURROGATE: 1}, {"a": {2: "x"}}, [{SURROGATE: 1}], {"a": [], 3: 1}):
        assert plain(where) is False, where
    for good in (
        {"é": "ü", "k": 2**63 - 1, "m": -(2**63), "f": -0.0},
        {"big": 2**63, "neg": -(2**63) - 1, "n": [HUGE - 1]},
        [{"é": ("ü", 1.0, None, False)}],
        [OrderedDict(a=[1]), _Items([2, "x"])],  # subclasses of dict and list are walked too
        "é",
        1.5,
        True,
        None,
        HUGE - 1,
        -(HUGE - 1),
        {"a": {}},
        [],
        (),
        {},
    ):
        assert plain(good) is True, good
        assert data_problems(good) == []


@pytest.mark.parametrize("kind", ["list", "dict"])
def test_depth_at_and_past_the_limit(kind: str) -> None:
    assert MAX_DATA_DEPTH == 256
    assert plain(_nested(MAX_DATA_DEPTH, kind=kind)) is True
    assert plain(_nested(MAX_DATA_DEPTH + 1, kind=kind)) is False
    assert plain({"k": _nested(MAX_DATA_DEPTH - 1, kind=kind)}) is True
    assert plain({"k": _nested(MAX_DATA_DEPTH, kind=kind)}) is False
    assert plain(_nested(10_000, kind=kind)) is False  # no RecursionError escapes
    # data_problems counts the steps to a value: a leaf 256 steps deep is fine, 257 is not
    assert data_problems(_nested(MAX_DATA_DEPTH, kind=kind)) == []
    (loc, code, text), *rest = data_problems(_nested(MAX_DATA_DEPTH + 1, kind=kind))
    assert (len(loc), code, rest) == (MAX_DATA_DEPTH + 1, "too_deep", [])
    assert text == "nested deeper than 256 levels; send flatter data"


def test_readable_int_at_the_limit() -> None:
    for sign in (1, -1):
        assert readable_int(sign * (HUGE - 1)) is True
        assert readable_int(sign * HUGE) is False
        assert readable_int(sign * 2**63) is True
    previous = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)  # no limit: every integer can be written as text
    try:
        assert readable_int(10 ** (LIMIT + 10)) is True
        assert plain({"n": 10 ** (LIMIT + 10)}) is True
    finally:
        sys.set_int_max_str_digits(previous)
    sys.set_int_max_str_digits(640)  # the smallest limit Python allows
    try:
        assert readable_int(10**640 - 1) is True
        assert readable_int(10**640) is False
        assert plain([10**640]) is False
        assert plain({"n": 10**640}) is False
    finally:
        sys.set_int_max_str_digits(previous)


class _Items(list[Any]):
    """A list subclass: still an array."""


class _Broken(Mapping[str, Any]):
    def __getitem__(self, key: str) -> Any:
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        raise RuntimeError("cannot be read")

    def __len__(self) -> int:
        return 1


def test_each_problem_is_named_where_it_is() -> None:
    value = {
        "nan": [math.nan],
        "inf": math.inf,
        "text": SURROGATE,
        "long": HUGE,
        "set": {1},
        "frozen": frozenset(),
        "date": date(2020, 1, 1),
        "keys": {3: "x"},
        "ukey": {SURROGATE: 1},
        "broken": _Broken(),
    }
    found = {loc: (code, text) for loc, code, text in data_problems(value)}
    assert found[("nan", 0)] == ("not_finite", "nan is not a JSON number; send a finite number")
    assert found[("inf",)] == ("not_finite", "inf is not a JSON number; send a finite number")
    assert found[("text",)] == ("unicode", "text with an unpaired surrogate is not valid Unicode")
    assert found[("long",)] == (
        "too_long",
        f"an integer of about {LIMIT + 1:,} digits is past the {LIMIT:,} digits a number may "
        "have here; send a smaller number",
    )
    assert found[("set",)] == ("not_json", "a set value is not JSON data; send an array")
    assert found[("frozen",)][1].endswith("send an array")
    assert found[("date",)][0] == "not_json" and found[("date",)][1].endswith("send JSON data")
    assert found[("keys",)] == ("key_type", "object keys must be strings, got 3")
    assert found[("ukey",)] == ("unicode", "a key is not valid Unicode text")
    assert found[("broken",)] == ("unreadable", "an object that could not be read")
    assert len(found) == 10
    # long_ints: a long integer is fine, and nothing else changes
    relaxed = {loc for loc, _, _ in data_problems(value, long_ints=True)}
    assert relaxed == set(found) - {("long",)}


def test_problems_come_in_order_and_within_the_limit() -> None:
    value = [math.nan, {"b": math.inf, "a": SURROGATE}, (HUGE,), {1: 2}]
    locs = [loc for loc, _, _ in data_problems(value)]
    assert locs == [(0,), (1, "b"), (1, "a"), (2, 0), (3,)]
    assert [loc for loc, _, _ in data_problems(value, 2)] == [(0,), (1, "b")]
    assert data_problems(value, 1) == [
        ((0,), "not_finite", "nan is not a JSON number; send a finite number")
    ]
    assert data_problems(list(range(30)) + [math.nan] * 30) == [
        ((i,), "not_finite", "nan is not a JSON number; send a finite number")
        for i in range(30, 50)
    ]


def test_the_scan_budget_at_its_boundary() -> None:
    assert data_problems([0] * 99_999) == []  # the list and its items: 100,000 values
    (problem,) = data_problems([0] * 100_000)
    assert problem == (
        (),
        "too_large",
        "more than 100,000 values in one call; send less data per call",
    )
    # a bad value found within the budget is named, not hidden behind "too large"
    assert [p[1] for p in data_problems([math.nan] + [0] * 100_000)] == ["not_finite"]


def test_value_at_finds_or_says_absent() -> None:
    value = {"a": [10, {"b": None}], "t": (1, 2)}
    assert value_at(value, ()) is value
    assert value_at(value, ("a", 1, "b")) is None  # present, and None
    assert value_at(value, ("t", 1)) == 2
    assert value_at(value, ["a", 0]) == 10
    for loc in (("x",), ("a", 2), ("a", -1), ("a", "0"), (0,), ("a", 0, "z"), ("a", 1, 0)):
        assert value_at(value, loc) is ABSENT, loc
    assert value_at("text", (0,)) is ABSENT


def test_loads_json_refuses_what_json_has_no_word_for() -> None:
    assert loads_json('{"a": [1, 2.5, "x", null, true]}') == {"a": [1, 2.5, "x", None, True]}
    for text in ("NaN", "[Infinity]", '{"a": -Infinity}'):
        with pytest.raises(ValueError, match="is not JSON"):
            loads_json(text)
    with pytest.raises(ValueError, match=r"^JSON text nested too deeply$"):
        loads_json("[" * 100_000 + "]" * 100_000)


def test_null_is_json_data_at_the_top_too() -> None:
    """``None`` on its own is JSON's ``null``: a tool whose output schema allows ``null`` may
    return it (it used to be refused as ``invalid_output`` with no reason given)."""
    assert plain(None) is True
    assert plain(True) is True and plain(0) is True and plain("") is True
    nullable = Tool(
        name="maybe",
        func=lambda found=False: "yes" if found else None,
        parameters={"type": "object", "properties": {"found": {"type": "boolean"}}},
        output_schema={"type": ["string", "null"]},
    )
    empty = nullable.run({})
    assert (empty.success, empty.output, empty.error) == (True, None, None)
    assert nullable.run({"found": True}).output == "yes"
    strict = Tool(
        name="never_null",
        func=lambda: None,
        parameters={"type": "object", "properties": {}},
        output_schema={"type": "string"},
    )
    refused = strict.run({})
    assert refused.code == "invalid_output"
    assert refused.error is not None and "expected a string" in refused.error.message
