"""Type annotations -> (JSON Schema, pydantic-core schema) for the types tools use, without
pydantic's general schema generator.

Building a ``TypeAdapter`` compiles a validator and a serializer and walks pydantic's generic
machinery: about a millisecond per function, most of the cost of defining a tool, although
export needs only the JSON Schema and no call has asked for a validator yet. The annotations of
tool parameters are few: scalars, dates, ``list``/``dict``/``tuple``/``set``, ``Literal``,
``Optional`` and unions, ``Enum`` and ``Annotated[..., Field(...)]`` with simple constraints.
For those this module builds, directly,

* the JSON Schema pydantic produces, key for key and in the same order, already as
  :func:`~toolrig.core.schema._schema_tidy.tidy_schema` leaves it (no titles derived from
  names), and
* the core schema pydantic compiles, so the validator built from it (on first use) accepts,
  coerces and rejects exactly as pydantic's would.

Anything else raises :class:`Unsupported`, and the caller asks pydantic as before. Tests compare
both results with pydantic's on a broad set of annotations. The two translations are modules of
their own: :mod:`~toolrig.core.schema._type_core` (annotation -> core schema) and
:mod:`~toolrig.core.schema._type_json` (core schema -> JSON Schema); this one puts them
together."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, NamedTuple, cast, get_origin

from pydantic_core import CoreConfig, CoreSchema

from toolrig.core.schema._type_core import CoreBuilder, JsonDict, Unsupported
from toolrig.core.schema._type_json import JsonWriter

__all__ = ["FieldSpec", "Schemas", "Unsupported", "arguments_schemas", "value_schemas"]


class FieldSpec(NamedTuple):
    """One parameter as a schema field."""

    name: str
    annotation: Any
    description: str | None
    """From the docstring; it wins over a ``Field(description=...)`` in the annotation."""
    required: bool


class Schemas(NamedTuple):
    """The JSON Schema a model sees and the core schema its validator compiles from."""

    json: JsonDict
    core: CoreSchema
    config: CoreConfig | None
    eager: bool
    """Compile now rather than on first use: a regular expression must be checked at definition
    time, as pydantic does."""


def arguments_schemas(fields: Sequence[FieldSpec], title: str) -> Schemas:
    """The schemas pydantic builds for a ``TypedDict`` of ``fields`` (extra keys forbidden)
    named ``title``; raises :class:`Unsupported`.

    The JSON Schema is the tidied one, without ``additionalProperties`` (tools leave extra keys
    to the validator and say nothing about them).
    """
    builder = CoreBuilder(enums=True)
    writer = JsonWriter()
    properties: JsonDict = {}
    core_fields: dict[str, Any] = {}
    required: list[str] = []
    for spec in fields:
        core, updates = builder.field(spec.annotation, spec.description)
        properties[spec.name] = writer.field_json(spec.name, core, updates)
        core_fields[spec.name] = {
            "type": "typed-dict-field",
            "schema": core,
            "required": spec.required,
        }
        if spec.required:
            required.append(spec.name)
    json: JsonDict = {}
    if writer.defs:  # in key order, each without the title naming it
        json["$defs"] = {
            name: {k: v for k, v in writer.defs[name].items() if k != "title"}
            for name in sorted(writer.defs)
        }
    json["properties"] = properties
    if required:
        json["required"] = required
    json["type"] = "object"
    config: CoreConfig = {"title": title, "extra_fields_behavior": "forbid"}
    core_schema = {
        "type": "typed-dict",
        "fields": core_fields,
        "extra_behavior": "forbid",
        "config": config,
    }
    return Schemas(json, cast(CoreSchema, core_schema), config, builder.eager)


def value_schemas(annotation: Any) -> Schemas:
    """The schemas pydantic builds for ``TypeAdapter(annotation)`` (JSON Schema in serialization
    mode, as for a return value); raises :class:`Unsupported`."""
    if get_origin(annotation) is Annotated:
        raise Unsupported("annotated return type")
    builder = CoreBuilder(enums=False)
    core = builder.of(annotation)
    return Schemas(JsonWriter().json(core), cast(CoreSchema, core), None, builder.eager)
