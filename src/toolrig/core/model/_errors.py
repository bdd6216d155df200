"""Error codes and exceptions, grouped by who has to act on them.

* The developer misused the library: `ToolDefinitionError` (raised at definition time).
* The model must fix its call, or the tool failed at run time: never raised to the caller of
  ``execute``; it becomes a `ToolResult` whose ``error.code`` is an
  `ErrorCode`. Tool authors raise `ToolError` (or `RetryableToolError`)
  to choose the code, message and hint the model reads.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

__all__ = [
    "ErrorCode",
    "Loc",
    "Problem",
    "RetryableToolError",
    "ToolDefinitionError",
    "ToolError",
    "ToolNotFoundError",
    "ToolResultError",
]


class ErrorCode(StrEnum):
    """The stable set of error codes a `ToolResult` can carry.

    The values are part of the public contract: models and callers may branch on them.
    """

    NOT_FOUND = "not_found"
    """No tool or action by that name (the message lists the closest valid names)."""
    INVALID_ARGUMENTS = "invalid_arguments"
    """The arguments do not match the parameter schema; the message says how to fix them."""
    TIMEOUT = "timeout"
    """The call ran past its time limit."""
    EXECUTION_ERROR = "execution_error"
    """The tool raised an exception while running."""
    INVALID_OUTPUT = "invalid_output"
    """The tool returned a value that does not match its declared output type."""
    CANCELLED = "cancelled"
    """The call was cancelled before it finished."""
    PERMISSION_DENIED = "permission_denied"
    """The call was refused by a policy, a hook or the operating system."""
    DEPENDENCY_FAILED = "dependency_failed"
    """A step this call depends on failed, so it was not run."""
    RATE_LIMITED = "rate_limited"
    """A service the tool relies on refused the call for now; retry later."""
    NOT_SUPPORTED = "not_supported"
    """The tool needs something this environment does not offer (e.g. a language model)."""
    GUARDRAIL = "guardrail"
    """A guardrail rejected the call or its output, tripped, or failed (the result's
    ``metadata.extra["guardrail"]`` holds its outcome)."""


Loc = tuple[str | int, ...]


class Problem(str):
    """One problem of a definition: its text, and where it is.

    ``loc`` lists the keys and indexes from the definition's root (``("parameters", 0,
    "default")``), as pydantic reports them, so a YAML loader can point at the file's line
    without reading the text back. It is a ``str`` so that
    `ToolDefinitionError.problems <toolrig.ToolDefinitionError>` stays a list of texts.
    """

    loc: Loc

    def __new__(cls, message: str, loc: Loc = ()) -> Problem:
        problem = super().__new__(cls, message)
        problem.loc = loc
        return problem

    def within(self, *prefix: str | int) -> Problem:
        """The same problem, located inside ``prefix``."""
        return Problem(self, (*prefix, *self.loc))


class ToolDefinitionError(ValueError):
    """A tool was defined wrongly. Raised at definition time, listing every problem found."""

    def __init__(self, subject: str, problems: list[str] | str) -> None:
        self.subject = subject
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        if len(self.problems) == 1:
            text = f"{subject}: {self.problems[0]}"
        else:
            lines = "\n".join(f"  - {p}" for p in self.problems)
            text = f"{subject}: {len(self.problems)} problems:\n{lines}"
        super().__init__(text)


class ToolNotFoundError(KeyError):
    """Lookup of a tool that is not registered. Carries the closest valid names."""

    def __init__(
        self, name: str, suggestions: list[str] | None = None, *, message: str | None = None
    ) -> None:
        self.name = name
        self.suggestions = suggestions or []
        self.message = message
        super().__init__(name)

    def __str__(self) -> str:
        if self.message:
            return self.message
        text = f"no tool named {self.name!r}"
        if self.suggestions:
            text += f"; did you mean {', '.join(repr(s) for s in self.suggestions)}?"
        return text


class ToolError(Exception):
    """Raise inside a tool to fail with a message written for the model.

    ``code`` is one of `ErrorCode` (default ``execution_error``); ``hint`` tells the model
    what to do next; ``details`` is any JSON-able data; ``retryable`` lets the executor retry.
    """

    retryable: bool = False

    def __init__(
        self,
        message: str,
        *,
        code: ErrorCode | str = ErrorCode.EXECUTION_ERROR,
        hint: str | None = None,
        details: Any = None,
        retryable: bool | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = str(code)
        self.hint = hint
        self.details = details
        if retryable is not None:
            self.retryable = retryable


class RetryableToolError(ToolError):
    """A transient failure (network blip, busy service): the executor may retry the call."""

    retryable = True


class ToolResultError(RuntimeError):
    """Raised by `ToolResult.unwrap` when the result is an error."""

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        self.message = message
        super().__init__(f"[{code}] {message}")
