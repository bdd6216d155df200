"""Tools described in text for a system prompt: inputs, output and when to use each."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from toolrig.core.model._spec import ActionSpec, ToolSpec

__all__ = ["render_tool", "render_tools"]


class _HasSpec(Protocol):
    """A tool object (``@tool``, ``Tool``, a ``BaseTool``): it carries its spec."""

    @property
    def spec(self) -> ToolSpec: ...


def _spec_of(item: ToolSpec | _HasSpec) -> ToolSpec:
    from toolrig.core.model._spec import ToolSpec

    return item if isinstance(item, ToolSpec) else item.spec


def _type_of(schema: Mapping[str, Any]) -> str:
    if "enum" in schema:
        return " | ".join(json.dumps(v) for v in schema["enum"])
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind)
    if kind == "array":
        items = schema.get("items")
        return f"array of {_type_of(items)}" if isinstance(items, Mapping) and items else "array"
    if kind:
        return str(kind)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return " | ".join(_type_of(o) for o in schema[key] if isinstance(o, Mapping))
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    return "any"


def _constraints(schema: Mapping[str, Any]) -> str:
    names = {
        "minimum": ">=",
        "maximum": "<=",
        "exclusiveMinimum": ">",
        "exclusiveMaximum": "<",
        "minLength": "min length",
        "maxLength": "max length",
        "pattern": "pattern",
        "format": "format",
        "minItems": "min items",
        "maxItems": "max items",
    }
    parts = [f"{label} {schema[key]}" for key, label in names.items() if key in schema]
    if "default" in schema:
        parts.append(f"default {json.dumps(schema['default'], default=repr)}")
    return f" [{', '.join(parts)}]" if parts else ""


def _action_lines(title: str, action: ActionSpec, indent: str) -> list[str]:
    props: Mapping[str, Any] = action.parameters.get("properties") or {}
    required = set(action.parameters.get("required") or ())
    args = ", ".join(f"{n}{'' if n in required else '?'}" for n in props)
    out_type = action.output_type or "any"
    lines = [f"{indent}{title}({args}) -> {out_type}"]
    indent = " " * len(indent)  # the lines below belong to the first one
    if action.description:
        lines.append(f"{indent}  {action.description.strip().splitlines()[0]}")
    if action.when_to_use:
        lines.append(f"{indent}  When to use: {action.when_to_use}")
    for name, schema in props.items():
        if not isinstance(schema, Mapping):
            continue
        need = "required" if name in required else "optional"
        desc = f": {schema['description']}" if schema.get("description") else ""
        lines.append(f"{indent}  - {name} ({_type_of(schema)}, {need}){_constraints(schema)}{desc}")
    if action.output_description:
        lines.append(f"{indent}  Returns: {action.output_description}")
    return lines


def render_tool(tool: ToolSpec | _HasSpec) -> str:
    """One tool (its spec, or the tool object) as Markdown-ish text for a prompt."""
    spec = _spec_of(tool)
    lines = [f"### {spec.name}"]
    if spec.description:
        lines.append(spec.description.strip())
    if spec.when_to_use:
        lines.append(f"When to use: {spec.when_to_use}")
    if spec.is_multi_action:
        lines.append("Actions:")
        for name, action in spec.actions.items():
            lines.extend(_action_lines(name, action, "- "))
    else:
        action = next(iter(spec.actions.values()))
        shown: dict[str, Any] = {"description": ""}  # the tool's own lines say these once
        if action.when_to_use == spec.when_to_use:
            shown["when_to_use"] = None
        body = _action_lines(spec.name, action.model_copy(update=shown), "")
        lines.extend(body)
    return "\n".join(lines)


def render_tools(
    tools: Iterable[ToolSpec | _HasSpec], *, heading: str = "## Available tools"
) -> str:
    """A system-prompt section describing several tools (specs or tool objects)."""
    parts = [heading, "Call a tool by name with a JSON object of its parameters."]
    parts.extend(render_tool(t) for t in tools)
    return "\n\n".join(parts)
