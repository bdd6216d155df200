"""Type annotations -> pydantic-core schemas, as pydantic's ``GenerateSchema`` builds them,
for the types tool parameters use (see :mod:`toolrig.core.schema._type_schema`).

The validator compiled from these schemas (on first use) accepts, coerces and rejects exactly as
pydantic's would. ``Field()`` options and constraints are mirrored only where pydantic-core takes
them as they are; anything else raises :class:`Unsupported` and pydantic builds the schemas.
"""

from __future__ import annotations

import math
import types
import typing
from datetime import date, datetime, time
from enum import Enum
from typing import Annotated, Any, Literal, get_args, get_origin
from uuid import UUID

from pydantic.fields import FieldInfo

__all__ = ["NONE_TYPE", "PLAIN_VALUES", "CoreBuilder", "JsonDict", "Unsupported"]

JsonDict = dict[str, Any]

_I64 = 2**63 - 1
NONE_TYPE = type(None)
PLAIN_VALUES = (str, int, float, bool, NONE_TYPE)


class Unsupported(Exception):
    """The annotation is outside what is mirrored here: let pydantic build the schemas."""


def _simple(kind: str) -> Any:
    return lambda: {"type": kind}


_SCALARS: dict[Any, Any] = {
    int: _simple("int"),
    float: _simple("float"),
    str: _simple("str"),
    bool: _simple("bool"),
    NONE_TYPE: _simple("none"),
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


class CoreBuilder:
    """Translates annotations into core schemas, as pydantic's ``GenerateSchema`` does, checking
    that the enums it meets have distinct names (their JSON Schemas share ``$defs``)."""

    __slots__ = ("eager", "enums", "enums_allowed")

    def __init__(self, *, enums: bool) -> None:
        self.enums_allowed = enums
        self.enums: dict[str, type[Enum]] = {}
        self.eager = False
        """Whether the validator should be compiled now (a pattern is checked at definition)."""

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
        choices = [self.of(a) for a in args if a is not NONE_TYPE]
        nullable = len(choices) < len(args)
        if not choices:
            raise Unsupported("a union of None only")
        core = choices[0] if len(choices) == 1 else {"type": "union", "choices": choices}
        return {"type": "nullable", "schema": core} if nullable else core

    def literal(self, args: tuple[Any, ...]) -> Any:
        for value in args:
            if type(value) not in (str, int, bool, NONE_TYPE) or _too_big(value):
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
        if any(type(m.value) not in PLAIN_VALUES or _too_big(m.value) for m in members):
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
    return type(value) in PLAIN_VALUES and not (type(value) is float and not math.isfinite(value))


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
