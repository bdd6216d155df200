"""pydantic-core schemas -> the JSON Schema pydantic writes for them, key for key and in the
same order, already as :func:`~toolrig.core.schema._schema_tidy.tidy_schema` leaves it (no titles
derived from names); see :mod:`toolrig.core.schema._type_schema`."""

from __future__ import annotations

from enum import Enum
from typing import Any

from toolrig.core.schema._type_core import NONE_TYPE, JsonDict, Unsupported

__all__ = ["JsonWriter"]


class JsonWriter:
    """Writes the JSON Schema of core schemas, collecting the enums it meets in :attr:`defs`."""

    __slots__ = ("defs",)

    def __init__(self) -> None:
        self.defs: JsonDict = {}

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
    frozenset({NONE_TYPE}): "null",
}
_JSON: dict[str, Any] = {
    "int": JsonWriter._int,
    "float": JsonWriter._float,
    "str": JsonWriter._str,
    "list": JsonWriter._items,
    "set": JsonWriter._items,
    "frozenset": JsonWriter._items,
    "tuple": JsonWriter._tuple,
    "dict": JsonWriter._dict,
    "literal": JsonWriter._literal,
    "nullable": JsonWriter._nullable,
    "union": JsonWriter._union,
    "enum": JsonWriter._enum,
    **dict.fromkeys(_CONSTANT_JSON, JsonWriter._constant),
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
