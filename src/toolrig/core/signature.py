"""Function signature -> parameter schema, validators and docs: a pure step run once per tool.

Pipeline: 1) read the signature and type hints; 2) reject what cannot be a tool parameter,
collecting every problem; 3) find the injected context parameter; 4) parse the docstring
(Google, NumPy, Sphinx); 5) build a TypedDict of the parameters and let pydantic compile its
validator and JSON Schema; 6) do the same for the return type.
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NotRequired, get_args, get_origin

from pydantic import ConfigDict, Field, PydanticSchemaGenerationError, TypeAdapter
from pydantic.errors import PydanticUserError
from typing_extensions import TypedDict

from toolrig.core.context import ToolContext
from toolrig.core.errors import ToolDefinitionError
from toolrig.core.result import to_jsonable
from toolrig.core.schema_tidy import tidy_schema

__all__ = ["FunctionSignature", "describe_function", "parse_docstring"]


@dataclass(frozen=True, slots=True, kw_only=True)
class FunctionSignature:
    """What a function's signature and docstring say about it as a tool."""

    description: str
    parameters: dict[str, Any]
    """JSON Schema of the arguments the model gives."""
    arguments_adapter: TypeAdapter[Any]
    context_param: str | None
    positional_only: tuple[str, ...]
    output_schema: dict[str, Any] | None
    output_adapter: TypeAdapter[Any] | None
    output_type: str | None
    output_description: str | None
    param_descriptions: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class _Doc:
    description: str
    params: dict[str, str]
    returns: str | None


def parse_docstring(func: Callable[..., Any]) -> _Doc:
    """Description, per-parameter text and the returns line of a docstring (any common style)."""
    raw = inspect.getdoc(func) or ""
    if not raw:
        return _Doc("", {}, None)
    import docstring_parser  # only needed when a tool is defined

    doc = docstring_parser.parse(raw)
    short, long = doc.short_description, doc.long_description
    if short and long and not doc.blank_after_short_description:
        # a summary wrapped over several lines: the parser keeps only its first line as "short"
        first, _, rest = long.partition("\n\n")
        short, long = f"{short} {' '.join(first.split())}", rest or None
    parts = [p for p in (short, long) if p]
    params = {
        p.arg_name.lstrip("*"): " ".join(p.description.split()) for p in doc.params if p.description
    }
    returns = (
        " ".join(doc.returns.description.split())
        if doc.returns and doc.returns.description
        else None
    )
    return _Doc("\n\n".join(parts).strip(), params, returns)


def _is_context(annotation: Any) -> bool:
    if isinstance(annotation, type) and issubclass(annotation, ToolContext):
        return True
    if get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        return len(args) == 1 and _is_context(args[0])
    return False


def describe_function(
    func: Callable[..., Any], *, subject: str, skip_first: bool = False
) -> FunctionSignature:
    """Build the tool description of ``func``; raise :class:`ToolDefinitionError` listing every
    unsupported parameter."""
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError) as exc:
        raise ToolDefinitionError(subject, f"cannot read the signature: {exc}") from exc
    hints = _type_hints(func, sig, subject)
    doc = parse_docstring(func)

    problems: list[str] = []
    fields: dict[str, Any] = {}
    defaults: dict[str, Any] = {}
    context_param: str | None = None
    positional_only: list[str] = []
    params = list(sig.parameters.values())
    if skip_first and params:
        params = params[1:]
    for param in params:
        name = param.name
        if param.kind is param.VAR_POSITIONAL:
            problems.append(
                f"parameter `*{name}`: variable positional arguments cannot be described "
                "to a model; use a named `list[...]` parameter instead"
            )
            continue
        if param.kind is param.VAR_KEYWORD:
            problems.append(
                f"parameter `**{name}`: variable keyword arguments cannot be described "
                "to a model; use named parameters or one `dict[str, ...]` parameter"
            )
            continue
        annotation = hints.get(name, inspect.Parameter.empty)
        if annotation is not inspect.Parameter.empty and _is_context(annotation):
            context_param = name
            continue
        if annotation is inspect.Parameter.empty:
            if param.default is inspect.Parameter.empty or param.default is None:
                problems.append(
                    f"parameter `{name}` has no type annotation; add one, e.g. `{name}: str`"
                )
                continue
            annotation = type(param.default)
        if param.kind is param.POSITIONAL_ONLY:
            positional_only.append(name)
        description = doc.params.get(name)
        if description:
            annotation = typing.Annotated[annotation, Field(description=description)]
        if param.default is inspect.Parameter.empty:
            fields[name] = annotation
        else:
            fields[name] = NotRequired[annotation]
            defaults[name] = param.default
    if problems:
        raise ToolDefinitionError(subject, problems)

    adapter = _arguments_adapter(subject, fields)
    try:
        schema = adapter.json_schema()
    except Exception as exc:
        raise ToolDefinitionError(
            subject, f"cannot build a JSON Schema of the parameters: {exc}"
        ) from exc
    schema = tidy_schema(schema)
    schema.pop("additionalProperties", None)
    properties = schema.setdefault("properties", {})
    for name, default in defaults.items():
        if name in properties:
            properties[name]["default"] = to_jsonable(default)

    output_adapter, output_schema, output_type = _output(
        hints.get("return", inspect.Parameter.empty)
    )
    return FunctionSignature(
        description=doc.description,
        parameters=schema,
        arguments_adapter=adapter,
        context_param=context_param,
        positional_only=tuple(positional_only),
        output_schema=output_schema,
        output_adapter=output_adapter,
        output_type=output_type,
        output_description=doc.returns,
        param_descriptions=doc.params,
    )


