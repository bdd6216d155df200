"""Type annotations -> (JSON Schema, pydantic-core schema) for the types tools use, without
pydantic's general schema generator.

Building a ``TypeAdapter`` compiles a validator and a serializer and walks pydantic's generic
machinery: about a millisecond per function, most of the cost of defining a tool, although export
needs only the JSON Schema and no call has asked for a validator yet. The annotations of tool
parameters are few: scalars, dates, ``list``/``dict``/``tuple``/``set``, ``Literal``,
``Optional`` and unions, ``Enum`` and ``Annotated[..., Field(...)]`` with simple constraints. For
those this module builds, directly,

* the JSON Schema pydantic produces, key for key and in the same order, already as
  :func:`~toolrig.core._schema_tidy.tidy_schema` leaves it (no titles derived from names), and
* the core schema pydantic compiles, so the validator built from it (on first use) accepts,
  coerces and rejects exactly as pydantic's would.

Anything else raises :class:`Unsupported`, and the caller asks pydantic as before. Tests compare
both results with pydantic's on a broad set of annotations.
"""

from __future__ import annotations

import math
import types
import typing
from collections.abc import Sequence
from datetime import date, datetime, time
from enum import Enum
from typing import Annotated, Any, Literal, NamedTuple, cast, get_args, get_origin
from uuid import UUID

from pydantic.fields import FieldInfo
from pydantic_core import CoreConfig, CoreSchema

__all__ = ["FieldSpec", "Schemas", "Unsupported", "arguments_schemas", "value_schemas"]

JsonDict = dict[str, Any]

_I64 = 2**63 - 1
_NONE_TYPE = type(None)
_PLAIN_VALUES = (str, int, float, bool, _NONE_TYPE)


