"""Parameters declared as data (``ToolParameter``), turned into JSON Schema."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from toolrig.core.model._errors import Loc, Problem

__all__ = ["ParamType", "ToolParameter", "parameters_to_schema"]

ParamType = Literal["string", "integer", "number", "boolean", "array", "object", "any", "null"]

_TYPE_ALIASES: dict[str, str] = {
    "str": "string",
    "text": "string",
    "int": "integer",
    "float": "number",
    "double": "number",
    "bool": "boolean",
    "list": "array",
    "tuple": "array",
    "dict": "object",
    "mapping": "object",
    "none": "null",
    "enum": "string",
}


class ToolParameter(BaseModel):
    """One parameter of a tool or action, declared as data (for tools built at run time or YAML).

    ``required`` defaults to true unless a ``default`` is given. Constraints map to JSON Schema:
    ``min``/``max`` -> ``minimum``/``maximum``, ``min_length``/``max_length``, ``pattern``,
    ``format``, ``enum``, ``item_type``/``items``, ``min_items``/``max_items``, nested
    ``properties``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, defer_build=True)

    name: str | None = None
    type: ParamType = "string"
    description: str = ""
    required: bool | None = None
    default: Any = None
    enum: tuple[Any, ...] | None = None
    min: float | None = Field(None, alias="minimum")
    max: float | None = Field(None, alias="maximum")
    exclusive_min: float | None = None
    exclusive_max: float | None = None
    min_length: int | None = Field(None, ge=0)
    max_length: int | None = Field(None, ge=0)
    pattern: str | None = None
    format: str | None = None
    item_type: ParamType | None = None
    items: ToolParameter | None = None
    min_items: int | None = Field(None, ge=0)
    max_items: int | None = Field(None, ge=0)
    unique_items: bool = False
    properties: dict[str, ToolParameter] | None = None
    additional_properties: bool | None = None
    nullable: bool = False

    @field_validator("type", "item_type", mode="before")
    @classmethod
    def _normalise_type(cls, value: Any) -> Any:
        if isinstance(value, str):
            low = value.strip().lower()
            return _TYPE_ALIASES.get(low, low)
        return value

    @field_validator("pattern")
    @classmethod
    def _compilable(cls, value: str | None) -> str | None:
        # JSON Schema patterns are ECMA-262 regular expressions (``\p{L}`` included), checked
        # by the validator that will enforce them
        if value is not None:
            from toolrig.core.schema._json_schema import SchemaCompileError, compile_json_schema

            try:
                compile_json_schema({"type": "string", "pattern": value})
            except SchemaCompileError:
                raise ValueError(
                    f"pattern {value!r} is not a valid regular expression (JSON Schema patterns "
                    "follow ECMA-262)"
                ) from None
        return value

    @model_validator(mode="after")
    def _coherent(self) -> ToolParameter:
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"min ({self.min:g}) is greater than max ({self.max:g})")
        if (
            self.min_length is not None
            and self.max_length is not None
            and self.min_length > self.max_length
        ):
            raise ValueError("min_length is greater than max_length")
        if (
            self.min_items is not None
            and self.max_items is not None
            and self.min_items > self.max_items
        ):
            raise ValueError("min_items is greater than max_items")
        if self.items is not None and self.item_type is not None:
            raise ValueError("give either item_type or items, not both")
        return self

    @property
    def has_default(self) -> bool:
        """Whether a default was given (``default: null`` counts)."""
        return "default" in self.model_fields_set

    @property
    def is_required(self) -> bool:
        """Required unless said otherwise or a default is given."""
        return self.required if self.required is not None else not self.has_default

    def to_json_schema(self) -> dict[str, Any]:
        """The JSON Schema of this parameter (without its name)."""
        schema: dict[str, Any] = {}
        if self.type != "any":
            schema["type"] = [self.type, "null"] if self.nullable else self.type
        if self.description:
            schema["description"] = self.description
        if self.enum is not None and self.type != "array":
            schema["enum"] = list(self.enum) + ([None] if self.nullable else [])
        numeric = {
            "minimum": self.min,
            "maximum": self.max,
            "exclusiveMinimum": self.exclusive_min,
            "exclusiveMaximum": self.exclusive_max,
        }
        for key, bound in numeric.items():
            if bound is not None:
                schema[key] = (
                    int(bound) if self.type == "integer" and bound == int(bound) else bound
                )
        for key, value in (
            ("minLength", self.min_length),
            ("maxLength", self.max_length),
            ("pattern", self.pattern),
            ("format", self.format),
            ("minItems", self.min_items),
            ("maxItems", self.max_items),
        ):
            if value is not None:
                schema[key] = value
        if self.unique_items:
            schema["uniqueItems"] = True
        if self.items is not None:
            schema["items"] = self.items.to_json_schema()
        elif self.item_type is not None:
            schema["items"] = {} if self.item_type == "any" else {"type": self.item_type}
        elif self.type == "array":
            schema["items"] = {}
        if self.type == "array" and self.enum is not None:
            # an enum on an array lists the allowed items, as authors of declarations mean it
            schema["items"] = {**schema["items"], "enum": list(self.enum)}
        if self.properties is not None:
            schema["type"] = "object" if not self.nullable else ["object", "null"]
            schema["properties"] = {k: p.to_json_schema() for k, p in self.properties.items()}
            required = [k for k, p in self.properties.items() if p.required]
            if required:
                schema["required"] = required
        if self.additional_properties is not None:
            schema["additionalProperties"] = self.additional_properties
        if self.has_default:
            schema["default"] = self.default
        return schema