def _type_hints(func: Callable[..., Any], sig: inspect.Signature, subject: str) -> dict[str, Any]:
    """Resolved type hints; unresolvable ones are reported per parameter."""
    try:
        return typing.get_type_hints(func, include_extras=True)
    except Exception:  # an unresolvable forward reference: find which parameter has it
        pass
    target = inspect.unwrap(func)
    namespace = dict(getattr(target, "__globals__", {}))
    code = getattr(target, "__code__", None)
    closure = getattr(target, "__closure__", None) or ()
    if code is not None:
        for name, cell in zip(code.co_freevars, closure, strict=False):
            try:
                namespace[name] = cell.cell_contents
            except ValueError:  # empty cell
                continue
    hints: dict[str, Any] = {}
    problems = []
    raw = getattr(target, "__annotations__", {})
    for name, annotation in raw.items():
        if not isinstance(annotation, str):
            hints[name] = annotation
            continue
        try:
            hints[name] = eval(annotation, namespace)  # the language's own forward-ref rule
        except Exception as exc:
            label = "return type" if name == "return" else f"parameter `{name}`"
            problems.append(f"{label}: cannot resolve the type hint {annotation!r} ({exc})")
    if problems:
        raise ToolDefinitionError(subject, problems)
    return hints


def _arguments_adapter(subject: str, fields: dict[str, Any]) -> TypeAdapter[Any]:
    make_typed_dict: Any = TypedDict
    typed_dict: Any = make_typed_dict(f"{_safe(subject)}_arguments", fields)
    typed_dict.__pydantic_config__ = ConfigDict(extra="forbid")
    try:
        return TypeAdapter(typed_dict)
    except (PydanticSchemaGenerationError, PydanticUserError, TypeError) as exc:
        bad = []
        for name, annotation in fields.items():
            try:
                TypeAdapter(annotation)
            except (PydanticSchemaGenerationError, PydanticUserError, TypeError) as inner:
                first = str(inner).splitlines()[0]
                bad.append(f"parameter `{name}`: type {annotation!r} is not supported ({first})")
        raise ToolDefinitionError(subject, bad or [f"unsupported parameter types: {exc}"]) from exc


def _output(annotation: Any) -> tuple[TypeAdapter[Any] | None, dict[str, Any] | None, str | None]:
    if annotation in (inspect.Parameter.empty, None, type(None), Any, typing.NoReturn):
        return None, None, None
    try:
        adapter: TypeAdapter[Any] = TypeAdapter(annotation)
        schema = tidy_schema(adapter.json_schema(mode="serialization"))
    except Exception:
        # An arbitrary class as return type: accepted, but not validated or described.
        return None, None, getattr(annotation, "__name__", None)
    kind = schema.get("type")
    if kind is None and ("anyOf" in schema or "$ref" in schema):
        kind = "object" if "$ref" in schema else None
    return adapter, schema, kind if isinstance(kind, str) else None


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name) or "tool"
