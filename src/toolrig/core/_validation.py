"""Argument and output validation with error messages a model can act on.

A :class:`ArgumentValidator` is built once per action. Per call it runs one compiled
pydantic-core validation; only on failure does it do more work (decode JSON passed as a string,
build the message). Its pydantic-core validator may be given compiled, or as a function that
compiles it: then the first validation compiles it (defining a tool need not pay for validators
no call may ever use), and every later one reaches the compiled validator directly.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeAlias

from pydantic_core import SchemaValidator, ValidationError

from toolrig.core._errors import ErrorCode
from toolrig.core._result import ErrorInfo
from toolrig.core._suggest import closest

__all__ = [
    "ArgumentValidator",
    "ArgumentsInvalid",
    "OutputValidator",
    "ValidatorSource",
    "format_path",
    "json_type_of",
]

ValidatorSource: TypeAlias = SchemaValidator | Callable[[], SchemaValidator]
"""A compiled validator, or a function that compiles it (called on first use, once)."""

_MAX_SHOWN = 80
_MAX_PROBLEMS = 20
_JSON_CONTAINER_ERRORS = frozenset(
    {
        "dict_type",
        "list_type",
        "tuple_type",
        "model_type",
        "model_attributes_type",
        "dataclass_type",
        "set_type",
        "frozen_set_type",
    }
)


class ArgumentsInvalid(Exception):
    """Raised by :meth:`ArgumentValidator.validate`; carries the error for the model."""

    def __init__(self, error: ErrorInfo) -> None:
        super().__init__(error.message)
        self.error = error


def format_path(loc: Sequence[str | int]) -> str:
    """``('filters', 'tags', 2)`` -> ``filters.tags[2]``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "(arguments)"


def _shown(value: Any) -> str:
    """A short, safe rendering of a received value, with its JSON type."""
    kind = json_type_of(value)
    try:
        text = json.dumps(value, ensure_ascii=False, default=repr)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    if len(text) > _MAX_SHOWN:
        text = text[: _MAX_SHOWN - 3] + "..."
    return f"{text} ({kind})"


