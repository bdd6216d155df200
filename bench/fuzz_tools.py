"""The tools :mod:`fuzz` calls: one of each way to define a tool (decorated function, JSON
Schema, class with actions, YAML definition), parameters of many shapes, outputs that are hard
to render, and the codes each may legitimately answer with."""

from __future__ import annotations

import math
from collections.abc import Mapping
from enum import IntEnum
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from toolrig import BaseTool, Tool, ToolError, action, tool
from toolrig.registry import Registry


class Level(IntEnum):
    LOW = 1
    HIGH = 2


class Point(BaseModel):
    x: float
    y: float = 0.0


@tool
def add(a: int, b: int = 1) -> int:
    """Add two integers."""
    return a + b


@tool
def power(
    base: Annotated[int, Field(ge=-1000, le=1000)], exp: Annotated[int, Field(ge=0, le=2000)]
) -> int:
    """``base`` to the power ``exp`` (up to 6,000 digits: past the int-to-text limit)."""
    return int(base**exp)


@tool
def echo(value: Any = None) -> Any:
    """Return the value as received."""
    return value


@tool
def label(
    tags: list[str],
    level: Level = Level.LOW,
    mode: Literal["a", "b"] = "a",
    point: Point | None = None,
) -> dict[str, Any]:
    """Label a point."""
    return {"tags": tags, "level": int(level), "mode": mode, "point": point}


@tool
def unique(tags: set[str]) -> int:
    """Count distinct tags."""
    return len(tags)


@tool
def risky(mode: Literal["ok", "tool_error", "crash"]) -> str:
    """Answer, refuse with a code of its own, or crash."""
    if mode == "tool_error":
        raise ToolError("refused on purpose", code="rate_limited", hint="Wait.")
    if mode == "crash":
        raise RuntimeError("crashed on purpose")
    return "ok"


class _BadRepr:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


class _Odd(Mapping[Any, Any]):
    """A mapping that is not a dict, holding deep data."""

    def __getitem__(self, key: Any) -> Any:
        value: Any = "bottom"
        for _ in range(3000):
            value = [value]
        return value

    def __iter__(self) -> Any:
        return iter(["deep"])

    def __len__(self) -> int:
        return 1


def _hostile(kind: str) -> Any:
    if kind == "nan":
        return {"nan": math.nan, "inf": [math.inf, -math.inf]}
    if kind == "bytes":
        return [b"\xff\xfe", bytearray(b"ok"), memoryview(b"x")]
    if kind == "cycle":
        loop: list[Any] = [1]
        loop.append(loop)
        return {"loop": loop}
    if kind == "deep":
        value: Any = "bottom"
        for _ in range(5000):
            value = {"k": value}
        return value
    if kind == "surrogate":
        return {"\ud800": "\udfff text"}
    if kind == "hugeint":
        return [10**5000, -(10**40000)]
    if kind == "badrepr":
        return {"object": _BadRepr(), "set": {1, 2}}
    return _Odd()


@tool
def make(
    kind: Literal["nan", "bytes", "cycle", "deep", "surrogate", "hugeint", "badrepr", "odd"],
) -> Any:
    """Return a value that is hard to render."""
    return _hostile(kind)


PROFILE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 20},
        "age": {"type": "integer", "minimum": 0, "maximum": 150},
        "kind": {"enum": ["x", "y"]},
        "scores": {"type": "array", "items": {"type": "number"}, "maxItems": 5},
        "where": {
            "type": "object",
            "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
            "required": ["x"],
            "additionalProperties": False,
        },
    },
    "required": ["name"],
    "additionalProperties": False,
}


def _profile(**values: Any) -> dict[str, Any]:
    return values


profile = Tool("profile", "A profile, declared as JSON Schema.", PROFILE_SCHEMA, _profile)


class Notes(BaseTool):
    """Notes with two actions."""

    @action
    def write(self, text: str, tags: list[str] | None = None) -> int:
        """Write a note."""
        return len(text) + len(tags or [])

    @action
    def count(self, limit: int = 10) -> int:
        """Count notes."""
        return min(limit, 3)


YAML = """\
name: yaml_note
description: A tool defined in YAML.
parameters:
  - {name: title, type: string, required: true, max_length: 50}
  - {name: count, type: integer, minimum: 0, maximum: 100}
  - {name: choice, type: string, enum: [red, green]}
"""


def yaml_registry(folder: Path) -> Registry:
    """A registry holding ``yaml_note``, bound to code that returns its arguments."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "yaml_note.yaml").write_text(YAML, encoding="utf-8")
    registry = Registry()
    report = registry.load(folder)
    if not report.ok:
        raise RuntimeError(str(report))
    registry.bind("yaml_note")(lambda **values: values)
    return registry


TOOLS: list[Any] = [add, power, echo, label, unique, risky, make, profile]
"""The tools given to the executor (``Notes`` and ``yaml_note`` are called their own ways)."""


def own_codes(name: str, arguments: Any) -> set[str | None]:
    """The codes a valid call of ``name`` may answer with (``None``: success)."""
    mode = arguments.get("mode") if name == "risky" and isinstance(arguments, Mapping) else None
    if isinstance(mode, str):
        return {{"tool_error": "rate_limited", "crash": "execution_error"}.get(mode)}
    return {None}