class Unsupported(Exception):
    """The annotation is outside what this module mirrors: let pydantic build the schemas."""


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
    builder = _Builder(enums=True)
    properties: JsonDict = {}
    core_fields: dict[str, Any] = {}
    required: list[str] = []
    for spec in fields:
        core, updates = builder.field(spec.annotation, spec.description)
        properties[spec.name] = builder.field_json(spec.name, core, updates)
        core_fields[spec.name] = {
            "type": "typed-dict-field",
            "schema": core,
            "required": spec.required,
        }
        if spec.required:
            required.append(spec.name)
    json: JsonDict = {}
    if builder.defs:  # in key order, each without the title naming it
        json["$defs"] = {
            name: {k: v for k, v in builder.defs[name].items() if k != "title"}
            for name in sorted(builder.defs)
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
    builder = _Builder(enums=False)
    core = builder.of(annotation)
    return Schemas(builder.json(core), cast(CoreSchema, core), None, builder.eager)


# -- annotation -> core schema (as pydantic's GenerateSchema) ------------------------------------


def _simple(kind: str) -> Any:
    return lambda: {"type": kind}


_SCALARS: dict[Any, Any] = {
    int: _simple("int"),
    float: _simple("float"),
    str: _simple("str"),
    bool: _simple("bool"),
    _NONE_TYPE: _simple("none"),
    None: _simple("none"),
    Any: _simple("any"),
    date: _simple("date"),
    UUID: _simple("uuid"),
    datetime: lambda: {"type": "datetime", "microseconds_precision": "truncate"},
    time: lambda: {"type": "time", "microseconds_precision": "truncate"},
    list: lambda: {"type": "list", "items_schema": {"type": "any"}},
    typing.List: lambda: {"type": "list", "items_schema": {"type": "any"}},  # noqa: UP006
    set: lambda: {"type": "set", "items_schema": {"type": "any"}},
    typing.Set: lambda: {"type": "set", "items_schema": {"type": "any"}},  # noqa: UP006
    frozenset: lambda: {"type": "frozenset", "items_schema": {"type": "any"}},
    typing.FrozenSet: lambda: {"type": "frozenset", "items_schema": {"type": "any"}},  # noqa: UP006
    dict: lambda: {
        "type": "dict",
        "keys_schema": {"type": "any"},
        "values_schema": {"type": "any"},
    },
    typing.Dict: lambda: {  # noqa: UP006
        "type": "dict",
        "keys_schema": {"type": "any"},
        "values_schema": {"type": "any"},
    },
    tuple: lambda: {"type": "tuple", "items_schema": [{"type": "any"}], "variadic_item_index": 0},
    typing.Tuple: lambda: {  # noqa: UP006
        "type": "tuple",
        "items_schema": [{"type": "any"}],
        "variadic_item_index": 0,
    },
}

_ITEMS_KIND = {list: "list", set: "set", frozenset: "frozenset"}

_NUMERIC = frozenset({"ge", "gt", "le", "lt", "multiple_of"})
_LENGTHS = frozenset({"min_length", "max_length"})
_CONSTRAINTS: dict[str, frozenset[str]] = {
    "int": _NUMERIC,
    "float": _NUMERIC,
    "str": _LENGTHS | {"pattern"},
    "list": _LENGTHS,
    "tuple": _LENGTHS,
    "set": _LENGTHS,
    "frozenset": _LENGTHS,
    "dict": _LENGTHS,
}
"""Constraints pydantic sets directly on each core schema type (others it wraps in functions)."""

_FIELD_UPDATES = ("title", "description", "examples")
_BLANK_FIELD = FieldInfo()
_FIELD_SLOTS = tuple(
    s
    for s in FieldInfo.__slots__
    if not s.startswith("_") and s not in (*_FIELD_UPDATES, "metadata", "annotation")
)


class _Builder:
    """Translates annotations, collecting the enums it meets for ``$defs``."""

    __slots__ = ("defs", "eager", "enums", "enums_allowed")

    def __init__(self, *, enums: bool) -> None:
        self.enums_allowed = enums
        self.enums: dict[str, type[Enum]] = {}
        self.defs: JsonDict = {}
        self.eager = False

    def field(self, annotation: Any, description: str | None) -> tuple[Any, JsonDict]:
        """Core schema of a field and its JSON Schema updates (title, description, examples)."""
        updates: JsonDict = {}
        if get_origin(annotation) is Annotated:
            inner, constraints = annotation.__origin__, []
            for meta in annotation.__metadata__:
                if type(meta) is FieldInfo:
                    _check_field(meta)
                    updates.update(_field_updates(meta))
                    constraints.extend(meta.metadata)
                else:
                    constraints.append(meta)
            core = self.of(inner)
            for meta in constraints:
                core = self.constrain(core, meta)
        else:
            core = self.of(annotation)
        if description:
            updates["description"] = description
        return core, updates

    def of(self, tp: Any) -> Any:
        try:
            simple = _SCALARS.get(tp)
        except TypeError:  # an unhashable annotation
            raise Unsupported(repr(tp)) from None
        if simple is not None:
            return simple()
        origin = get_origin(tp)
        if origin is None:
            if isinstance(tp, type) and issubclass(tp, Enum):
                return self.enum_of(tp)
            raise Unsupported(repr(tp))
        args = get_args(tp)
        if origin is Annotated:
            core = self.of(tp.__origin__)
            for meta in tp.__metadata__:
                if type(meta) is FieldInfo:
                    _check_field(meta)
                    if any(getattr(meta, k) is not None for k in _FIELD_UPDATES):
                        raise Unsupported("Field() with a description inside a type")
                    for inner in meta.metadata:
                        core = self.constrain(core, inner)
                else:
                    core = self.constrain(core, meta)
            return core
        if origin is typing.Union or origin is types.UnionType:
            return self.union(args)
        if origin is Literal:
            return self.literal(args)
        if origin in _ITEMS_KIND:
            if len(args) != 1:
                raise Unsupported(repr(tp))
            return {"type": _ITEMS_KIND[origin], "items_schema": self.of(args[0])}
        if origin is dict:
            if len(args) != 2 or args[0] is not str:
                raise Unsupported(repr(tp))
            return {
                "type": "dict",
                "keys_schema": {"type": "str"},
                "values_schema": self.of(args[1]),
            }
        if origin is tuple:
            return self.tuple_of(tp, args)
        raise Unsupported(repr(tp))

    def union(self, args: tuple[Any, ...]) -> Any:
        choices = [self.of(a) for a in args if a is not _NONE_TYPE]
        nullable = len(choices) < len(args)
        if not choices:
            raise Unsupported("a union of None only")
        core = choices[0] if len(choices) == 1 else {"type": "union", "choices": choices}
        return {"type": "nullable", "schema": core} if nullable else core

    def literal(self, args: tuple[Any, ...]) -> Any:
        for value in args:
            if type(value) not in (str, int, bool, _NONE_TYPE) or _too_big(value):
                raise Unsupported(f"literal value {value!r}")
        return {"type": "literal", "expected": list(args)}

    def tuple_of(self, tp: Any, args: tuple[Any, ...]) -> Any:
        if not args:
            if tp in (tuple, typing.Tuple):  # noqa: UP006
                return _SCALARS[tuple]()
            return {"type": "tuple", "items_schema": []}  # tuple[()]
        if args[-1] is Ellipsis:
            if len(args) != 2:
                raise Unsupported(repr(tp))
            return {"type": "tuple", "items_schema": [self.of(args[0])], "variadic_item_index": 0}
        if args == ((),):
            return {"type": "tuple", "items_schema": []}
        return {"type": "tuple", "items_schema": [self.of(a) for a in args]}

    def enum_of(self, cls: type[Enum]) -> Any:
        if not self.enums_allowed:
            raise Unsupported("enum")
        members = list(cls.__members__.values())
        name = cls.__name__
        if not members or not name.isascii() or not name.isidentifier():
            raise Unsupported(f"enum {cls!r}")
        if any(type(m.value) not in _PLAIN_VALUES or _too_big(m.value) for m in members):
            raise Unsupported(f"enum {cls!r} with non-JSON values")
        known = self.enums.setdefault(name, cls)
        if known is not cls:  # two enums of one name: pydantic renames them
            raise Unsupported(f"two enums named {name}")
        core: JsonDict = {"type": "enum", "cls": cls, "members": members}
        for base, sub_type in ((int, "int"), (str, "str"), (float, "float")):
            if issubclass(cls, base):
                core["sub_type"] = sub_type
                break
        return core

    def constrain(self, core: Any, meta: Any) -> Any:
        """``core`` with one constraint applied as pydantic applies it (on the inner schema of
        a nullable one); a constraint pydantic would wrap in a function is unsupported."""
        if core["type"] == "nullable":
            return {"type": "nullable", "schema": self.constrain(core["schema"], meta)}
        for key, value in _constraints(meta):
            if key not in _CONSTRAINTS.get(core["type"], ()):
                raise Unsupported(f"constraint {key} on {core['type']}")
            _check_constraint(core["type"], key, value)
            if key == "pattern":
                self.eager = True
            core = {**core, key: value}
        return core

    # -- core schema -> JSON Schema (as pydantic's GenerateJsonSchema) ---------------------------

    def field_json(self, name: str, core: Any, updates: JsonDict) -> JsonDict:
        """A property's JSON Schema: the type's, then the field's updates, then the title pydantic
        derives from the name, then the override rule of ``$ref`` siblings; finally without the
        title if it only repeats the name (as tidying removes it)."""
        json = {**self.json(core), **updates}
        if "examples" in json:
            json["examples"] = _sorted(json["examples"], "examples")  # a copy, keys in order
        if "title" not in json and _titled(core):
            json["title"] = name.title().replace("_", " ").strip()
        if "$ref" in json:
            target = self.defs[json["$ref"].rsplit("/", 1)[-1]]
            json = {k: v for k, v in json.items() if k == "$ref" or target.get(k, _MISSING) != v}
        title = json.get("title")
        if isinstance(title, str) and (title == name or title == _name_title(name)):
            del json["title"]
        return dict(sorted(json.items()))

    def json(self, core: Any) -> JsonDict:
        """The JSON Schema of a core schema, keys in pydantic's (alphabetical) order."""
        kind = core["type"]
        method = _JSON.get(kind)
        if method is None:  # pragma: no cover - every core type built above has one
            raise Unsupported(kind)
        json: JsonDict = method(self, core)
        return dict(sorted(json.items())) if len(json) > 1 else json

    def _numeric(self, core: Any, kind: str) -> JsonDict:
        json: JsonDict = {"type": kind}
        for key, target in _NUMERIC_JSON:
            if key in core:
                json[target] = core[key]
        return json

    def _int(self, core: Any) -> JsonDict:
        return self._numeric(core, "integer")

    def _float(self, core: Any) -> JsonDict:
        return self._numeric(core, "number")

    def _str(self, core: Any) -> JsonDict:
        json: JsonDict = {"type": "string"}
        for key, target in (("min_length", "minLength"), ("max_length", "maxLength")):
            if key in core:
                json[target] = core[key]
        if "pattern" in core:
            json["pattern"] = core["pattern"]
        return json

    def _constant(self, core: Any) -> JsonDict:
        return dict(_CONSTANT_JSON[core["type"]])

    def _items(self, core: Any) -> JsonDict:
        json: JsonDict = {"type": "array", "items": self.json(core["items_schema"])}
        if core["type"] != "list":
            json["uniqueItems"] = True
        _array_lengths(json, core)
        return json

    def _tuple(self, core: Any) -> JsonDict:
        json: JsonDict = {"type": "array"}
        items = core["items_schema"]
        if "variadic_item_index" in core:  # always the one item: tuple[X, ...]
            json["items"] = self.json(items[0])
        else:
            prefix = [self.json(item) for item in items]
            if prefix:
                json["prefixItems"] = prefix
            json["minItems"] = json["maxItems"] = len(prefix)
        _array_lengths(json, core)
        return json

    def _dict(self, core: Any) -> JsonDict:
        json: JsonDict = {"type": "object"}
        values = dict(self.json(core["values_schema"]))
        values.pop("title", None)
        json["additionalProperties"] = values if values else True
        for key, target in (("min_length", "minProperties"), ("max_length", "maxProperties")):
            if key in core:
                json[target] = core[key]
        return json

    def _literal(self, core: Any) -> JsonDict:
        expected = core["expected"]
        json: JsonDict = {"const": expected[0]} if len(expected) == 1 else {"enum": list(expected)}
        kind = _JSON_TYPE_OF.get(frozenset(type(v) for v in expected))
        if kind is not None:
            json["type"] = kind
        return json

    def _nullable(self, core: Any) -> JsonDict:
        inner = self.json(core["schema"])
        if inner == {"type": "null"}:
            return inner
        return _any_of([inner, {"type": "null"}])

    def _union(self, core: Any) -> JsonDict:
        return _any_of([self.json(c) for c in core["choices"]])

    def _enum(self, core: Any) -> JsonDict:
        cls: type[Enum] = core["cls"]
        name = cls.__name__
        if name not in self.defs:
            self.defs[name] = dict(sorted(_enum_json(cls, core["members"]).items()))
        return {"$ref": f"#/$defs/{name}"}


def _enum_json(cls: type[Enum], members: list[Enum]) -> JsonDict:
    """An enum's definition, as pydantic writes it."""
    import inspect

    description = inspect.cleandoc(cls.__doc__) if cls.__doc__ else None
    json: JsonDict = {"title": cls.__name__}
    if description and description != "An enumeration.":
        json["description"] = description
    values = [m.value for m in members]
    json["enum"] = values
    kind = _JSON_TYPE_OF.get(frozenset(type(v) for v in values))
    if kind is not None and kind != "null":
        json["type"] = kind
    return json


_MISSING = object()
_NUMERIC_JSON = (
    ("multiple_of", "multipleOf"),
    ("le", "maximum"),
    ("ge", "minimum"),
    ("lt", "exclusiveMaximum"),
    ("gt", "exclusiveMinimum"),
)
_CONSTANT_JSON: dict[str, JsonDict] = {
    "bool": {"type": "boolean"},
    "none": {"type": "null"},
    "any": {},
    "date": {"type": "string", "format": "date"},
    "datetime": {"type": "string", "format": "date-time"},
    "time": {"type": "string", "format": "time"},
    "uuid": {"type": "string", "format": "uuid"},
}
_JSON_TYPE_OF: dict[frozenset[type], str] = {
    frozenset({str}): "string",
    frozenset({int}): "integer",
    frozenset({float}): "number",
    frozenset({bool}): "boolean",
    frozenset({_NONE_TYPE}): "null",
}
_JSON: dict[str, Any] = {
    "int": _Builder._int,
    "float": _Builder._float,
    "str": _Builder._str,
    "list": _Builder._items,
    "set": _Builder._items,
    "frozenset": _Builder._items,
    "tuple": _Builder._tuple,
    "dict": _Builder._dict,
    "literal": _Builder._literal,
    "nullable": _Builder._nullable,
    "union": _Builder._union,
    "enum": _Builder._enum,
    **dict.fromkeys(_CONSTANT_JSON, _Builder._constant),
}


def _array_lengths(json: JsonDict, core: Any) -> None:
    if "min_length" in core:
        json["minItems"] = core["min_length"]
    if "max_length" in core:
        json["maxItems"] = core["max_length"]


def _any_of(schemas: list[JsonDict]) -> JsonDict:
    """pydantic's union of JSON Schemas: nested ``anyOf`` flattened, duplicates dropped."""
    members: list[JsonDict] = []
    for schema in schemas:
        if len(schema) == 1 and "anyOf" in schema:
            members.extend(schema["anyOf"])
        else:
            members.append(schema)
    unique: list[JsonDict] = []
    for member in members:  # equal ones keep the first place and the last value, as pydantic's
        for i, kept in enumerate(unique):
            if kept == member:
                unique[i] = member
                break
        else:
            unique.append(member)
    return unique[0] if len(unique) == 1 else {"anyOf": unique}


def _titled(core: Any) -> bool:
    """Whether pydantic titles a field of this schema (not one it refers to by ``$ref``)."""
    while core["type"] == "nullable":
        core = core["schema"]
    return bool(core["type"] != "enum")


def _name_title(name: str) -> str:
    """The title tidying takes for one derived from ``name``."""
    return name.replace("_", " ").strip().title()


def _sorted(value: Any, parent: str | None) -> Any:
    """pydantic's key order: alphabetical, except property names and default values."""
    if isinstance(value, dict):
        keys = value.keys() if parent in ("properties", "default") else sorted(value)
        return {k: _sorted(value[k], k) for k in keys}
    if isinstance(value, list):
        return [_sorted(v, parent) for v in value]
    return value


# -- Field() and constraints ----------------------------------------------------------------------


def _check_field(info: FieldInfo) -> None:
    """Only ``Field(title=, description=, examples=)`` and constraints are mirrored; an alias, a
    default, a discriminator, extra JSON and the like go to pydantic."""
    for slot in _FIELD_SLOTS:
        if getattr(info, slot) != getattr(_BLANK_FIELD, slot):
            raise Unsupported(f"Field({slot}=...)")
    if info.examples is not None and not _plain_json(info.examples):
        raise Unsupported("examples that are not plain JSON")


def _field_updates(info: FieldInfo) -> JsonDict:
    return {k: v for k in _FIELD_UPDATES if (v := getattr(info, k)) is not None}


def _plain_json(value: Any) -> bool:
    if isinstance(value, list):
        return all(_plain_json(v) for v in value)
    if type(value) is dict:
        return all(type(k) is str and _plain_json(v) for k, v in value.items())
    return type(value) in _PLAIN_VALUES and not (type(value) is float and not math.isfinite(value))


def _constraints(meta: Any) -> list[tuple[str, Any]]:
    """The (core schema key, value) pairs one annotated-types or pydantic constraint sets."""
    import annotated_types as at

    simple = _ANNOTATED_TYPES.get(type(meta))
    if simple is not None:
        return [(simple, getattr(meta, simple))]
    if type(meta) in (at.Interval, at.Len):
        return [pair for part in meta for pair in _constraints(part)]
    if type(meta).__name__ == "_PydanticGeneralMetadata" and set(vars(meta)) == {"pattern"}:
        return [("pattern", meta.pattern)]
    raise Unsupported(f"annotation {meta!r}")


def _annotated_types() -> dict[type, str]:
    import annotated_types as at

    return {
        at.Ge: "ge",
        at.Gt: "gt",
        at.Le: "le",
        at.Lt: "lt",
        at.MultipleOf: "multiple_of",
        at.MinLen: "min_length",
        at.MaxLen: "max_length",
    }


_ANNOTATED_TYPES = _annotated_types()


def _check_constraint(kind: str, key: str, value: Any) -> None:
    """Values pydantic-core takes as they are; anything odder (a float bound on an integer, a
    negative length, an unbounded number) goes to pydantic."""
    if key == "pattern":
        ok = type(value) is str
    elif key in _LENGTHS:
        ok = type(value) is int and 0 <= value <= _I64
    elif kind == "int":
        ok = type(value) is int and not _too_big(value) and (key != "multiple_of" or value > 0)
    else:
        ok = (
            type(value) in (int, float)
            and math.isfinite(value)
            and not _too_big(value)
            and (key != "multiple_of" or value > 0)
        )
    if not ok:
        raise Unsupported(f"constraint {key}={value!r} on {kind}")


def _too_big(value: Any) -> bool:
    return type(value) is int and not -_I64 - 1 <= value <= _I64