def json_type_of(value: Any) -> str:
    """The JSON Schema type name of a Python value (its class name when it has none)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, list | tuple):
        return "array"
    return type(value).__name__


def _schema_at(schema: Mapping[str, Any], loc: Sequence[str | int]) -> Mapping[str, Any] | None:
    """The sub-schema at ``loc`` (following properties, items and local refs), if known."""
    defs = schema.get("$defs") or schema.get("definitions") or {}
    node: Any = schema
    for part in loc:
        node = _resolve(node, defs)
        if not isinstance(node, Mapping):
            return None
        if isinstance(part, int):
            node = node.get("items")
        else:
            props = node.get("properties")
            if not isinstance(props, Mapping) or part not in props:
                # union members: look for the first that has this property
                for key in ("anyOf", "oneOf"):
                    for option in node.get(key) or []:
                        option = _resolve(option, defs)
                        if isinstance(option, Mapping) and part in (option.get("properties") or {}):
                            props = option["properties"]
                            break
                if not isinstance(props, Mapping) or part not in props:
                    return None
            node = props[part]
    node = _resolve(node, defs)
    return node if isinstance(node, Mapping) else None


def _resolve(node: Any, defs: Mapping[str, Any]) -> Any:
    for _ in range(16):
        if isinstance(node, Mapping) and isinstance(node.get("$ref"), str):
            node = defs.get(node["$ref"].rsplit("/", 1)[-1])
        else:
            break
    return node


def _describe_type(sub: Mapping[str, Any] | None) -> str:
    if not sub:
        return "a value"
    if "enum" in sub:
        return "one of " + ", ".join(json.dumps(v) for v in sub["enum"])
    kind = sub.get("type")
    if isinstance(kind, list):
        return " or ".join(str(k) for k in kind)
    if kind:
        return f"{'an' if str(kind)[0] in 'aeiou' else 'a'} {kind}"
    for key in ("anyOf", "oneOf"):
        if key in sub:
            return "one of the allowed shapes"
    return "a value"


class _OnFirstUse:
    """Stands in for a validator not compiled yet. The first validation compiles it and puts it in
    its owner's place, so later calls cost what they would have cost had it been compiled at
    definition time (two threads racing on the first call may both compile: harmless)."""

    __slots__ = ("_compile", "_owner")

    def __init__(
        self, owner: ArgumentValidator | OutputValidator, compile_: Callable[[], Any]
    ) -> None:
        self._owner = owner
        self._compile = compile_

    def compiled(self) -> SchemaValidator:
        """Compile, install in the owner, return."""
        validator: SchemaValidator = self._compile()
        self._owner._validator = validator
        return validator

    def validate_python(self, value: Any, **kwargs: Any) -> Any:
        return self.compiled().validate_python(value, **kwargs)

    def validate_json(self, value: str | bytes, **kwargs: Any) -> Any:
        return self.compiled().validate_json(value, **kwargs)


def _installable(owner: ArgumentValidator | OutputValidator, source: ValidatorSource) -> Any:
    return source if isinstance(source, SchemaValidator) else _OnFirstUse(owner, source)


class ArgumentValidator:
    """Validates a call's arguments against an action's parameter schema (compiled once, when
    first needed if given as a function)."""

    __slots__ = ("_hint", "_names", "_validator", "schema", "subject")

    def __init__(self, validator: ValidatorSource, schema: Mapping[str, Any], subject: str) -> None:
        self._validator: SchemaValidator | _OnFirstUse = _installable(self, validator)
        self.schema = schema
        self.subject = subject
        self._names = tuple((schema.get("properties") or {}).keys())
        self._hint: str | None = None

    @property
    def compiled(self) -> bool:
        """Whether the pydantic-core validator has been compiled yet."""
        return isinstance(self._validator, SchemaValidator)

    def validate(self, arguments: Any, *, strict: bool = False) -> dict[str, Any]:
        """The validated (and, unless ``strict``, safely coerced) arguments.

        Raises :class:`ArgumentsInvalid` listing every problem.
        """
        try:
            if strict:
                return self._strict(arguments)  # type: ignore[no-any-return]
            return self._validator.validate_python(arguments)  # type: ignore[no-any-return]
        except ValidationError as exc:
            if not strict:
                decoded = _decode_json_strings(arguments, exc)
                if decoded is not None:
                    return self.validate(decoded)
            raise ArgumentsInvalid(self.error_from(exc)) from None
        except RecursionError:
            raise ArgumentsInvalid(
                ErrorInfo(
                    code=ErrorCode.INVALID_ARGUMENTS,
                    message=f"Invalid arguments for `{self.subject}`: nested too deeply.",
                )
            ) from None

    def _strict(self, arguments: Any) -> Any:
        # Strict means "as the JSON a model sends, without type coercion": validating the JSON text
        # keeps ISO dates and enum values valid, while "5" for an integer is refused.
        try:
            text = json.dumps(arguments)
        except (TypeError, ValueError):
            return self._validator.validate_python(arguments, strict=True)
        return self._validator.validate_json(text, strict=True)

    def error_from(self, exc: ValidationError) -> ErrorInfo:
        """Turn a validation failure into one message listing each problem, path first."""
        problems: list[dict[str, Any]] = []
        lines: list[str] = []
        errors = exc.errors(include_url=False)
        for err in errors[:_MAX_PROBLEMS]:
            problem = self._problem(err)
            problems.append(problem)
            lines.append(f"- {problem['path']}: {problem['text']}")
        if len(errors) > _MAX_PROBLEMS:
            lines.append(f"- ... and {len(errors) - _MAX_PROBLEMS} more problems")
        count = len(errors)
        header = (
            f"Invalid arguments for `{self.subject}`: {count} problem{'s' if count != 1 else ''}."
        )
        if self._hint is None:  # built on the first failure, then kept: the schema is fixed
            self._hint = f"Fix the arguments listed above and call `{self.subject}` again."
            if self._names:
                self._hint += f" Parameters: {self._signature_hint()}."
        hint = self._hint
        for p in problems:
            p.pop("text")
        return ErrorInfo(
            code=ErrorCode.INVALID_ARGUMENTS,
            message=header + "\n" + "\n".join(lines),
            hint=hint,
            details=problems,
        )

    def _signature_hint(self) -> str:
        required = set(self.schema.get("required") or ())
        props = self.schema.get("properties") or {}
        parts = []
        for name in self._names:
            kind = _describe_type(_resolve(props[name], self.schema.get("$defs") or {})).split(
                " ", 1
            )[-1]
            parts.append(f"{name} ({kind}{', required' if name in required else ''})")
        return ", ".join(parts)

    def _problem(self, err: Mapping[str, Any]) -> dict[str, Any]:
        loc: tuple[str | int, ...] = tuple(err.get("loc", ()))
        kind = err.get("type", "")
        path = format_path(loc)
        received = err.get("input")
        if kind == "missing":
            expected = _describe_type(_schema_at(self.schema, loc))
            text = f"required parameter is missing (expected {expected})"
            return {
                "path": path,
                "problem": kind,
                "expected": expected,
                "received": None,
                "text": text,
            }
        if kind == "extra_forbidden":
            parent = _schema_at(self.schema, loc[:-1]) or {}
            names = list((parent.get("properties") or {}).keys())
            bad = str(loc[-1]) if loc else path
            close = closest(bad, names)
            text = "unknown parameter"
            if close:
                text += f"; did you mean {' or '.join(f'`{c}`' for c in close)}?"
            if names:
                text += f" Valid names here: {', '.join(names)}"
            return {
                "path": path,
                "problem": kind,
                "expected": names,
                "received": _shown(received),
                "text": text,
                "suggestions": close,
            }
        shown = _shown(received)
        if loc == () and kind in ("dict_type", "model_type"):
            text = f"arguments must be a JSON object of named parameters, received {shown}"
            return {
                "path": path,
                "problem": kind,
                "expected": "an object",
                "received": shown,
                "text": text,
            }
        msg = str(err.get("msg", "is invalid"))
        expected = msg[len("Input should be ") :] if msg.startswith("Input should be ") else msg
        expected = expected[:1].lower() + expected[1:]
        return {
            "path": path,
            "problem": kind,
            "expected": expected,
            "received": shown,
            "text": f"expected {expected}, received {shown}",
        }


class OutputValidator:
    """Checks a tool's output against its declared type or schema (compiled once, when first
    needed if given as a function)."""

    __slots__ = ("_validator", "subject")

    def __init__(self, validator: ValidatorSource, subject: str) -> None:
        self._validator: SchemaValidator | _OnFirstUse = _installable(self, validator)
        self.subject = subject

    @property
    def compiled(self) -> bool:
        """Whether the pydantic-core validator has been compiled yet."""
        return isinstance(self._validator, SchemaValidator)

    def check(self, output: Any) -> ErrorInfo | None:
        """``None`` when the output is valid, else an ``invalid_output`` error."""
        try:
            self._validator.validate_python(output)
        except ValidationError as exc:
            lines = []
            for err in exc.errors(include_url=False)[:_MAX_PROBLEMS]:
                msg = str(err.get("msg", "is invalid"))
                lines.append(
                    f"- {format_path(tuple(err.get('loc', ())))}: {msg}, "
                    f"got {_shown(err.get('input'))}"
                )
            return ErrorInfo(
                code=ErrorCode.INVALID_OUTPUT,
                message=f"`{self.subject}` returned output that does not match its declared type:\n"
                + "\n".join(lines),
                hint="A fault of the tool, not of the call: do not retry with other arguments.",
            )
        return None


def _decode_json_strings(arguments: Any, exc: ValidationError) -> Any | None:
    """Arguments with JSON-looking strings decoded where an object or array was expected.

    Models often send ``"{\"a\": 1}"`` for an object parameter. Returns ``None`` when nothing
    could be decoded (so the original error stands).
    """
    if isinstance(arguments, str):
        return _loads_container(arguments)
    targets = [
        tuple(e["loc"])
        for e in exc.errors(include_url=False)
        if e["type"] in _JSON_CONTAINER_ERRORS and isinstance(e.get("input"), str)
    ]
    if not targets or not isinstance(arguments, dict):
        return None
    patched = copy_path_container(arguments)
    changed = False
    for loc in targets:
        if _replace_at(patched, loc):
            changed = True
    return patched if changed else None


def copy_path_container(value: Any) -> Any:
    """A structural copy of dicts and lists (leaves shared), so patching never mutates input."""
    if isinstance(value, dict):
        return {k: copy_path_container(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_path_container(v) for v in value]
    return value


def _replace_at(root: Any, loc: tuple[Any, ...]) -> bool:
    node = root
    # pydantic adds union-member tags to loc; walk only through real keys/indexes
    for i, part in enumerate(loc):
        last = i == len(loc) - 1
        in_dict = isinstance(node, dict) and part in node
        in_list = isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)
        if in_dict or in_list:
            if last:
                decoded = _loads_container(node[part])
                if decoded is None:
                    return False
                node[part] = decoded
                return True
            node = node[part]
    return False


def _loads_container(text: Any) -> Any | None:
    if not isinstance(text, str):
        return None
    stripped = text.strip()
    if not stripped or stripped[0] not in "[{":
        return None
    try:
        value = json.loads(stripped)
    except ValueError:
        return None
    return value if isinstance(value, dict | list) else None
