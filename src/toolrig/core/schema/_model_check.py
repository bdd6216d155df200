"""A check in front of a nested ``BaseModel`` parameter, for what its own validator lets pass.

pydantic-core validates a model with the validator compiled for its class, whatever the schema
it is found in says, so a model inside tool arguments cannot be told to refuse unknown keys or
duplicate set items. :func:`model_check` builds a check that runs first on a dict given for the
model: a typed dict of the model's keys that refuses any other key, whose fields are the
model's field schemas where tightening changes them (sets, int enums, models nested further)
and anything elsewhere. Its problems are reported together with the model's own, each once.
A model whose config says what to do with extra keys, or whose fields have alias paths or
recursive references, is left as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from pydantic_core import PydanticCustomError, SchemaValidator, ValidationError

__all__ = ["model_check"]

_ANY: Final = {"type": "any"}
_building: set[int] = set()


def model_check(
    node: dict[str, Any], tighten: Callable[[Any], Any]
) -> Callable[[Any, Callable[[Any], Any]], Any] | None:
    """A wrap-validator function checking dicts given for the model of ``node``, or ``None``."""
    cls = node.get("cls")
    fields = getattr(cls, "__pydantic_fields__", None)
    config = getattr(cls, "model_config", None)
    if not isinstance(fields, dict) or not isinstance(config, dict) or "extra" in config:
        return None
    if id(cls) in _building:  # a model containing itself: its inner levels go unchecked
        return None
    _building.add(id(cls))
    try:
        schemas = _field_schemas(getattr(cls, "__pydantic_core_schema__", None), tighten)
    finally:
        _building.discard(id(cls))
    keys: dict[str, Any] = {}
    for name, info in fields.items():
        aliases = [getattr(info, "alias", None), getattr(info, "validation_alias", None)]
        if any(a is not None and not isinstance(a, str) for a in aliases):
            return None
        for key in {name, *(a for a in aliases if a is not None)}:
            keys[key] = schemas.get(name, _ANY)
    validator = SchemaValidator(
        {
            "type": "typed-dict",
            "fields": {
                key: {"type": "typed-dict-field", "schema": schema, "required": False}
                for key, schema in keys.items()
            },
            "extra_behavior": "forbid",
        }
    )
    return _checker(validator)


def _field_schemas(core: Any, tighten: Callable[[Any], Any]) -> dict[str, Any]:
    """The field schemas that tightening changes, by field name."""
    if not isinstance(core, dict) or core.get("type") != "model":
        return {}
    inner = core.get("schema")
    if not isinstance(inner, dict) or inner.get("type") != "model-fields":
        return {}
    found: dict[str, Any] = {}
    for name, field in (inner.get("fields") or {}).items():
        schema = field.get("schema") if isinstance(field, dict) else None
        if schema is None or _refers(schema):
            continue
        tightened = tighten(schema)
        if tightened is not schema:
            found[name] = tightened
    return found


def _refers(node: Any, depth: int = 0) -> bool:
    """Whether a schema uses references (then it cannot be compiled on its own)."""
    if depth > 100:
        return True
    if isinstance(node, dict):
        if node.get("type") in ("definition-ref", "definitions"):
            return True
        return any(_refers(v, depth + 1) for k, v in node.items() if k != "metadata")
    if isinstance(node, list):
        return any(_refers(v, depth + 1) for v in node)
    return False


def _checker(validator: SchemaValidator) -> Callable[[Any, Callable[[Any], Any]], Any]:
    def check(value: Any, handler: Callable[[Any], Any]) -> Any:
        first: ValidationError | None = None
        if isinstance(value, dict):
            try:
                validator.validate_python(value)
            except ValidationError as exc:
                first = exc
        try:
            result = handler(value)
        except ValidationError as exc:
            if first is None:
                raise
            raise _merged(first, exc) from None
        if first is not None:
            raise first
        return result

    return check


def _merged(first: ValidationError, second: ValidationError) -> ValidationError:
    """One error listing the problems of both, each once (``second`` alone if they cannot be
    listed, as when an input holds text that does not encode)."""
    try:
        return _joined(first, second)
    except (ValueError, TypeError, RecursionError):
        return second


def _joined(first: ValidationError, second: ValidationError) -> ValidationError:
    details: list[Any] = []
    seen: set[tuple[Any, ...]] = set()
    for exc in (first, second):
        for error in exc.errors(include_url=False, include_input=True):
            key = (tuple(error["loc"]), error["type"])
            if key in seen:
                continue
            seen.add(key)
            message = str(error["msg"]).replace("{", "{{").replace("}", "}}")
            details.append(
                {
                    "type": PydanticCustomError(error["type"], message),
                    "loc": error["loc"],
                    "input": error.get("input"),
                }
            )
    return ValidationError.from_exception_data(first.title, details)
