"""The catalogue as the console shows it: one entry per callable action, and tool search."""

from __future__ import annotations

import inspect
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolrig.console._tryit import is_secret
from toolrig.core.define._base import BaseTool
from toolrig.core.model._names import ActionRef
from toolrig.registry._catalog import Catalog
from toolrig.search._index import ToolIndex

__all__ = ["ActionView", "Param", "action_views", "redact", "search_catalog", "secret_names"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Param:
    """One top-level parameter, for the parameters table."""

    name: str
    type: str
    required: bool
    description: str
    secret: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class ActionView:
    """One callable action (``tool`` or ``tool.action``) and what is known of it."""

    name: str
    tool: str
    description: str
    parameters: dict[str, Any]
    params: list[Param]
    annotations: dict[str, Any]
    destructive: bool
    cost: str | None
    version: str
    source: str
    tags: tuple[str, ...]

    @property
    def schema_json(self) -> str:
        return json.dumps(self.parameters, ensure_ascii=False, indent=2)


def _shown(path: str | Path) -> str:
    """``path`` relative to the working folder when it is under it, else as is."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _source(catalog: Catalog, tool: BaseTool) -> str:
    """Where a tool is defined: its YAML file, or its Python file and line (else module)."""
    source = getattr(catalog, "source", None)
    if source is not None:
        path = source(tool.spec.name)
        if path is not None:
            return _shown(path)
    target: Any = getattr(tool, "_func", None) or type(tool)
    try:
        file = inspect.getsourcefile(target)
        line = inspect.getsourcelines(target)[1]
    except (OSError, TypeError):
        return str(getattr(target, "__module__", "?"))
    return f"{_shown(file)}:{line}" if file else str(getattr(target, "__module__", "?"))


def _type(schema: Any) -> str:
    if not isinstance(schema, dict):
        return "any"
    if "enum" in schema:
        return " | ".join(json.dumps(v) for v in schema["enum"])
    kind = schema.get("type", "any")
    if kind == "array" and isinstance(schema.get("items"), dict):
        return f"array of {_type(schema['items'])}"
    return " | ".join(kind) if isinstance(kind, list) else str(kind)


def action_views(catalog: Catalog) -> list[ActionView]:
    """Every action of the catalogue, in the order the tools were added."""
    out: list[ActionView] = []
    for tool in catalog.tools():
        spec = tool.spec
        source = _source(catalog, tool)
        cost = None
        if spec.cost is not None:
            cost = f"{spec.cost.base_cost:g} {spec.cost.unit}"
            if spec.cost.per_item_cost:
                cost += f" + {spec.cost.per_item_cost:g} per item"
        for name, action in spec.actions.items():
            annotations = spec.action_annotations(name)
            properties = action.parameters.get("properties") or {}
            required = set(action.parameters.get("required", ()))
            out.append(
                ActionView(
                    name=ActionRef(spec.name, name, spec.is_multi_action).call_name,
                    tool=spec.name,
                    description=action.description or spec.description,
                    parameters=action.parameters,
                    params=[
                        Param(
                            name=p,
                            type=_type(s),
                            required=p in required,
                            description=str(s.get("description", ""))
                            if isinstance(s, dict)
                            else "",
                            secret=isinstance(s, dict) and is_secret(s),
                        )
                        for p, s in properties.items()
                    ],
                    annotations=annotations.model_dump(exclude_none=True),
                    destructive=bool(annotations.destructive),
                    cost=cost,
                    version=spec.version,
                    source=source,
                    tags=spec.tags,
                )
            )
    return out


def search_catalog(catalog: Catalog, query: str, k: int = 20) -> list[str]:
    """Call names for ``query``, best first (lexical tool search over the catalogue)."""
    index = ToolIndex(catalog.specs(), embedders=())
    return [hit.name for hit in index.search(query, k=k, mode="lexical")]


SECRET_MASK = "••••••"


def secret_names(catalog: Catalog) -> dict[str, set[str]]:
    """The parameters marked secret, by call name (only actions that have some)."""
    out: dict[str, set[str]] = {}
    for view in action_views(catalog):
        hidden = {p.name for p in view.params if p.secret}
        if hidden:
            out[view.name] = hidden
    return out


def redact(arguments: Any, hidden: set[str] | None) -> Any:
    """``arguments`` with the values of the ``hidden`` parameters masked."""
    if not hidden or not isinstance(arguments, dict):
        return arguments
    return {k: SECRET_MASK if k in hidden else v for k, v in arguments.items()}
