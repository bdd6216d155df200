"""Tool and action options, each declared once.

`ToolOptions` holds what can be said about a tool besides its name, description and
actions; `ActionOptions` the same for one action. The specs inherit them
(`ToolSpec`, `ActionSpec`), the YAML definitions inherit them,
and the keyword forms (``@tool(**options)``, ``Tool(..., **options)``, ``@action(**options)``)
are typed by `ToolOptionsDict` / `ActionOptionsDict` (in ``._option_keys``), whose keys a
test holds equal to the models' fields. So an option is added in one place and cannot drift.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from toolrig.core.model._timeout import check_timeout
from toolrig.core.model._unset import UNSET, Unset

__all__ = [
    "ActionOptions",
    "FrozenModel",
    "ToolAnnotations",
    "ToolCost",
    "ToolIcon",
    "ToolOptions",
    "check_version",
]

_SEMVER = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$"
)


def check_version(value: str) -> str:
    """``value`` if it is a semantic version such as ``1.2.0``, else `ValueError`."""
    if not _SEMVER.match(value):
        raise ValueError(f"version {value!r} is not a semantic version such as 1.2.0")
    return value


def _not_one_string(value: Any, info: ValidationInfo) -> Any:
    # pydantic would answer "Input should be a valid tuple"; say what the author meant instead
    if isinstance(value, str):
        raise ValueError(f"`{info.field_name}` must be a list of strings, not one string")
    return value


class FrozenModel(BaseModel):
    """Base of the plain-data models: immutable, unknown keys refused, built on first use."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True, defer_build=True)


class ToolAnnotations(FrozenModel):
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


class ToolIcon(FrozenModel):
    """An icon for user interfaces (MCP's ``icons``): an ``https:`` URL or a ``data:image/``
    URI (other schemes are refused: clients fetch them)."""

    src: str = Field(min_length=1, max_length=100_000)
    mime_type: str | None = Field(None, alias="mimeType")
    sizes: tuple[str, ...] = ()
    """``WxH`` (``48x48``) or ``any``; none: any size."""
    theme: Literal["light", "dark"] | None = None

    @field_validator("src")
    @classmethod
    def _safe_source(cls, value: str) -> str:
        if not value.startswith(("https://", "data:image/")):
            raise ValueError("an icon's src must be an https: URL or a data:image/ URI")
        return value

    @field_validator("sizes")
    @classmethod
    def _sizes(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for size in value:
            if size != "any" and not re.fullmatch(r"[1-9]\d{0,4}x[1-9]\d{0,4}", size):
                raise ValueError(f"icon size {size!r} is neither WxH (48x48) nor 'any'")
        return value


class ToolCost(FrozenModel):
    """What a call costs: ``base_cost + per_item_cost x items`` (items: the first array given)."""

    base_cost: float = Field(0.0, ge=0)
    per_item_cost: float = Field(0.0, ge=0)
    unit: str = "USD"


class ToolOptions(FrozenModel):
    """Everything said about a tool besides its name, description and actions."""

    display_name: str | None = None
    """A human title (UIs); the model sees ``name``."""
    version: str = "0.1.0"
    """A semantic version such as ``1.2.0``."""
    when_to_use: str | None = None
    """When to prefer this tool, for the model (shown with the description)."""
    type: str | None = None
    """A free category such as ``data``, ``analysis``, ``content``, ``business``."""
    layer: str | None = None
    """A free grouping of tools by level (``tools``, ``ml``, ...)."""
    tags: tuple[str, ...] = ()
    """Words for filtering and search."""
    annotations: ToolAnnotations = Field(default_factory=ToolAnnotations)
    """Behaviour hints (read-only, destructive, idempotent, open world)."""
    timeout: float | Unset | None = Field(UNSET, exclude_if=lambda value: value is UNSET)
    """Seconds before a call is abandoned; ``None`` means no limit; left out (`UNSET`), the
    executor's default limit (``toolrig.runtime.DEFAULT_TIMEOUT``) applies."""
    max_retries: int = Field(0, ge=0, le=100)
    """Extra attempts after a retryable failure (timeouts, transient errors)."""
    max_result_chars: int | Literal["inherit"] | None = "inherit"
    """The most characters of output a call hands on before it is cut to a head and a tail
    (the whole kept for ``read_result``); ``"inherit"``: the caller's budget (an agent's, an
    MCP server's); ``None``: never cut."""
    isolation: Literal["thread", "process"] = "thread"
    """Where a sync call runs: a worker thread, or a child process killed at its timeout."""
    runs_on: str | None = Field(None, min_length=1, max_length=200, pattern=r"^[A-Za-z0-9_.:\-]+$")
    """The queue of the workers that run this tool's calls (``toolrig worker``); ``None``: here."""
    dependencies: tuple[str, ...] = ()
    """Names of tools whose output this tool needs first."""
    cost: ToolCost | None = None
    """What a call costs, when known."""
    examples: tuple[str, ...] = ()
    """Sample requests this tool answers (used by prompts and tool search)."""
    icons: tuple[ToolIcon, ...] = ()
    """Icons for user interfaces, sent to MCP clients (``[{"src": "https://...",
    "mimeType": "image/png", "sizes": ["48x48"]}]``)."""
    scopes: tuple[str, ...] = ()
    """OAuth scopes a caller needs to see and call it over MCP (``()``: derived from the
    annotations when the server checks scopes)."""

    _sequences = field_validator("tags", "dependencies", "examples", "scopes", mode="before")(
        _not_one_string
    )

    @field_validator("max_result_chars")
    @classmethod
    def _budget(cls, value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool) and value < 1:
            raise ValueError("max_result_chars must be at least 1 (None: never cut)")
        return value

    @field_validator("version")
    @classmethod
    def _semver(cls, value: str) -> str:
        return check_version(value)

    @field_validator("timeout", mode="plain")
    @classmethod
    def _timeout(cls, value: Any) -> float | Unset | None:
        return check_timeout(value)

    @field_validator("annotations", mode="before")
    @classmethod
    def _no_annotations(cls, value: Any) -> Any:
        return ToolAnnotations() if value is None else value

    @property
    def options(self) -> ToolOptions:
        """Only the options of this object (of a spec or a definition, say), as given."""
        if type(self) is ToolOptions:
            return self
        return ToolOptions.model_construct(
            _fields_set=self.model_fields_set & set(ToolOptions.model_fields),
            **{name: getattr(self, name) for name in ToolOptions.model_fields},
        )


class ActionOptions(FrozenModel):
    """Everything said about one action besides its name and parameters."""

    description: str | None = None
    """What the action does; ``None``: the function's docstring."""
    output_description: str | None = None
    """One line saying what the output is."""
    output_schema: dict[str, Any] | None = None
    """JSON Schema of the output; it replaces the one the return annotation implies."""
    when_to_use: str | None = None
    """When to prefer this action, for the model."""
    annotations: ToolAnnotations | None = None
    """Overrides of the tool's annotations for this action (e.g. ``read`` is read-only)."""
    examples: tuple[str, ...] = ()
    """Sample requests this action answers (used by prompts and tool search)."""

    _sequences = field_validator("examples", mode="before")(_not_one_string)

    @property
    def options(self) -> ActionOptions:
        """Only the options of this object (of a spec or a definition, say), as given."""
        if type(self) is ActionOptions:
            return self
        return ActionOptions.model_construct(
            _fields_set=self.model_fields_set & set(ActionOptions.model_fields),
            **{name: getattr(self, name) for name in ActionOptions.model_fields},
        )
