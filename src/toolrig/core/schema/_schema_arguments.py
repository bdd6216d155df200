"""Arguments of a tool defined from JSON Schema: validated in full, coerced safely, defaults
filled, and every failure told as an ``invalid_arguments`` error.

A valid call costs one scan of the values (:func:`~toolrig.core.schema._json_data.plain`), one
jsonschema-rs check and a dict merge for the defaults. Everything else happens on failure:
explaining data that is not JSON, converting text to the wanted type outside strict mode
(:mod:`toolrig.core.schema._schema_coercion`), then listing the validator's errors. :meth:`validate`
is total: it returns the arguments or raises :class:`ArgumentsInvalid`, whatever it is given.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from toolrig.core.result._preview import shown
from toolrig.core.result._result import ErrorInfo
from toolrig.core.schema._argument_errors import (
    MAX_PROBLEMS,
    Problem,
    format_path,
    invalid_arguments,
    parameters_hint,
    too_deep,
)
from toolrig.core.schema._json_data import data_problems, loads_json, plain
from toolrig.core.schema._json_schema import JsonSchema
from toolrig.core.schema._schema_coercion import coerce
from toolrig.core.schema._schema_defaults import Defaults
from toolrig.core.schema._schema_problems import schema_problems
from toolrig.core.schema._validation import ArgumentsInvalid

__all__ = ["SchemaArgumentValidator"]

_COUNTED = 1_000
"""Errors counted for the message's total (past it: "at least 1000 problems")."""
_READABLE = (ValueError, TypeError, OverflowError, RecursionError)
"""What the validator raises for data it cannot read (sets, dates, lone surrogates...)."""


class SchemaArgumentValidator:
    """Validates a call's arguments against a parameter schema compiled by jsonschema-rs."""

    __slots__ = ("_compiled", "_fill", "_hint", "_is_valid", "schema", "subject")

    def __init__(self, compiled: JsonSchema, schema: Mapping[str, Any], subject: str) -> None:
        self._compiled = compiled
        self._is_valid = compiled.validator.is_valid
        self.schema = schema
        self.subject = subject
        self._fill: Callable[[dict[str, Any]], dict[str, Any]] = self._first_fill
        self._hint: str | None = None

    def _first_fill(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Plan the defaults (on the first valid call: defining a tool need not pay for it),
        then fill them as every later call will."""
        self._fill = Defaults(self.schema).fill
        return self._fill(arguments)

    @property
    def compiled(self) -> bool:
        """Always true: schemas are compiled (or found compiled) when the tool is defined."""
        return True

    def validate(self, arguments: Any, *, strict: bool = False) -> dict[str, Any]:
        """The validated (and, unless ``strict``, safely coerced) arguments with defaults
        filled in. Raises :class:`ArgumentsInvalid` listing every problem."""
        if type(arguments) is not dict:
            arguments = self._as_object(arguments)
        try:
            if plain(arguments) and self._is_valid(arguments):
                return self._fill(arguments)
        except _READABLE:
            pass
        try:
            return self._slow(arguments, strict)
        except ArgumentsInvalid:
            raise
        except Exception as exc:  # explaining failed (a mapping that breaks when read...)
            problem = _data_problem(
                (), "unreadable", f"the arguments could not be read ({type(exc).__name__})"
            )
            raise ArgumentsInvalid(
                invalid_arguments(self.subject, [problem], 1, self.hint())
            ) from None

    def _as_object(self, arguments: Any) -> dict[str, Any]:
        if isinstance(arguments, Mapping):
            try:
                return dict(arguments)
            except Exception:
                pass
        elif isinstance(arguments, str) and arguments.strip()[:1] == "{":
            # the whole arguments as JSON text are the wire form (strict calls too); strictness
            # is about the values inside
            try:
                decoded = loads_json(arguments)
            except ValueError as exc:
                if "too deeply" in str(exc):
                    raise ArgumentsInvalid(too_deep(self.subject)) from None
                decoded = None
            if isinstance(decoded, dict):
                return decoded
        shown_value = shown(arguments)
        problem: Problem = {
            "path": format_path(()),
            "problem": "type",
            "expected": "an object",
            "received": shown_value,
            "text": f"arguments must be a JSON object of named parameters, received {shown_value}",
        }
        raise ArgumentsInvalid(invalid_arguments(self.subject, [problem], 1, self.hint()))

    def _slow(self, arguments: dict[str, Any], strict: bool) -> dict[str, Any]:
        """A failed first check: try the safe coercions, else list the validator's errors, or
        what in the arguments is not JSON data."""
        compiled = self._compiled
        if plain(arguments):
            if not strict:
                coerced = coerce(compiled, arguments)
                if coerced is not None:
                    if compiled.is_valid(coerced):
                        return self._fill(coerced)
                    if plain(coerced):
                        arguments = coerced
            try:
                errors = compiled.errors(arguments, _COUNTED)
            except _READABLE:  # a value the validator cannot read
                errors = []
            if errors:
                raise ArgumentsInvalid(self._described(arguments, errors))
        found = data_problems(arguments, MAX_PROBLEMS)
        problems = [_data_problem(loc, code, text) for loc, code, text in found] or [
            _data_problem((), "not_json", "the arguments could not be read as JSON data")
        ]
        raise ArgumentsInvalid(
            invalid_arguments(self.subject, problems, len(problems), self.hint())
        )

    def _described(self, arguments: dict[str, Any], errors: list[Any]) -> ErrorInfo:
        compiled = self._compiled
        problems = schema_problems(
            compiled.schema, compiled.enforced, errors[:MAX_PROBLEMS], arguments
        )
        total = len(problems) + len(errors) - min(len(errors), MAX_PROBLEMS)
        return invalid_arguments(
            self.subject, problems, None if len(errors) >= _COUNTED else total, self.hint()
        )

    def hint(self) -> str:
        """How to fix the call, naming the parameters (built once: the schema is fixed)."""
        if self._hint is None:
            self._hint = parameters_hint(self.subject, self.schema)
        return self._hint


def _data_problem(loc: tuple[str | int, ...], code: str, text: str) -> Problem:
    return {
        "path": format_path(loc),
        "problem": code,
        "expected": "JSON data",
        "received": None,
        "text": text,
    }
