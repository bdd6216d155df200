"""Which JSON Schema keywords a tool's schema may use: each one is enforced, or the schema is
refused at definition time with the reason.

JSON Schema tells a validator to ignore keywords it does not know. For a tool that is a trap:
the model reads the exported schema as a promise, so a misspelt ``minimun``, a draft-07
``dependencies`` under draft 2020-12, or a custom meta-schema that switches validation off would
promise constraints that nothing checks. :func:`keyword_problems` walks a schema (bounded in
depth and size) and lists every keyword that would not be enforced:

* the keywords of the schema's draft (2020-12 unless ``$schema`` names another standard one)
  are enforced by the validator, ``format`` included for the formats in :data:`FORMATS`;
* annotations (``title``, ``description``, ``default``, ``examples``, ``deprecated``,
  ``readOnly``, ``writeOnly``, ``$comment``, the ``content*`` keywords) promise nothing and are
  kept; so are extension keywords named ``x-...``;
* OpenAPI's ``nullable`` and its number formats ``int32``, ``int64``, ``float``, ``double`` are
  enforced by rewriting them (see :mod:`toolrig.core.schema._json_schema`);
* anything else is refused.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any, Final

from toolrig.core.model._suggest import closest

__all__ = [
    "DRAFTS",
    "FORMATS",
    "MAX_SCHEMA_DEPTH",
    "OPENAPI_FORMATS",
    "SCHEMA_KEYS",
    "SCHEMA_LIST_KEYS",
    "SCHEMA_MAP_KEYS",
    "draft_of",
    "keyword_problems",
]

MAX_SCHEMA_DEPTH: Final = 64
_MAX_NODES: Final = 20_000

DRAFTS: Final[dict[str, int]] = {
    "json-schema.org/draft/2020-12/schema": 2020,
    "json-schema.org/draft/2019-09/schema": 2019,
    "json-schema.org/draft-07/schema": 7,
    "json-schema.org/draft-06/schema": 6,
    "json-schema.org/draft-04/schema": 4,
}
"""The standard meta-schemas (without scheme and trailing ``#``) and the draft each names."""

FORMATS: Final = frozenset(
    {
        "date",
        "date-time",
        "time",
        "duration",
        "email",
        "idn-email",
        "hostname",
        "idn-hostname",
        "ipv4",
        "ipv6",
        "uri",
        "uri-reference",
        "iri",
        "iri-reference",
        "uri-template",
        "json-pointer",
        "relative-json-pointer",
        "regex",
        "uuid",
    }
)
"""Formats the validator checks."""

OPENAPI_FORMATS: Final[dict[str, tuple[float, float] | None]] = {
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "float": (-3.4028234663852886e38, 3.4028234663852886e38),
    "double": None,
}
"""OpenAPI's number formats, enforced as bounds (``double`` holds every JSON number)."""

_TYPES: Final = frozenset({"string", "integer", "number", "boolean", "array", "object", "null"})
_ANNOTATIONS: Final = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
        "$comment",
        "contentEncoding",
        "contentMediaType",
        "contentSchema",
        "nullable",
        "definitions",
    }
)
_VALIDATION: Final = frozenset(
    {
        "type",
        "enum",
        "const",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "maxLength",
        "minLength",
        "pattern",
        "maxItems",
        "minItems",
        "uniqueItems",
        "maxProperties",
        "minProperties",
        "required",
        "format",
        "additionalProperties",
        "properties",
        "patternProperties",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "items",
        "$ref",
        "$schema",
    }
)
_SINCE_6: Final = frozenset({"$id", "const", "contains", "propertyNames", "examples"})
_SINCE_7: Final = frozenset({"if", "then", "else"})
_UP_TO_2019: Final = frozenset({"additionalItems"})
_UP_TO_7: Final = frozenset({"dependencies"})
_SINCE_2019: Final = frozenset(
    {
        "$anchor",
        "$defs",
        "$vocabulary",
        "dependentRequired",
        "dependentSchemas",
        "maxContains",
        "minContains",
        "unevaluatedItems",
        "unevaluatedProperties",
    }
)
_ONLY_2019: Final = frozenset({"$recursiveRef", "$recursiveAnchor"})
_ONLY_2020: Final = frozenset({"prefixItems", "$dynamicRef", "$dynamicAnchor"})

SCHEMA_KEYS: Final = frozenset(
    {
        "additionalProperties",
        "propertyNames",
        "contains",
        "not",
        "if",
        "then",
        "else",
        "unevaluatedItems",
        "unevaluatedProperties",
        "additionalItems",
        "contentSchema",
        "items",
    }
)
SCHEMA_LIST_KEYS: Final = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})
SCHEMA_MAP_KEYS: Final = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"}
)


def _keywords(draft: int) -> frozenset[str]:
    words = set(_VALIDATION | _ANNOTATIONS)
    if draft >= 6:
        words |= _SINCE_6
    if draft >= 7:
        words |= _SINCE_7
    if draft <= 2019:
        words |= _UP_TO_2019
    if draft <= 7:
        words |= _UP_TO_7
    if draft >= 2019:
        words |= _SINCE_2019
    words |= _ONLY_2019 if draft == 2019 else _ONLY_2020 if draft == 2020 else set()
    if draft == 4:
        words.add("id")
    return frozenset(words)


_KEYWORDS: Final = {draft: _keywords(draft) for draft in set(DRAFTS.values())}


def draft_of(schema: Any) -> int | None:
    """The draft a schema declares in ``$schema`` (2020 when absent), ``None`` if unknown."""
    if not isinstance(schema, Mapping) or "$schema" not in schema:
        return 2020
    uri = schema["$schema"]
    if not isinstance(uri, str):
        return None
    bare = uri.split("://", 1)[-1].rstrip("#")
    return DRAFTS.get(bare)


