"""ToolResult: constructors, renderings, JSON safety."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from pathlib import Path

import pytest

from toolrig import ErrorCode, ToolResult, ToolResultError, error_result, success_result


def test_success_result_and_renderings() -> None:
    result = success_result({"n": 1}, tool="count", tool_call_id="c1")
    assert result.success and result.output == {"n": 1} and result.error is None
    assert result.metadata.tool_call_id == "c1" and result.metadata.attempts == 1
    assert result.render("object") is result
    as_dict = result.render("dict")
    assert as_dict["success"] is True and as_dict["metadata"]["tool"] == "count"
    assert as_dict["metadata"]["started_at"].endswith("+00:00")
    assert result.render("str") == '{"n":1}' == str(result)
    assert json.loads(result.render("json"))["output"] == {"n": 1}
    pretty = result.render("pretty")
    assert pretty.startswith("OK  count") and "c1" in pretty
    assert "call:" not in result.render("pretty", include_metadata=False)
    slim = result.to_dict(include_metadata=False, drop_empty=True)
    assert slim == {"success": True, "output": {"n": 1}}


def test_error_result_carries_code_hint_and_details() -> None:
    result = error_result(
        ErrorCode.INVALID_ARGUMENTS, "bad x", hint="send an int", details=[{"path": "x"}], tool="t"
    )
    assert not result.success and result.code == "invalid_arguments"
    assert result.to_text() == "Error [invalid_arguments]: bad x\nHint: send an int"
    assert result.to_dict(drop_empty=True)["error"] == {
        "code": "invalid_arguments",
        "message": "bad x",
        "hint": "send an int",
        "details": [{"path": "x"}],
    }
    with pytest.raises(ToolResultError, match=r"\[invalid_arguments\] bad x"):
        result.unwrap()
    assert success_result(5).unwrap() == 5


def test_fresh_call_ids_are_unique() -> None:
    ids = {success_result(None).metadata.tool_call_id for _ in range(1000)}
    assert len(ids) == 1000


def test_non_json_outputs_never_break_rendering() -> None:
    @dataclass
    class Point:
        x: int

    class Opaque:
        def __repr__(self) -> str:
            return "<opaque>"

    weird = {
        "when": datetime(2026, 1, 2),
        "price": Decimal("1.5"),
        "path": Path("/tmp/x"),
        "point": Point(3),
        "raw": b"\x00\x01",
        "set": {1},
        "obj": Opaque(),
        5: "int key",
    }
    result = success_result(weird)
    data = json.loads(result.to_json())
    assert data["output"]["when"] == "2026-01-02T00:00:00"
    assert data["output"]["point"] == {"x": 3}
    assert data["output"]["obj"] == "<opaque>"
    assert data["output"]["raw"] == "\x00\x01"  # valid UTF-8 bytes become text
    binary = json.loads(success_result({"blob": b"\xff\xfe", "n": 1}).to_json())
    assert binary["output"] == {"blob": "<2 bytes>", "n": 1}
    cyclic: list[object] = []
    cyclic.append(cyclic)
    assert isinstance(success_result(cyclic).to_json(), str)
    assert isinstance(result.to_text(), str) and isinstance(result.to_pretty(), str)


def test_unknown_render_type_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="use one of"):
        success_result(1).render("yaml")  # type: ignore[call-overload]


def test_error_codes_are_stable() -> None:
    """The codes are a public contract: exactly the ones the README's table documents."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    table = readme.split("| code | meaning |", 1)[1].split("\n\n", 1)[0]
    documented = {line.split("`")[1] for line in table.splitlines() if line.startswith("| `")}
    assert documented == {
        "not_found",
        "invalid_arguments",
        "timeout",
        "execution_error",
        "invalid_output",
        "cancelled",
        "permission_denied",
        "dependency_failed",
        "rate_limited",
        "not_supported",
        "guardrail",
    }
    assert {c.value for c in ErrorCode} == documented


def test_a_bare_result_has_no_code_and_unwraps_to_its_output() -> None:
    bare = ToolResult(success=True)
    assert bare.code is None and bare.error is None and bare.unwrap() is None
    assert bare.to_dict(include_metadata=False) == {"success": True, "output": None, "error": None}
    failed = error_result(ErrorCode.NOT_FOUND, "no such thing")
    assert failed.code == "not_found" and not failed.success
