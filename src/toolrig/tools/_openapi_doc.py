"""An OpenAPI 3.x document read into plain operations: what to call and with which schemas.

The document is checked with ``openapi-spec-validator``; ``$ref`` are resolved with
``referencing`` (the library the ``jsonschema`` ecosystem uses). A referenced schema is kept
once, under ``$defs`` of the schema that uses it (``#/components/schemas/Pet`` becomes
``#/$defs/Pet``), so recursive models stay finite and the exported schema stays readable.
OpenAPI's own schema words that JSON Schema lacks are translated (``example`` into
``examples``, 3.0's boolean ``exclusiveMinimum``) or kept as notes (``discriminator``, ``xml``,
``externalDocs`` as ``x-...``), so the core compiles every keyword it is given.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit
from urllib.request import url2pathname

import yaml

from toolrig.core.model._errors import ToolDefinitionError
from toolrig.core.model._spec import ToolAnnotations
from toolrig.core.schema._schema_vocabulary import SCHEMA_KEYS, SCHEMA_LIST_KEYS, SCHEMA_MAP_KEYS
from toolrig.providers._names import provider_safe_name

__all__ = ["METHODS", "Operation", "Parameter", "operations", "parse_document"]

METHODS: Final = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_NOTES: Final = ("discriminator", "xml", "externalDocs")
_BASE: Final = "urn:toolrig:openapi-document"
_READ: Final = ToolAnnotations(read_only=True, destructive=False, idempotent=True, open_world=True)
_ANNOTATIONS: Final = {
    "get": _READ,
    "head": _READ,
    "options": _READ,
    "trace": _READ,
    "put": ToolAnnotations(read_only=False, destructive=True, idempotent=True, open_world=True),
    "delete": ToolAnnotations(read_only=False, destructive=True, idempotent=True, open_world=True),
    "post": ToolAnnotations(read_only=False, destructive=False, idempotent=False, open_world=True),
    "patch": ToolAnnotations(read_only=False, destructive=True, idempotent=False, open_world=True),
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Parameter:
    """One path, query or header parameter of an operation."""

    name: str
    location: str
    """``path``, ``query`` or ``header``."""
    style_explode: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class Operation:
    """One operation: the action's name, the request it makes and its schemas."""

    name: str
    method: str
    path: str
    description: str
    parameters: tuple[Parameter, ...]
    body_key: str | None
    """The argument holding the JSON request body (``body``), or ``None`` without one."""
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    annotations: ToolAnnotations


def parse_document(text: str, where: str, folder: Path | None = None) -> dict[str, Any]:
    """The document in ``text`` (JSON or YAML), checked against the OpenAPI 3.x schema.

    References to other documents are followed only for a document read from a file, and only
    to files in its folder: nothing is fetched from the network while reading a document."""
    try:
        doc = json.loads(text) if text.lstrip().startswith("{") else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as exc:
        raise ToolDefinitionError(where, f"not JSON or YAML: {exc}") from None
    except RecursionError:
        raise ToolDefinitionError(where, "nested deeper than a document can be read") from None
    if not isinstance(doc, dict) or not str(doc.get("openapi", "")).startswith("3."):
        raise ToolDefinitionError(where, "not an OpenAPI 3.x document (no `openapi: 3.x` key)")
    outside = [ref for ref in _refs_in(doc) if not _local(ref, folder)]
    if outside:
        raise ToolDefinitionError(
            where,
            [
                f"$ref {ref!r} leaves the document (only files beside it are read)"
                for ref in outside
            ],
        )
    try:
        from openapi_spec_validator import validate
        from openapi_spec_validator.validation.exceptions import OpenAPIValidationError
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(
            "importing OpenAPI documents needs: pip install 'toolrig[openapi]'"
        ) from None
    try:
        validate(doc, base_uri=_base_uri(folder))
    except OpenAPIValidationError as exc:
        raise ToolDefinitionError(where, f"invalid OpenAPI document: {exc}") from None
    return doc


def _base_uri(folder: Path | None) -> str:
    return f"{folder.resolve().as_uri()}/" if folder is not None else _BASE


