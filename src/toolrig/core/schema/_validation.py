"""Argument and output validation with error messages a model can act on.

A :class:`ArgumentValidator` is built once per action defined from type hints. Per call it runs
one compiled pydantic-core validation; only on failure does it do more work (decode JSON passed
as a string, build the message). Its pydantic-core validator may be given compiled, or as a
function that compiles it: then the first validation compiles it (defining a tool need not pay
for validators no call may ever use), and every later one reaches the compiled validator
directly. Tools defined from JSON Schema use
:class:`~toolrig.core.schema._schema_arguments.SchemaArgumentValidator` instead, with the same
interface and the same message format (:mod:`toolrig.core.schema._argument_errors`).

Both are total: ``validate`` returns the arguments or raises :class:`ArgumentsInvalid`, and
building the message never fails, whatever the arguments hold (values nested thousands deep,
integers of thousands of digits, text with lone surrogates, objects whose ``repr`` raises).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Protocol, TypeAlias

from pydantic_core import SchemaValidator, ValidationError

from toolrig.core.model._errors import ErrorCode
from toolrig.core.result._jsonable import clean_text
from toolrig.core.result._preview import json_type_of, shown
from toolrig.core.result._result import ErrorInfo
from toolrig.core.schema._argument_errors import (
    MAX_PROBLEMS,
    Problem,
    describe_type,
    format_path,
    invalid_arguments,
    parameters_hint,
    schema_at,
    too_deep,
    unknown_parameter,
)
from toolrig.core.schema._json_data import ABSENT, data_problems, loads_json, value_at

__all__ = [
    "ArgumentValidator",
    "ArgumentsInvalid",
    "ArgumentsValidator",
    "OutputValidator",
    "ValidatorSource",
    "format_path",
    "json_type_of",
]

ValidatorSource: TypeAlias = SchemaValidator | Callable[[], SchemaValidator]
"""A compiled validator, or a function that compiles it (called on first use, once)."""

_MAX_MESSAGE = 300
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


class ArgumentsValidator(Protocol):
    """What an action's argument validator offers (both kinds of validator have it)."""

    schema: Mapping[str, Any]
    subject: str

    @property
    def compiled(self) -> bool: ...

    def validate(self, arguments: Any, *, strict: bool = False) -> dict[str, Any]: ...


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

    __slots__ = ("_hint", "_validator", "schema", "subject")

    def __init__(self, validator: ValidatorSource, schema: Mapping[str, Any], subject: str) -> None:
        self._validator: SchemaValidator | _OnFirstUse = _installable(self, validator)
        self.schema = schema
        self.subject = subject
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
            failure = exc
        except RecursionError:
            raise ArgumentsInvalid(too_deep(self.subject)) from None
        except Exception as exc:  # a validator of the parameters' own types failed
            raise ArgumentsInvalid(_validator_failed(self.subject, exc, self.hint())) from None
        if not strict:
            decoded = _decode_json_strings(arguments, failure)
            if decoded is not None:
                return self.validate(decoded)
        raise ArgumentsInvalid(self.error_from(failure, arguments))

    def _strict(self, arguments: Any) -> Any:
        # Strict means "as the JSON a model sends, without type coercion": validating the JSON text
        # keeps ISO dates and enum values valid, while "5" for an integer is refused. The whole
        # arguments as JSON text are the wire form itself (what an OpenAI call carries).
        if isinstance(arguments, str) and arguments.strip()[:1] == "{":
            return self._validator.validate_json(arguments, strict=True)
        if data_problems(arguments, 1, long_ints=True):  # JSON text would hide them (1 -> "1")
            return self._validator.validate_python(arguments, strict=True)
        try:
            text = json.dumps(arguments, allow_nan=False)
        except (TypeError, ValueError, RecursionError):
            return self._validator.validate_python(arguments, strict=True)
        return self._validator.validate_json(text, strict=True)

    def error_from(self, exc: ValidationError, arguments: Any = None) -> ErrorInfo:
        """Turn a validation failure into one message listing each problem, path first
        (never raises: what cannot be shown is described instead)."""
        try:
            errors = _error_list(exc)
            problems = [self._problem(err, arguments) for err in errors[:MAX_PROBLEMS]]
            total = _error_count(exc, len(errors))
        except Exception:  # the last resort: say where, without the failing details
            problems = [
                _plain_problem(loc, code, text)
                for loc, code, text in data_problems(arguments, MAX_PROBLEMS)
            ] or [_plain_problem((), "invalid", "the arguments do not match the parameters")]
            total = len(problems)
        return invalid_arguments(self.subject, problems, total, self.hint())

    def hint(self) -> str:
        """How to fix the call, naming the parameters (built once: the schema is fixed)."""
        if self._hint is None:
            self._hint = parameters_hint(self.subject, self.schema)
        return self._hint

    def _problem(self, err: Mapping[str, Any], arguments: Any) -> Problem:
        loc: tuple[str | int, ...] = tuple(err.get("loc", ()))
        kind = str(err.get("type", ""))
        path = format_path(loc)
        received = err["input"] if "input" in err else _value_at(arguments, loc)
        if kind == "missing":
            expected = describe_type(schema_at(self.schema, loc))
            return {
                "path": path,
                "problem": kind,
                "expected": expected,
                "received": None,
                "text": f"required parameter is missing (expected {expected})",
            }
        if kind == "extra_forbidden":
            parent = schema_at(self.schema, loc[:-1]) or {}
            props = parent.get("properties")
            names = [clean_text(str(k)) for k in props] if isinstance(props, Mapping) else []
            return unknown_parameter(loc or ("?",), names, received)
        seen = shown(received)
        if loc == () and kind in ("dict_type", "model_type"):
            return {
                "path": path,
                "problem": kind,
                "expected": "an object",
                "received": seen,
                "text": f"arguments must be a JSON object of named parameters, received {seen}",
            }
        msg = clean_text(str(err.get("msg", "is invalid")))[:_MAX_MESSAGE]
        if kind == "json_invalid":  # "Invalid JSON: EOF while parsing..."
            return {
                "path": path,
                "problem": kind,
                "expected": "JSON text",
                "received": seen,
                "text": f"not valid JSON text ({msg.split(': ', 1)[-1]}), received {seen}",
            }
        expected = msg[len("Input should be ") :] if msg.startswith("Input should be ") else msg
        if not expected[1:2].isupper():  # "JSON data" stays as it is
            expected = expected[:1].lower() + expected[1:]
        return {
            "path": path,
            "problem": kind,
            "expected": expected,
            "received": seen,
            "text": f"expected {expected}, received {seen}",
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
            try:
                lines = [
                    f"- {format_path(tuple(err.get('loc', ())))}: "
                    f"{clean_text(str(err.get('msg', 'is invalid')))[:_MAX_MESSAGE]}, "
                    f"got {shown(err.get('input'))}"
                    for err in _error_list(exc)[:MAX_PROBLEMS]
                ]
            except Exception:
                lines = ["- (output): does not match"]
            return invalid_output(self.subject, lines)
        except RecursionError:
            return invalid_output(self.subject, ["- (output): nested too deeply"])
        return None


def invalid_output(subject: str, lines: list[str]) -> ErrorInfo:
    """The ``invalid_output`` error: the tool, not the call, is at fault."""
    return ErrorInfo(
        code=ErrorCode.INVALID_OUTPUT,
        message=f"`{subject}` returned output that does not match its declared type:\n"
        + "\n".join(lines),
        hint="A fault of the tool, not of the call: do not retry with other arguments.",
    )


def _validator_failed(subject: str, exc: Exception, hint: str) -> ErrorInfo:
    problem = _plain_problem(
        (), "validator_error", f"checking the arguments failed ({type(exc).__name__})"
    )
    return invalid_arguments(subject, [problem], 1, hint)


def _error_list(exc: ValidationError) -> list[Any]:
    """pydantic's error list; without the inputs when they cannot be encoded (``errors()``
    encodes them, and text with lone surrogates makes it raise)."""
    try:
        return exc.errors(include_url=False)
    except (ValueError, RecursionError):
        return exc.errors(include_url=False, include_input=False, include_context=False)


def _error_count(exc: ValidationError, listed: int) -> int:
    try:
        return exc.error_count()
    except Exception:
        return listed


def _value_at(value: Any, loc: tuple[str | int, ...]) -> Any:
    found = value_at(value, loc)
    return None if found is ABSENT else found


def _plain_problem(loc: tuple[str | int, ...], code: str, text: str) -> Problem:
    return {
        "path": format_path(loc),
        "problem": code,
        "expected": None,
        "received": None,
        "text": text,
    }


def _decode_json_strings(arguments: Any, exc: ValidationError) -> Any | None:
    """Arguments with JSON-looking strings decoded where an object or array was expected.

    Models often send ``"{\"a\": 1}"`` for an object parameter. Returns ``None`` when nothing
    could be decoded (so the original error stands).
    """
    if isinstance(arguments, str):
        return _loads_container(arguments)
    if not isinstance(arguments, dict):
        return None
    try:
        errors = _error_list(exc)
    except Exception:
        return None
    targets = [
        tuple(e["loc"])
        for e in errors
        if e["type"] in _JSON_CONTAINER_ERRORS and isinstance(_value_at(arguments, e["loc"]), str)
    ]
    if not targets:
        return None
    patched = arguments
    for loc in targets:
        patched = _replaced(patched, loc)
    return patched if patched is not arguments else None


def _replaced(root: Any, loc: tuple[Any, ...]) -> Any:
    """``root`` with the JSON text at ``loc`` decoded, copying only the containers on the way
    (pydantic adds union-member tags to ``loc``: only real keys and indexes are followed)."""
    node = root
    steps: list[Any] = []
    for i, part in enumerate(loc):
        if not _steps_into(node, part):
            continue
        steps.append(part)
        if i == len(loc) - 1:
            decoded = _loads_container(node[part])
            return root if decoded is None else _set(root, steps, decoded)
        node = node[part]
    return root


def _set(node: Any, steps: list[Any], new: Any) -> Any:
    if not steps:
        return new
    copy = dict(node) if isinstance(node, dict) else list(node)
    copy[steps[0]] = _set(node[steps[0]], steps[1:], new)
    return copy


def _steps_into(node: Any, part: Any) -> bool:
    return (isinstance(node, dict) and part in node) or (
        isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)
    )


def _loads_container(text: Any) -> Any | None:
    if not isinstance(text, str):
        return None
    stripped = text.strip()
    if not stripped or stripped[0] not in "[{":
        return None
    try:
        value = loads_json(stripped)
    except ValueError:
        return None
    return value if isinstance(value, dict | list) else None