def keyword_problems(schema: Any) -> list[str]:
    """Every keyword of ``schema`` that would not be enforced, each with where and why."""
    walk = _Walk()
    with contextlib.suppress(_Stop):  # the budget problem is already listed
        walk.node(schema, "", 0, draft_of(schema) or 2020)
    return walk.problems


class _Walk:
    __slots__ = ("nodes", "problems")

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.nodes = 0

    def node(self, node: Any, where: str, depth: int, draft: int) -> None:
        if not isinstance(node, Mapping):
            return  # booleans are schemas; anything else the validator reports
        self.nodes += 1
        if depth > MAX_SCHEMA_DEPTH or self.nodes > _MAX_NODES:
            if depth > MAX_SCHEMA_DEPTH:
                self.problems.append(f"the schema is nested deeper than {MAX_SCHEMA_DEPTH} levels")
            else:
                self.problems.append(f"the schema has more than {_MAX_NODES} subschemas")
            raise _Stop
        if "$schema" in node:
            declared = draft_of(node)
            if declared is None:
                self.problems.append(
                    f"{_at(where, '$schema')}: {node['$schema']!r} is not a standard JSON Schema "
                    "draft (a custom meta-schema may switch keywords off); use one of "
                    + ", ".join(f"https://{uri}" for uri in DRAFTS)
                )
            else:
                draft = declared
        known = _KEYWORDS[draft]
        for key in node:
            if not isinstance(key, str):
                self.problems.append(f"{_at(where, repr(key))}: keywords must be strings")
            elif key not in known and not key.startswith("x-"):
                self.problems.append(_unknown(key, where, known, draft))
        self._values(node, where, draft)
        if draft <= 7 and "$ref" in node:
            ignored = sorted(k for k in node if k in known and k not in _REF_NEIGHBOURS)
            if ignored:
                self.problems.append(
                    f"{_at(where, '$ref')}: under draft {draft} the keywords beside `$ref` "
                    f"({', '.join(ignored)}) are ignored; put them and the `$ref` in an `allOf`"
                )
        self._children(node, where, depth, draft)

    def _values(self, node: Mapping[str, Any], where: str, draft: int) -> None:
        kind = node.get("type")
        for name in kind if isinstance(kind, list) else [kind] if kind is not None else []:
            if name not in _TYPES:
                close = closest(str(name), sorted(_TYPES))
                hint = f"; did you mean {close[0]!r}?" if close else ""
                self.problems.append(
                    f"{_at(where, 'type')}: unknown type {name!r}{hint} "
                    f"(types: {', '.join(sorted(_TYPES))})"
                )
        fmt = node.get("format")
        if isinstance(fmt, str) and fmt not in FORMATS and fmt not in OPENAPI_FORMATS:
            close = closest(fmt, sorted(FORMATS))
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            self.problems.append(
                f"{_at(where, 'format')}: format {fmt!r} is not checked{hint}; the checked "
                f"formats are {', '.join(sorted(FORMATS | OPENAPI_FORMATS.keys()))}. Remove it, "
                "or say what is expected in `description` or with a `pattern`"
            )
        if draft == 2020 and isinstance(node.get("items"), list):
            self.problems.append(
                f"{_at(where, 'items')}: a list of schemas is `prefixItems` in draft 2020-12"
            )
        nullable = node.get("nullable", False)
        if not isinstance(nullable, bool):
            self.problems.append(f"{_at(where, 'nullable')}: must be true or false")

    def _children(self, node: Mapping[str, Any], where: str, depth: int, draft: int) -> None:
        for key, value in node.items():
            if key in SCHEMA_MAP_KEYS and isinstance(value, Mapping):
                for name, child in value.items():
                    self.node(child, _at(where, f"{key}.{name}"), depth + 1, draft)
            elif key in SCHEMA_LIST_KEYS and isinstance(value, list):
                for i, child in enumerate(value):
                    self.node(child, _at(where, f"{key}[{i}]"), depth + 1, draft)
            elif key in SCHEMA_KEYS:
                self.node(value, _at(where, key), depth + 1, draft)


_REF_NEIGHBOURS: Final = _ANNOTATIONS | {"$ref", "$id", "id", "$schema", "definitions"}


class _Stop(Exception):
    """The walk went past its budget (reported once)."""


def _at(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _unknown(key: str, where: str, known: frozenset[str], draft: int) -> str:
    other = next((d for d, words in _KEYWORDS.items() if d != draft and key in words), None)
    if other is not None:
        instead = {
            "dependencies": "use `dependentRequired` or `dependentSchemas`",
            "additionalItems": "use `items` after `prefixItems`",
            "prefixItems": "use `items` as a list",
            "$recursiveRef": "use `$dynamicRef`",
            "$recursiveAnchor": "use `$dynamicAnchor`",
            "$dynamicRef": "use `$recursiveRef`",
            "$dynamicAnchor": "use `$recursiveAnchor`",
            "id": "use `$id`",
        }.get(key, "declare that draft in `$schema`")
        why = (
            f"`{key}` belongs to another draft than {_name(draft)} and would be ignored; " + instead
        )
    else:
        close = closest(key, sorted(known))
        hint = f" (did you mean `{close[0]}`?)" if close else ""
        why = (
            f"unknown keyword `{key}`{hint}: it would not be checked. Remove it, or name it "
            f"`x-{key}` if it is only a note"
        )
    return f"{_at(where, key)}: {why}"


def _name(draft: int) -> str:
    return {2020: "2020-12", 2019: "2019-09"}.get(draft, f"draft-0{draft}")