def _refs_in(node: Any) -> Iterator[str]:
    if isinstance(node, Mapping):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            else:
                yield from _refs_in(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs_in(value)


def _local(ref: str, folder: Path | None) -> bool:
    """Whether ``ref`` points into the document, or to a file inside ``folder``."""
    if ref.startswith("#"):
        return True
    target = ref.split("#", 1)[0]
    if folder is None or ":" in target or target.startswith("/"):
        return False
    return (folder / target).resolve().is_relative_to(folder.resolve())


class _Refs:
    """Resolves ``$ref`` within the document (and files beside it) with ``referencing``."""

    def __init__(self, doc: Mapping[str, Any], folder: Path | None) -> None:
        from referencing import Registry, Resource
        from referencing.exceptions import NoSuchResource

        base = _base_uri(folder)

        def retrieve(uri: str) -> Resource[Any]:
            path = Path(url2pathname(urlsplit(uri).path)) if uri.startswith("file:") else None
            if folder is None or path is None or not path.is_relative_to(folder.resolve()):
                raise NoSuchResource(ref=uri)  # type: ignore[call-arg]
            if not path.is_file():
                raise NoSuchResource(ref=uri)  # type: ignore[call-arg]
            return Resource.opaque(yaml.safe_load(path.read_text(encoding="utf-8")))

        registry: Registry[Any] = Registry(retrieve=retrieve)  # type: ignore[call-arg]
        self._resolver = registry.with_resource(base, Resource.opaque(doc)).resolver(base_uri=base)
        self.defs: dict[str, Any] = {}
        self._names: dict[int, str] = {}

    def deref(self, node: Any) -> Any:
        """``node`` with a top-level ``$ref`` (parameters, bodies, responses) followed."""
        from referencing.exceptions import Unresolvable

        seen = 0
        while isinstance(node, Mapping) and isinstance(node.get("$ref"), str) and seen < 32:
            try:
                node = self._resolver.lookup(node["$ref"]).contents
            except Unresolvable as exc:
                raise ValueError(f"cannot resolve $ref {node['$ref']!r}: {exc}") from None
            seen += 1
        return node

    def schema(self, node: Any, resolver: Any = None) -> Any:
        """A JSON Schema copy of the OpenAPI schema ``node``; references go to ``self.defs``
        (``resolver``: where ``node`` sits, for relative references in other files)."""
        if isinstance(node, bool) or not isinstance(node, Mapping):
            return node
        at = resolver or self._resolver
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                out["$ref"] = f"#/$defs/{self._define(value, at)}"
            elif key in SCHEMA_KEYS or (key == "items" and isinstance(value, Mapping)):
                out[key] = self.schema(value, at)
            elif key in SCHEMA_LIST_KEYS and isinstance(value, list):
                out[key] = [self.schema(v, at) for v in value]
            elif key in SCHEMA_MAP_KEYS and isinstance(value, Mapping):
                out[key] = {k: self.schema(v, at) for k, v in value.items()}
            elif key == "example":
                out.setdefault("examples", [value])
            elif key in _NOTES:
                out[f"x-{key}"] = value
            else:
                out[key] = value
        for bound in ("Minimum", "Maximum"):  # OpenAPI 3.0: a flag on minimum/maximum
            flag = out.get(f"exclusive{bound}")
            if isinstance(flag, bool):
                del out[f"exclusive{bound}"]
                if flag and bound.lower() in out:
                    out[f"exclusive{bound}"] = out.pop(bound.lower())
        return out

    def _define(self, ref: str, resolver: Any) -> str:
        from referencing.exceptions import Unresolvable

        try:
            resolved = resolver.lookup(ref)
        except Unresolvable as exc:
            raise ValueError(f"cannot resolve $ref {ref!r}: {exc}") from None
        key = id(resolved.contents)  # the same target reached by two spellings: one entry
        name = self._names.get(key)
        if name is not None:
            return name
        base = provider_safe_name(ref.rstrip("/").rsplit("/", 1)[-1] or "ref")
        name = base
        n = 2
        while name in self.defs:
            name, n = f"{base}_{n}", n + 1
        self._names[key] = name
        self.defs[name] = {}  # taken before recursing: a recursive model refers to itself
        self.defs[name] = self.schema(resolved.contents, resolved.resolver)
        return name


def operations(
    doc: Mapping[str, Any], *, folder: Path | None = None, hidden: frozenset[str] = frozenset()
) -> list[Operation]:
    """Every operation of ``doc``, in document order; raises `ToolDefinitionError`
    listing every operation that cannot be imported. Header parameters named in ``hidden``
    (lower case: the headers the configuration fills) are left out of the schemas."""
    problems: list[str] = []
    out: list[Operation] = []
    taken: set[str] = set()
    for path, item in (doc.get("paths") or {}).items():
        refs = _Refs(doc, folder)
        item = refs.deref(item)
        for method in METHODS:
            op = item.get(method)
            if not isinstance(op, Mapping):
                continue
            try:
                built = _operation(doc, path, method, item, op, folder, hidden)
            except ValueError as exc:
                problems.append(f"{method.upper()} {path}: {exc}")
                continue
            if built.name in taken:
                problems.append(f"{method.upper()} {path}: action name {built.name!r} repeats")
            taken.add(built.name)
            out.append(built)
    if problems:
        raise ToolDefinitionError("OpenAPI document", problems)
    return out


def _operation(
    doc: Mapping[str, Any],
    path: str,
    method: str,
    item: Mapping[str, Any],
    op: Mapping[str, Any],
    folder: Path | None,
    hidden: frozenset[str],
) -> Operation:
    refs = _Refs(doc, folder)
    raw_id = op.get("operationId") or f"{method}_{path.strip('/')}"
    name = provider_safe_name(str(raw_id).replace("/", "_").replace("{", "").replace("}", ""))
    properties: dict[str, Any] = {}
    required: list[str] = []
    params: list[Parameter] = []
    declared = {}
    for raw in [*(item.get("parameters") or []), *(op.get("parameters") or [])]:
        p = refs.deref(raw)
        declared[(p["name"], p["in"])] = p  # an operation's own parameter overrides the path's
    for (pname, where), p in declared.items():
        if where == "header" and pname.lower() in hidden:
            continue  # a credential: the configuration sends it, the model never sees it
        if where == "cookie":
            raise ValueError(f"cookie parameter {pname!r} is not supported")
        if "schema" not in p:
            raise ValueError(f"parameter {pname!r} has no schema (content maps not supported)")
        if pname in properties:
            raise ValueError(f"parameter {pname!r} appears in two places; rename one")
        schema = refs.schema(p["schema"])
        if p.get("description") and isinstance(schema, dict):
            schema = {**schema, "description": p["description"]}
        properties[pname] = schema
        if p.get("required") or where == "path":
            required.append(pname)
        params.append(Parameter(name=pname, location=where, style_explode=p.get("explode", True)))
    body_key = None
    body = refs.deref(op.get("requestBody"))
    if isinstance(body, Mapping):
        content = body.get("content") or {}
        media = next((m for m in content if m.split(";")[0].strip().endswith("json")), None)
        if media is None:
            raise ValueError(f"request body types {sorted(content)} (only JSON is supported)")
        body_key = "body" if "body" not in properties else "request_body"
        schema = refs.schema(content[media].get("schema", {}))
        if body.get("description") and isinstance(schema, dict):
            schema = {**schema, "description": body["description"]}
        properties[body_key] = schema
        if body.get("required"):
            required.append(body_key)
    input_schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        input_schema["required"] = required
    output = _output_schema(refs, op.get("responses") or {})
    for schema in (input_schema, output):
        if schema is not None and refs.defs:
            schema["$defs"] = dict(refs.defs)
    text = "\n\n".join(str(t) for t in (op.get("summary"), op.get("description")) if t)
    return Operation(
        name=name,
        method=method.upper(),
        path=path,
        description=text or f"{method.upper()} {path}",
        parameters=tuple(params),
        body_key=body_key,
        input_schema=input_schema,
        output_schema=output,
        annotations=_ANNOTATIONS.get(method, _ANNOTATIONS["post"]),
    )


def _output_schema(refs: _Refs, responses: Mapping[str, Any]) -> dict[str, Any] | None:
    """The schema of the JSON body of the 2xx responses; ``None`` when one of them has no JSON
    schema (then the output is not checked)."""
    schemas: list[Any] = []
    for status, raw in responses.items():
        if not str(status).startswith("2"):
            continue
        response = refs.deref(raw)
        content = response.get("content") or {}
        media = next((m for m in content if m.split(";")[0].strip().endswith("json")), None)
        if media is None or "schema" not in content[media]:
            return None
        schema = refs.schema(content[media]["schema"])
        if schema not in schemas:
            schemas.append(schema)
    if not schemas:
        return None
    if len(schemas) == 1:
        return dict(schemas[0]) if isinstance(schemas[0], dict) else {"allOf": schemas}
    return {"anyOf": schemas}
