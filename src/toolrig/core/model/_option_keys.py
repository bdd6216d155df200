"""The tool and action options as keyword arguments: `ToolOptionsDict` and
`ActionOptionsDict`, whose keys a test holds equal to the fields of `ToolOptions` and
`ActionOptions`.

Apart from the models so that reading the option names (a tool class does when it is
created) does not build the models: those, and the pydantic modules behind a ``Field``,
are imported with the first tool defined. No ``from __future__ import annotations``: a
``TypedDict`` compiles each annotation written as text (≈ 0.1 ms each), so only the two
naming models are.
"""

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, TypedDict

if TYPE_CHECKING:
    from toolrig.core.model._options import ToolAnnotations, ToolCost
    from toolrig.core.model._unset import Unset

__all__ = ["ActionOptionsDict", "ToolOptionsDict"]


class ToolOptionsDict(TypedDict, total=False):
    """`ToolOptions` as keyword arguments (same keys; see the model for each one)."""

    display_name: str | None
    version: str
    when_to_use: str | None
    type: str | None
    layer: str | None
    tags: Sequence[str]
    annotations: "ToolAnnotations | None"
    timeout: "float | Unset | None"
    max_retries: int
    max_result_chars: 'int | Literal["inherit"] | None'
    isolation: Literal["thread", "process"]
    runs_on: str | None
    dependencies: Sequence[str]
    cost: "ToolCost | None"
    examples: Sequence[str]
    icons: Sequence[Any]
    scopes: Sequence[str]


class ActionOptionsDict(TypedDict, total=False):
    """`ActionOptions` as keyword arguments (same keys; see the model for each one)."""

    description: str | None
    output_description: str | None
    output_schema: dict[str, Any] | None
    when_to_use: str | None
    annotations: "ToolAnnotations | None"
    examples: Sequence[str]
