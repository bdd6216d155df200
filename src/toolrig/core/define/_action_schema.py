"""`ActionSchema`: an action of a `BaseTool` declared as data (the explicit style).

A module of its own so that it is built on first use: it is a pydantic model with a
``Field``, and ``import toolrig`` builds none."""

from __future__ import annotations

from pydantic import Field

from toolrig.core.model._options import ActionOptions
from toolrig.core.schema._params import ToolParameter

__all__ = ["ActionSchema"]


class ActionSchema(ActionOptions):
    """An action declared as data (the explicit style); its method has the same name."""

    name: str
    description: str = ""
    parameters: list[ToolParameter] = Field(default_factory=list)
    output_type: str | None = None
    """The output's JSON type in one word; it implies ``output_schema`` when that is not given."""
    method: str | None = None
    """Name of the implementing method, when it differs from ``name``."""
