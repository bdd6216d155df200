"""Every rendering of a result is total: it never raises, and the JSON ones are valid JSON."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from toolrig import error_result, success_result, tool
from toolrig.core.result._jsonable import MAX_DEPTH, to_jsonable


def nested(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


class View(Mapping[str, Any]):
    """A mapping that is not a dict."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)


class BadRepr:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


class BadMapping(View):
    def __iter__(self) -> Iterator[str]:
        raise RuntimeError("cannot iterate")


def cyclic() -> dict[str, Any]:
    data: dict[str, Any] = {"name": "loop"}
    data["self"] = data
    return data


OUTPUTS: dict[str, Any] = {
    "10**5000": 10**5000,
    "-10**200000": -(10**200_000),
    "NaN": float("nan"),
    "Infinity in a list": [float("inf"), float("-inf")],
    "deep data in a non-dict mapping": View({"a": nested(2000)}),
    "object whose repr raises": BadRepr(),
    "a mapping that cannot be iterated": BadMapping({}),
    "bytes that are not UTF-8": b"\xff\xfe",
    "lone surrogate text": "a\ud800b",
    "lone surrogate key": {"\udfff": 1},
    "a cycle": cyclic(),
    "a deep list": nested(5000),
    "odd keys": {1: "a", None: "b", (1, 2): "c", 1.5: "d", BadRepr(): "e"},
    "a set of huge ints": {10**5000},
}


@pytest.mark.parametrize("case", list(OUTPUTS))
def test_every_rendering_of_any_output_is_total(case: str) -> None:
    result = success_result(OUTPUTS[case], tool="t")
    for rendered in (
        result.to_text(),
        result.to_json(),
        result.to_pretty(),
        result.render("json", include_metadata=False),
        str(result),
    ):
        assert isinstance(rendered, str)
        rendered.encode("utf-8")
    json.loads(result.to_json())
    as_dict = result.to_dict()  # JSON data as it is: the same as the JSON text says
    text = json.dumps(as_dict, allow_nan=False, ensure_ascii=False)
    text.encode("utf-8")
    assert json.loads(text) == json.loads(result.render("json", drop_empty=False))


def test_the_documented_forms() -> None:
    assert to_jsonable(float("nan")) == "NaN"
    assert to_jsonable([float("inf"), -math.inf]) == ["Infinity", "-Infinity"]
    exact = to_jsonable(10**5000)
    assert isinstance(exact, str) and exact == "1" + "0" * 5000
    assert to_jsonable(-(10**200_000)).startswith("<negative integer of about 200001 digits")
    assert to_jsonable(b"abc") == "abc" and to_jsonable(b"\xff") == "<1 bytes>"
    assert to_jsonable("a\ud800b") == "a\ufffdb"
    assert to_jsonable(cyclic()) == {"name": "loop", "self": "<cycle>"}
    assert to_jsonable(BadRepr()) == "<BadRepr object>"
    deep = to_jsonable(nested(MAX_DEPTH + 10))
    for _ in range(MAX_DEPTH):
        deep = deep[0]
    assert deep == "<nested too deeply>"
    assert to_jsonable({1: "a", None: "b", False: "c"}) == {"1": "a", "null": "b", "false": "c"}


def test_a_tool_returning_a_huge_number_renders() -> None:
    @tool
    def power(base: int, exponent: int) -> int:
        """Raise to a power."""
        return int(base**exponent)

    result = power.run(base=10, exponent=5000)
    assert result.success
    assert result.to_text() == json.dumps("1" + "0" * 5000)
    assert json.loads(result.to_json())["output"] == "1" + "0" * 5000
    assert "output: " in result.to_pretty()


def test_errors_render_whatever_they_hold() -> None:
    result = error_result(
        "custom_code\ud800",
        "bad \ud800",
        hint="fix \udfff",
        details={"n": float("nan"), "huge": 10**5000, "obj": BadRepr()},
    )
    text = result.to_text()
    assert text.startswith("Error [custom_code\ufffd]: bad \ufffd") and "Hint: fix \ufffd" in text
    data = json.loads(result.to_json())
    assert data["error"]["details"]["n"] == "NaN"
    assert data["error"]["details"]["obj"] == "<BadRepr object>"
    result.to_pretty().encode("utf-8")


def test_metadata_with_odd_values_renders() -> None:
    result = success_result(1)
    assert result.metadata is not None
    result.metadata.duration_ms = float("nan")
    result.metadata.cost = float("inf")
    result.metadata.started_at = float("inf")
    result.metadata.extra = {"x": BadRepr()}
    data = json.loads(result.to_json())
    assert data["metadata"]["cost"] == "Infinity"
    assert "call:" in result.to_pretty()
