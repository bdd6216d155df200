"""The tool definition file, as a strict pydantic model (unknown keys are rejected).

The options are the core's own models, inherited, so a YAML key means what the keyword of the
same name means in ``@tool`` / ``Tool(...)``.

Parameters reuse the core's `ToolParameter` vocabulary; a few spellings that
read naturally in YAML are normalised first (``type: float``, ``type: enum`` with typed values,
``enum`` on an array meaning the allowed items).
"""

from __future__ import annotations

import re
from typing import Any, Final

from pydantic import (
    Field,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)

from toolrig.core.model._options import ActionOptions, ToolOptions
from toolrig.core.schema._params import ToolParameter
from toolrig.registry._shapes import shared_parameters

__all__ = ["PROVIDER_NAME_RULE", "SHARED", "ActionDefinition", "ToolDefinition"]

_PROVIDER_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
PROVIDER_NAME_RULE = "1-64 letters, digits, '_' or '-' (a name every provider accepts)"


def _provider_name(value: str, what: str) -> str:
    if not _PROVIDER_NAME.match(value):
        raise ValueError(f"{what} {value!r} is not provider-safe: use {PROVIDER_NAME_RULE}")
    return value


def _enum_type(values: Any) -> str:
    """The parameter type implied by the values of ``type: enum``."""
    if isinstance(values, list) and values:
        if all(isinstance(v, bool) for v in values):
            return "boolean"
        if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            return "integer"
        if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
            return "number"
    return "string"


def normalise_parameter(raw: Any) -> Any:
    """YAML spellings -> the core vocabulary; anything malformed is left for validation."""
    if not isinstance(raw, dict):
        return raw
    out = dict(raw)
    kind = out.get("type")
    if isinstance(kind, str) and kind.strip().lower() == "enum":
        out["type"] = _enum_type(out.get("enum"))
    elif (
        isinstance(kind, str)
        and kind.strip().lower() in ("array", "list")
        and "enum" in out
        and "items" not in out
    ):
        # `enum` on an array lists the allowed items, not allowed whole arrays.
        items: dict[str, Any] = {"enum": out.pop("enum")}
        items["type"] = out.pop("item_type", None) or _enum_type(items["enum"])
        out["items"] = items
    if isinstance(out.get("items"), dict):
        out["items"] = normalise_parameter(out["items"])
    props = out.get("properties")
    if isinstance(props, dict):
        out["properties"] = {k: normalise_parameter(v) for k, v in props.items()}
    return out


def _normalise_list(value: Any) -> Any:
    return [normalise_parameter(p) for p in value] if isinstance(value, list) else value


SHARED: Final[dict[str, Any]] = {"share_parameters": True}
"""The validation context under which a parameter list equal to one validated before gets
that list's parameters (see `toolrig.registry._shapes`): the loader's. Without it, a
definition is validated on its own, whatever the caller's options (``strict=True``...)."""


def _parameters(value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
    """The list normalised and validated, or (under `SHARED`) the parameters of an equal list
    validated before."""
    if isinstance(info.context, dict) and info.context.get("share_parameters"):
        return shared_parameters(value, lambda raw: handler(_normalise_list(raw)))
    return handler(_normalise_list(value))


class ActionDefinition(ActionOptions):
    """One action of a multi-action tool (an entry of the ``actions:`` map).

    The options (``description``, ``when_to_use``, ``output_schema``, ...) are the core's
    `ActionOptions`.
    """

    description: str = ""
    parameters: tuple[ToolParameter, ...] = ()
    executor: str | None = None
    """Import path of this action's function; by default the tool executor's attribute named
    ``method`` (or the action's name)."""
    method: str | None = None

    _params = field_validator("parameters", mode="wrap")(_parameters)


class ToolDefinition(ToolOptions):
    """A tool as written in a YAML definition file.

    The tool's options (``version``, ``timeout``, ``tags``, ...) are the core's
    `ToolOptions`; a single-action tool also gives its
    ``parameters`` and output here.
    """

    name: str
    """Unique and provider-safe (``^[A-Za-z0-9_-]{1,64}$``)."""
    description: str = Field(min_length=1)
    """What the tool does, for the model (required)."""
    parameters: tuple[ToolParameter, ...] = ()
    output_schema: dict[str, Any] | None = None
    output_description: str | None = None
    executor: str | None = None
    """Import path (``package.module.attr`` or ``package.module:attr``) of a function, a
    ``BaseTool`` subclass or an object; imported on first call, never at load."""
    actions: dict[str, ActionDefinition] | None = None
    """For multi-action tools: the actions by name (then ``parameters`` stays empty)."""

    _params = field_validator("parameters", mode="wrap")(_parameters)

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        return _provider_name(value, "name")

    @field_validator("dependencies")
    @classmethod
    def _deps(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for dep in value:
            _provider_name(dep, "dependency")
        if len(set(value)) != len(value):
            raise ValueError("a dependency is listed twice")
        return value

    @field_validator("actions")
    @classmethod
    def _action_names(
        cls, value: dict[str, ActionDefinition] | None
    ) -> dict[str, ActionDefinition] | None:
        if value is not None:
            if not value:
                raise ValueError("`actions` is empty; declare at least one action")
            for key in value:
                _provider_name(key, "action name")
        return value

    @model_validator(mode="after")
    def _one_style(self) -> ToolDefinition:
        if self.actions is not None and (self.parameters or self.output_schema is not None):
            raise ValueError(
                "a tool with `actions` declares parameters and output_schema per action"
            )
        return self
