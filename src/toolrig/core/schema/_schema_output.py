"""Outputs checked against an ``output_schema`` given as JSON Schema.

An output is whatever the function returned: JSON-native data is checked as it is; anything
else (a dataclass, a model, a tuple of dates) is checked as it will be rendered, through
:func:`~toolrig.core.result._jsonable.to_jsonable`. Nothing is coerced: ``"5"`` is not an integer.
"""

from __future__ import annotations

from typing import Any

from toolrig.core.result._jsonable import to_jsonable
from toolrig.core.result._result import ErrorInfo
from toolrig.core.schema._argument_errors import MAX_PROBLEMS
from toolrig.core.schema._json_schema import JsonSchema
from toolrig.core.schema._schema_problems import describe_problems
from toolrig.core.schema._validation import invalid_output

__all__ = ["SchemaOutputValidator"]


class SchemaOutputValidator:
    """Checks outputs against a compiled JSON Schema."""

    __slots__ = ("_compiled", "subject")

    def __init__(self, compiled: JsonSchema, subject: str) -> None:
        self._compiled = compiled
        self.subject = subject

    @property
    def compiled(self) -> bool:
        """Always true: the schema was compiled when the tool was defined."""
        return True

    def check(self, output: Any) -> ErrorInfo | None:
        """``None`` when the output matches, else an ``invalid_output`` error."""
        if self._compiled.is_valid(output):
            return None
        rendered = to_jsonable(output)
        if rendered is not output and self._compiled.is_valid(rendered):
            return None
        lines = describe_problems(self._compiled, rendered, MAX_PROBLEMS)
        return invalid_output(self.subject, [f"- {line}" for line in lines])
