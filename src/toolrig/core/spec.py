"""The one plain-data description of a tool that every definition style ends as.

Providers, prompts and servers read only these specs; what runs (callables, validators) lives
in :mod:`toolrig.core.action`.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = ["ActionSpec", "ToolAnnotations", "ToolCost", "ToolSpec"]

_SEMVER = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$"
)
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\- ]{0,127}$")
NAME_RULE = "1-128 characters: letters, digits, '_', '-', '.', spaces; not starting with a symbol"


def check_name(value: str) -> str:
    """Validate a tool or action name (providers' own stricter rules are applied on export)."""
    if not _NAME.match(value) or value != value.strip():
        raise ValueError(f"invalid name {value!r}: use {NAME_RULE}")
    return value


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True, defer_build=True)


class ToolAnnotations(_Frozen):
    """Behaviour hints shown to models and MCP clients (hints, not guarantees)."""

    title: str | None = None
    read_only: bool | None = Field(None, alias="readOnlyHint")
    """The tool does not change its environment."""
    destructive: bool | None = Field(None, alias="destructiveHint")
    """The tool may delete or overwrite things (meaningful when not read-only)."""
    idempotent: bool | None = Field(None, alias="idempotentHint")
    """Calling it again with the same arguments has no further effect."""
    open_world: bool | None = Field(None, alias="openWorldHint")
    """The tool talks to the world outside (web, remote services)."""

    def merged(self, override: ToolAnnotations | None) -> ToolAnnotations:
        """These annotations with every field set in ``override`` replaced."""
        if override is None:
            return self
        return self.model_copy(update=override.model_dump(exclude_unset=True, by_alias=False))


class ToolCost(_Frozen):
    """What a call costs: ``base_cost + per_item_cost x items`` (items: the first array given)."""

    base_cost: float = Field(0.0, ge=0)
    per_item_cost: float = Field(0.0, ge=0)
    unit: str = "USD"


class ActionSpec(_Frozen):
    """One callable unit of a tool: what the model sees for it."""

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})
    """JSON Schema (an object schema) of the arguments."""
    output_schema: dict[str, Any] | None = None
    """JSON Schema of the output, when declared."""
    output_type: str | None = None
    """The output's JSON type in one word (``string``, ``object``, ...)."""
    output_description: str | None = None
    """One line saying what the output is."""
    when_to_use: str | None = None
    annotations: ToolAnnotations | None = None
    """Overrides of the tool's annotations for this action (e.g. ``read`` is read-only)."""
    examples: tuple[str, ...] = ()
    """Sample requests this action answers (used by prompts and tool search)."""

    @field_validator("name")
    @classmethod
    def _valid_name(cls, value: str) -> str:
        return check_name(value)

    @field_validator("parameters")
    @classmethod
    def _object_schema(cls, value: dict[str, Any]) -> dict[str, Any]:
        if value.get("type", "object") != "object":
            raise ValueError("parameters must be a JSON Schema with type 'object'")
        return value


class ToolSpec(_Frozen):
    """Everything known about a tool except the code that runs it."""

    name: str
    description: str = ""
    display_name: str | None = None
    version: str = "0.1.0"
    when_to_use: str | None = None
    type: str | None = None
    """A free category such as ``data``, ``analysis``, ``content``, ``business``."""
    layer: str | None = None
    tags: tuple[str, ...] = ()
    annotations: ToolAnnotations = Field(default_factory=ToolAnnotations)
    timeout: float | None = Field(None, gt=0)
    """Seconds before a call is abandoned; ``None`` means no limit."""
    max_retries: int = Field(0, ge=0, le=100)
    """Extra attempts after a retryable failure (timeouts, transient errors)."""
    dependencies: tuple[str, ...] = ()
    cost: ToolCost | None = None
    examples: tuple[str, ...] = ()
    actions: dict[str, ActionSpec]
    """The tool's actions by name; a single-action tool has one, named like the tool."""

    @field_validator("name")
    @classmethod
    def _valid_name(cls, value: str) -> str:
        return check_name(value)

    @field_validator("version")
    @classmethod
    def _semver(cls, value: str) -> str:
        if not _SEMVER.match(value):
            raise ValueError(f"version {value!r} is not a semantic version such as 1.2.0")
        return value

    @field_validator("actions")
    @classmethod
    def _has_actions(cls, value: dict[str, ActionSpec]) -> dict[str, ActionSpec]:
        if not value:
            raise ValueError("a tool needs at least one action")
        for key, action in value.items():
            if key != action.name:
                raise ValueError(f"action key {key!r} differs from its name {action.name!r}")
        return value

    @property
    def is_multi_action(self) -> bool:
        """True when the tool groups several named actions (or one not named like the tool)."""
        return len(self.actions) > 1 or next(iter(self.actions)) != self.name

    def action_annotations(self, action: str) -> ToolAnnotations:
        """The tool's annotations with the action's own overrides applied."""
        return self.annotations.merged(self.actions[action].annotations)
