"""The one plain-data description of a tool that every definition style ends as.

Providers, prompts and servers read only these specs; what runs (callables, validators) lives in
`toolrig.core.define._action`. The options are declared once, in
`toolrig.core.model._options`, and inherited here."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import Field, ValidationError, field_validator
from pydantic_core import ErrorDetails

from toolrig.core.model._errors import Problem, ToolDefinitionError
from toolrig.core.model._options import ActionOptions, ToolAnnotations, ToolCost, ToolOptions

__all__ = [
    "ActionSpec",
    "Problem",
    "ToolAnnotations",
    "ToolCost",
    "ToolSpec",
    "build_tool_spec",
    "check_name",
    "definition_error",
    "tool_options",
    "validation_problems",
]

_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\- ]{0,127}$")
NAME_RULE = "1-128 characters: letters, digits, '_', '-', '.', spaces; not starting with a symbol"


def check_name(value: str) -> str:
    """Validate a tool or action name (providers' own stricter rules are applied on export)."""
    if not isinstance(value, str):
        raise ValueError(f"a name must be a string, not {type(value).__name__} {value!r:.60}")
    if not _NAME.match(value) or value != value.strip():
        raise ValueError(f"invalid name {value!r}: use {NAME_RULE}")
    return value


class ActionSpec(ActionOptions):
    """One callable unit of a tool: what the model sees for it."""

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})
    """JSON Schema (an object schema) of the arguments."""
    output_type: str | None = None
    """The output's JSON type in one word (``string``, ``object``, ...)."""

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


class ToolSpec(ToolOptions):
    """Everything known about a tool except the code that runs it."""

    name: str
    description: str = ""
    actions: dict[str, ActionSpec]
    """The tool's actions by name; a single-action tool has one, named like the tool."""

    @field_validator("name")
    @classmethod
    def _valid_name(cls, value: str) -> str:
        return check_name(value)

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


_NONE_SAYS_NONE = frozenset({"timeout", "max_result_chars"})
"""The options whose ``None`` means "none" rather than "the default"."""


def tool_options(name: str, options: Mapping[str, Any]) -> ToolOptions:
    """``options`` as given (keywords, class attributes) checked together with the tool's
    ``name``: every problem comes out in one `ToolDefinitionError`. A ``None`` value
    means the option's default, except for ``timeout`` (``None``: no limit) and
    ``max_result_chars`` (``None``: never cut)."""
    problems: list[str] = []
    try:
        check_name(name)
    except ValueError as exc:
        problems.append(Problem(f"name: {exc}", ("name",)))
    checked = None
    try:
        checked = ToolOptions(
            **{k: v for k, v in options.items() if v is not None or k in _NONE_SAYS_NONE}
        )
    except ValidationError as exc:
        problems.extend(validation_problems(exc))
    if problems or checked is None:
        raise ToolDefinitionError(_subject(name), problems)
    return checked


def build_tool_spec(
    name: str, description: str, actions: Mapping[str, ActionSpec], options: ToolOptions
) -> ToolSpec:
    """The validated `ToolSpec`; every problem is reported in one
    `ToolDefinitionError`."""
    fields = {key: getattr(options, key) for key in ToolOptions.model_fields}
    try:
        return ToolSpec(name=name, description=description, actions=dict(actions), **fields)
    except ValidationError as exc:
        raise definition_error(_subject(name), exc) from None


def _subject(name: Any) -> str:
    """The name to report a definition under (any value: a wrong name is one of the problems)."""
    return name if isinstance(name, str) and name else "tool"


def definition_error(subject: str, exc: ValidationError) -> ToolDefinitionError:
    """One `ToolDefinitionError` listing every problem of a pydantic validation."""
    problems: list[str] = [*validation_problems(exc)]
    return ToolDefinitionError(subject, problems)


def validation_problems(exc: ValidationError) -> list[Problem]:
    """One problem per error of a pydantic validation: ``field.path: message``, located."""
    return [_problem(error) for error in exc.errors(include_url=False)]


def _problem(error: ErrorDetails) -> Problem:
    where = ".".join(map(str, error["loc"])) or "tool"
    cause = (error.get("ctx") or {}).get("error")
    message = str(cause) if error["type"] == "value_error" and cause else error["msg"]
    return Problem(f"{where}: {message}", tuple(error["loc"]))
