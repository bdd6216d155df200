"""When and how long to wait before retrying a failed call."""

from __future__ import annotations

from dataclasses import dataclass

from toolrig.core.model._errors import ErrorCode
from toolrig.core.result._result import ErrorInfo

__all__ = ["RetryPolicy"]

_NEVER_RETRY = frozenset(
    {
        ErrorCode.INVALID_ARGUMENTS,
        ErrorCode.NOT_FOUND,
        ErrorCode.INVALID_OUTPUT,
        ErrorCode.PERMISSION_DENIED,
        ErrorCode.CANCELLED,
    }
)


@dataclass(frozen=True, slots=True, kw_only=True)
class RetryPolicy:
    """Exponential backoff with full jitter: attempt *n* waits ``uniform(0, min(max_delay,
    initial_delay * multiplier**(n-1)))`` seconds.

    Only retryable failures are retried: timeouts and errors marked ``retryable`` (raised as
    :class:`~toolrig.RetryableToolError`, or a ``ConnectionError``) — never invalid arguments.
    The number of retries comes from the tool's ``max_retries`` unless overridden per call.
    """

    initial_delay: float = 0.1
    max_delay: float = 5.0
    multiplier: float = 2.0
    jitter: bool = True

    def should_retry(self, error: ErrorInfo, attempt: int, max_retries: int) -> bool:
        """Whether the failed ``attempt`` (1-based) should be followed by another."""
        return attempt <= max_retries and error.retryable and error.code not in _NEVER_RETRY

    def delay(self, attempt: int) -> float:
        """Seconds to wait after failed ``attempt`` (1-based)."""
        ceiling = min(self.max_delay, self.initial_delay * self.multiplier ** (attempt - 1))
        if not self.jitter:
            return ceiling
        import random

        return random.uniform(0.0, ceiling)