def parameters_to_schema(
    params: list[ToolParameter] | tuple[ToolParameter, ...], *, subject: str
) -> dict[str, Any]:
    """An object JSON Schema from a parameter list.

    Rejects unnamed and duplicate parameters, and defaults (nested ones included) that break
    their own parameter's constraints; every problem is reported in one
    `ToolDefinitionError`, located from ``("parameters", index, ...)``.
    """
    from toolrig.core.model._errors import ToolDefinitionError

    problems: list[str] = []
    properties: dict[str, Any] = {}
    required: list[str] = []
    declared: list[tuple[ToolParameter, dict[str, Any], Loc]] = []
    for index, param in enumerate(params):
        loc: Loc = ("parameters", index)
        if not param.name:
            problems.append(Problem(f"parameter #{index + 1} has no name", loc))
            continue
        if param.name in properties:
            problems.append(Problem(f"parameter {param.name!r} is declared twice", loc))
            continue
        properties[param.name] = param.to_json_schema()
        declared.append((param, properties[param.name], loc))
        if param.is_required:
            required.append(param.name)
    if not _defaults_hold(declared):
        for param, own, at in declared:
            problems.extend(_default_problems(param, own, param.name or "", at))
    if problems:
        raise ToolDefinitionError(subject, problems)
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


def _defaults_hold(declared: list[tuple[ToolParameter, dict[str, Any], Loc]]) -> bool:
    """Whether every default is known to satisfy its parameter, checked in one validation.

    The defaults of a parameter list, as one object, against the parameters' schemas (none
    required): one schema compiled per tool instead of one per defaulted parameter. ``False``
    (check each, to say which and why) when one breaks or a nested property has a default.
    """
    from toolrig.core.schema._json_schema import SchemaCompileError, compile_json_schema

    if any(_nested_default(param) for param, _, _ in declared):
        return False
    defaults = {param.name: param.default for param, _, _ in declared if param.has_default}
    if not defaults:
        return True
    properties = {
        param.name: {k: v for k, v in schema.items() if k != "default"}
        for param, schema, _ in declared
        if param.has_default
    }
    try:
        compiled = compile_json_schema({"type": "object", "properties": properties})
    except SchemaCompileError:
        return False  # each parameter's own check decides (and skips the ones that fail)
    return compiled.is_valid(defaults)


def _nested_default(param: ToolParameter) -> bool:
    return any(
        child.has_default or _nested_default(child) for child in (param.properties or {}).values()
    )


def _default_problems(
    param: ToolParameter, schema: Mapping[str, Any], label: str, loc: Loc
) -> list[Problem]:
    """Defaults of ``param`` (whose JSON Schema is ``schema``) and of its nested properties
    that break their own constraints."""
    problems = []
    if param.has_default:
        why = _default_breaks(param, schema)
        if why is not None:
            problems.append(
                Problem(
                    f"parameter `{label}`: default {param.default!r} breaks its own "
                    f"constraints ({why})",
                    (*loc, "default"),
                )
            )
    nested = schema.get("properties", {})
    for key, child in (param.properties or {}).items():
        problems.extend(
            _default_problems(child, nested[key], f"{label}.{key}", (*loc, "properties", key))
        )
    return problems


def _default_breaks(param: ToolParameter, schema: Mapping[str, Any]) -> str | None:
    """Why ``param``'s default fails its own ``schema``, in one line (``None``: it does not).

    Checked strictly, as a model would have to send it. A schema that does not compile is
    reported by whoever compiles the parameters, not here.
    """
    from toolrig.core.schema._json_schema import SchemaCompileError, compile_json_schema
    from toolrig.core.schema._schema_problems import describe_problems

    try:
        compiled = compile_json_schema({k: v for k, v in schema.items() if k != "default"})
    except SchemaCompileError:
        return None
    if compiled.is_valid(param.default):
        return None
    return describe_problems(compiled, param.default, limit=1)[0]
