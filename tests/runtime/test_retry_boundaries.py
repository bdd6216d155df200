"""The boundaries of the retry promise: only retryable failures are retried, never a refusal
that the same call would meet again, and each wait stays within its exponential ceiling.

| promise | boundary | test |
|---|---|---|
| how many | the last allowed attempt retries, the next does not; none allowed | ``..._count`` |
| which | a failure not marked retryable: never, whatever its code | ``..._marked`` |
| never | each never-retry code, even marked retryable (every entry) | ``..._never`` |
| nothing else | timeout, execution error, rate limit, a tool's own code: retried | ``..._others`` |
| the wait | no jitter: ``initial * multiplier**(n-1)``, capped; the defaults | ``..._ceiling`` |
| the wait | jitter: in ``[0, ceiling]`` for any settings (hypothesis); spread | ``..._jitter*`` |
| the pipeline | a retryable refusal runs once; a retryable failure runs again | ``..._pipeline`` |
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolrig import RetryableToolError, ToolExecutor, tool
from toolrig.core.model._errors import ErrorCode
from toolrig.core.result._result import ErrorInfo
from toolrig.runtime._retry import RetryPolicy

NEVER = [
    ErrorCode.INVALID_ARGUMENTS,
    ErrorCode.NOT_FOUND,
    ErrorCode.INVALID_OUTPUT,
    ErrorCode.PERMISSION_DENIED,
    ErrorCode.CANCELLED,
]
RETRIED = [
    ErrorCode.TIMEOUT,
    ErrorCode.EXECUTION_ERROR,
    ErrorCode.RATE_LIMITED,
    ErrorCode.DEPENDENCY_FAILED,
    "quota_exceeded",  # a tool's own code
]


def _error(code: str, *, retryable: bool = True) -> ErrorInfo:
    return ErrorInfo(code=code, message="failed", retryable=retryable)


def test_retry_count() -> None:
    policy = RetryPolicy()
    timeout = _error(ErrorCode.TIMEOUT)
    assert [policy.should_retry(timeout, n, 3) for n in (1, 2, 3, 4)] == [True, True, True, False]
    assert not policy.should_retry(timeout, 1, 0)


@pytest.mark.parametrize("code", [*NEVER, *RETRIED])
def test_retry_only_what_is_marked(code: str) -> None:
    assert not RetryPolicy().should_retry(_error(code, retryable=False), 1, 5)


@pytest.mark.parametrize("code", NEVER)
def test_retry_never(code: str) -> None:
    assert not RetryPolicy().should_retry(_error(code), 1, 5)


@pytest.mark.parametrize("code", RETRIED)
def test_retry_others(code: str) -> None:
    assert RetryPolicy().should_retry(_error(code), 1, 5)


def test_retry_ceiling() -> None:
    default = RetryPolicy(jitter=False)
    assert [default.delay(n) for n in (1, 2, 3, 6, 7, 30)] == [0.1, 0.2, 0.4, 3.2, 5.0, 5.0]
    own = RetryPolicy(initial_delay=1.0, multiplier=3.0, max_delay=20.0, jitter=False)
    assert [own.delay(n) for n in (1, 2, 3, 4)] == [1.0, 3.0, 9.0, 20.0]
    assert RetryPolicy().jitter is True


@given(
    initial=st.floats(0.001, 10),
    multiplier=st.floats(1, 4),
    ceiling=st.floats(0.001, 60),
    attempt=st.integers(1, 12),
)
def test_retry_jitter(initial: float, multiplier: float, ceiling: float, attempt: int) -> None:
    policy = RetryPolicy(initial_delay=initial, multiplier=multiplier, max_delay=ceiling)
    top = RetryPolicy(
        initial_delay=initial, multiplier=multiplier, max_delay=ceiling, jitter=False
    ).delay(attempt)
    assert top == min(ceiling, initial * multiplier ** (attempt - 1))
    assert 0.0 <= policy.delay(attempt) <= top


def test_retry_jitter_spreads_the_waits_from_zero() -> None:
    random.seed(7)
    waits = [RetryPolicy(initial_delay=1.0, max_delay=1.0).delay(1) for _ in range(200)]
    assert min(waits) < 0.05 and max(waits) > 0.95 and len(set(waits)) == 200


ATTEMPTS: list[str] = []


@tool(max_retries=2)
def flaky(kind: str) -> str:
    """Fail in a retryable way."""
    ATTEMPTS.append(kind)
    if kind == "refused":
        raise RetryableToolError("try again", code=ErrorCode.PERMISSION_DENIED)
    raise RetryableToolError("busy", code="busy")


def test_retry_pipeline() -> None:
    executor = ToolExecutor([flaky], retry=RetryPolicy(initial_delay=0.001, jitter=False))
    ATTEMPTS.clear()
    refused = executor.execute_sync("flaky", {"kind": "refused"})
    assert refused.error is not None and refused.error.code == ErrorCode.PERMISSION_DENIED
    assert ATTEMPTS == ["refused"]
    ATTEMPTS.clear()
    busy = executor.execute_sync("flaky", {"kind": "busy"})
    assert busy.error is not None and busy.error.code == "busy"
    assert ATTEMPTS == ["busy"] * 3
    executor.close()
