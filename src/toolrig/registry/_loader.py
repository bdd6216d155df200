"""Read definition files: every good definition is returned, every problem is located.

A file holds one definition (a mapping) or several (a list of mappings). Problems name the
file, the line and the field.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from yaml.nodes import Node, SequenceNode

from toolrig.core.schema._validation import format_path
from toolrig.registry._definition import SHARED, ToolDefinition
from toolrig.registry._report import LoadError
from toolrig.registry._yamlsrc import YamlSyntaxError, locate, parse_yaml

__all__ = ["SUFFIXES", "ParsedDefinition", "error_at", "iter_definition_files", "read_file"]

SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True, slots=True)
class ParsedDefinition:
    """A valid definition with where it came from (for locating later problems)."""

    definition: ToolDefinition
    path: Path | None
    node: Node | None


def error_at(
    path: Path | None,
    node: Node | None,
    loc: tuple[str | int, ...],
    message: str,
    tool: str | None = None,
) -> LoadError:
    """A `LoadError` for field ``loc`` of the definition whose YAML node is ``node``."""
    line, _ = locate(node, loc)
    return LoadError(
        path=path, line=line, field=format_path(loc) if loc else None, message=message, tool=tool
    )


def iter_definition_files(folder: Path) -> Iterator[Path]:
    """YAML files under ``folder`` (recursively, hidden entries skipped), in a stable order."""
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.endswith(SUFFIXES) and not name.startswith("."):
                yield Path(root, name)


def read_file(path: Path) -> tuple[list[ParsedDefinition], list[LoadError]]:
    """The definitions in ``path`` and the problems found in it."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return [], [LoadError(path=path, line=None, field=None, message=f"cannot read: {exc}")]
    return read_text(text, path)


def read_text(
    text: str, path: Path | None = None
) -> tuple[list[ParsedDefinition], list[LoadError]]:
    """The definitions in YAML ``text`` and the problems found in it."""
    try:
        doc = parse_yaml(text)
    except YamlSyntaxError as exc:
        return [], [LoadError(path=path, line=exc.line, field=None, message=exc.message)]
    if isinstance(doc.data, list) and isinstance(doc.node, SequenceNode):
        items = list(zip(doc.data, doc.node.value, strict=True))
    elif isinstance(doc.data, dict):
        items = [(doc.data, doc.node)]
    else:
        kind = "an empty file" if doc.data is None else f"a {type(doc.data).__name__}"
        line = None if doc.node is None else doc.node.start_mark.line + 1
        message = f"expected a tool definition (a mapping) or a list of them, got {kind}"
        return [], [LoadError(path=path, line=line, field=None, message=message)]
    parsed: list[ParsedDefinition] = []
    errors: list[LoadError] = []
    for data, node in items:
        try:
            definition = ToolDefinition.model_validate(data, context=SHARED)
            parsed.append(ParsedDefinition(definition, path, node))
        except ValidationError as exc:
            errors.extend(_validation_errors(exc, data, path, node))
    return parsed, errors


def _validation_errors(
    exc: ValidationError, data: Any, path: Path | None, node: Node | None
) -> list[LoadError]:
    tool = data.get("name") if isinstance(data, dict) else None
    tool = tool if isinstance(tool, str) else None
    out = []
    for e in exc.errors(include_url=False):
        loc = tuple(_clean_loc(e["loc"], data))
        message = e["msg"]
        if e["type"] == "extra_forbidden":
            message = f"unknown key {loc[-1]!r}" if loc else "unknown key"
        elif e["type"] == "missing":
            message = f"required field {loc[-1]!r} is missing" if loc else message
        out.append(error_at(path, node, loc, message.removeprefix("Value error, "), tool))
    return out


def _clean_loc(loc: tuple[str | int, ...], data: Any) -> list[str | int]:
    """The path of pydantic's ``loc`` in ``data``: the parts naming a member of a union (``int``,
    ``literal['inherit']``) or a validator (``function-after[...]``) are dropped.

    The path is followed in the data while it can be: a key present or an index in range is
    kept whatever its text; text below a value that is not a mapping names a union member. Past
    a key the data lacks (a missing or normalised field), only the markers are dropped.
    """
    out: list[str | int] = []
    current, walking = data, True
    for part in loc:
        found, child = _step(current, part) if walking else (False, None)
        if found:
            current = child
        elif isinstance(part, str) and (
            "[" in part
            or part.startswith("function-")
            or (walking and not isinstance(current, dict))
        ):
            continue
        else:
            walking = False
        out.append(part)
    return out


def _step(value: Any, part: str | int) -> tuple[bool, Any]:
    """Whether ``part`` is in ``value`` (a key of a mapping, an index of a list), and what."""
    if isinstance(value, dict) and part in value:
        return True, value[part]
    if isinstance(value, list) and isinstance(part, int) and 0 <= part < len(value):
        return True, value[part]
    return False, None
