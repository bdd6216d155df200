"""Function signature -> parameter schema, validators and docs: a pure step run once per tool.

Pipeline: 1) read the signature and type hints; 2) reject what cannot be a tool parameter,
collecting every problem; 3) find the injected context parameter; 4) parse the docstring
(Google, NumPy, Sphinx); 5) build the JSON Schema of the parameters, and the way to compile
their validator; 6) do the same for the return type.

Step 5 is what defining a tool costs. For the annotations tools use, :mod:`.type_schema` builds
the JSON Schema pydantic would and leaves the validator to be compiled on first call (its core
schema is ready, so that takes microseconds); anything else (models, dataclasses, TypedDicts...)
goes through a pydantic ``TypeAdapter`` of a ``TypedDict`` of the parameters, compiled now.
"""

from __future__ import annotations

import functools
import inspect
import types
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NotRequired, get_args, get_origin

from pydantic import ConfigDict, Field, PydanticSchemaGenerationError, TypeAdapter
from pydantic.errors import PydanticUserError
from pydantic_core import SchemaValidator
from typing_extensions import TypedDict

from toolrig.core.context._context import ToolContext
from toolrig.core.define._docstrings import Doc, parse_text
from toolrig.core.model._errors import ToolDefinitionError
from toolrig.core.result._content import is_content_annotation
from toolrig.core.result._result import to_jsonable
from toolrig.core.schema._core_tighten import tighten
from toolrig.core.schema._schema_compiler import compile_core_schema
from toolrig.core.schema._schema_tidy import tidy_schema
from toolrig.core.schema._type_schema import (
    FieldSpec,
    Schemas,
    Unsupported,
    arguments_schemas,
    value_schemas,
)
from toolrig.core.schema._validation import ValidatorSource

__all__ = ["FunctionSignature", "describe_function", "parse_docstring"]


@dataclass(frozen=True, slots=True, kw_only=True)
class FunctionSignature:
    """What a function's signature and docstring say about it as a tool."""

    description: str
    parameters: dict[str, Any]
    """JSON Schema of the arguments the model gives."""
    arguments_validator: ValidatorSource
    """The arguments' validator, or the function compiling it on first use."""
    context_param: str | None
    positional_only: tuple[str, ...]
    output_schema: dict[str, Any] | None
    output_validator: ValidatorSource | None
    output_type: str | None
    output_description: str | None
    param_descriptions: dict[str, str] = field(default_factory=dict)


def parse_docstring(func: Callable[..., Any]) -> Doc:
    """Description, per-parameter text and the returns line of a docstring (any common style)."""
    raw = inspect.getdoc(func) or ""
    if not raw:
        return Doc("", {}, None)
    doc = parse_text(raw)  # shared between calls: hand out a copy of its mutable part
    return Doc(doc.description, dict(doc.params), doc.returns)


def _is_context(annotation: Any) -> bool:
    if isinstance(annotation, type) and issubclass(annotation, ToolContext):
        return True
    if get_origin(annotation) is ToolContext:  # ToolContext[Deps]
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
    fields: list[FieldSpec] = []
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
        required = param.default is inspect.Parameter.empty
        fields.append(FieldSpec(name, annotation, doc.params.get(name) or None, required))
        if not required:
            defaults[name] = param.default
    if problems:
        raise ToolDefinitionError(subject, problems)

    schema, validator = _arguments(subject, fields)
    properties = schema.setdefault("properties", {})
    for name, default in defaults.items():
        if name in properties:
            properties[name]["default"] = to_jsonable(default)

    output_validator, output_schema, output_type = _output(
        hints.get("return", inspect.Parameter.empty)
    )
    return FunctionSignature(
        description=doc.description,
        parameters=schema,
        arguments_validator=validator,
        context_param=context_param,
        positional_only=tuple(positional_only),
        output_schema=output_schema,
        output_validator=output_validator,
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


def _arguments(subject: str, fields: Sequence[FieldSpec]) -> tuple[dict[str, Any], ValidatorSource]:
    """The parameters' JSON Schema (as pydantic writes it, tidied, without
    ``additionalProperties``) and their validator (compiled on first use when built without
    pydantic)."""
    title = f"{_safe(subject)}_arguments"
    try:
        direct = arguments_schemas(fields, title)
    except Unsupported:
        return _pydantic_arguments(subject, fields)
    validator = _deferred(direct, arguments=True)
    if validator is None:  # pydantic reports the problem (a bad pattern) as it always has
        return _pydantic_arguments(subject, fields)
    return direct.json, validator


def _deferred(direct: Schemas, *, arguments: bool = False) -> ValidatorSource | None:
    """A function compiling ``direct``'s validator (tightened for ``arguments``); compiled now
    when it must be checked at definition time (``None`` if that fails)."""
    compile_ = functools.partial(
        compile_core_schema, direct.core, direct.config, arguments=arguments
    )
    if not direct.eager:
        return compile_
    try:
        return compile_()
    except Exception:
        return None


def _pydantic_arguments(
    subject: str, fields: Sequence[FieldSpec]
) -> tuple[dict[str, Any], SchemaValidator]:
    """What :func:`_arguments` returns, through a pydantic ``TypeAdapter`` of a ``TypedDict`` of
    the parameters (any annotation pydantic supports; its validator is compiled now)."""
    annotations: dict[str, Any] = {}
    for spec in fields:
        annotation = spec.annotation
        if spec.description:
            annotation = typing.Annotated[annotation, Field(description=spec.description)]
        annotations[spec.name] = annotation if spec.required else NotRequired[annotation]
    adapter = _arguments_adapter(subject, annotations)
    try:
        schema = tidy_schema(adapter.json_schema())
    except Exception as exc:
        raise ToolDefinitionError(
            subject, f"cannot build a JSON Schema of the parameters: {exc}"
        ) from exc
    schema.pop("additionalProperties", None)
    tightened = tighten(adapter.core_schema)
    if tightened is adapter.core_schema:
        return schema, adapter.validator  # type: ignore[return-value]
    return schema, SchemaValidator(tightened)


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


def _output(annotation: Any) -> tuple[ValidatorSource | None, dict[str, Any] | None, str | None]:
    """The return value's validator, JSON Schema and JSON type in one word."""
    if annotation in (inspect.Parameter.empty, None, type(None), Any, typing.NoReturn):
        return None, None, None
    if is_content_annotation(annotation):  # rich content: checked, but not JSON data to describe
        return TypeAdapter(annotation).validator, None, None  # type: ignore[return-value]
    validator: ValidatorSource | None = None
    try:
        direct = value_schemas(annotation)
        validator = _deferred(direct)
        schema = direct.json  # nothing to tidy: no property or definition titles
    except Unsupported:
        pass
    if validator is None:
        try:
            adapter: TypeAdapter[Any] = TypeAdapter(annotation)
            schema = tidy_schema(adapter.json_schema(mode="serialization"))
            validator = adapter.validator  # type: ignore[assignment]
        except Exception:
            # An arbitrary class as return type: accepted, but not validated or described.
            return None, None, getattr(annotation, "__name__", None)
    kind = schema.get("type")
    if kind is None and ("anyOf" in schema or "$ref" in schema):
        kind = "object" if "$ref" in schema else None
    return validator, schema, kind if isinstance(kind, str) else None


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name) or "tool"
