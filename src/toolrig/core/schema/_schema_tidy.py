"""Remove the noise pydantic adds to generated schemas (auto titles) before a model sees them."""

from __future__ import annotations

from typing import Any

__all__ = ["tidy_schema"]


def _auto_title(name: str) -> str:
    return name.replace("_", " ").strip().title()


def tidy_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``schema`` without titles that pydantic derived from names (they cost tokens and
    say nothing); titles a developer wrote are kept."""
    out = _tidy(schema, None)
    out.pop("title", None)
    return out  # type: ignore[no-any-return]


def _tidy(node: Any, name: str | None) -> Any:
    if isinstance(node, list):
        return [_tidy(v, None) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if (
            key == "title"
            and isinstance(value, str)
            and name is not None
            and (value == _auto_title(name) or value == name)
        ):
            continue
        if key in ("properties", "$defs", "definitions") and isinstance(value, dict):
            out[key] = {k: _tidy(v, k) for k, v in value.items()}
        elif key in ("default", "const", "enum", "examples"):
            out[key] = value
        else:
            out[key] = _tidy(value, None)
    return out
