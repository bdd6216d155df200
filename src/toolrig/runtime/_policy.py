"""``CallPolicy``: the settings every call of a pipeline follows, as one frozen value."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from typing import Any, Final

from toolrig.core.model._timeout import check_timeout
from toolrig.core.model._unset import UNSET, Unset
from toolrig.runtime._retry import RetryPolicy

__all__ = ["DEFAULT_TIMEOUT", "TIMEOUT_ENV", "CallPolicy", "implicit_limit"]

DEFAULT_TIMEOUT: Final = 300.0
"""Seconds a call of a tool that says nothing about its ``timeout`` may take, on every path
that runs it off the caller's thread or on an event loop (a direct blocking call of a sync
tool runs on the caller's own thread and is bounded only by an explicit ``timeout=``)."""

TIMEOUT_ENV: Final = "TOOLRIG_DEFAULT_TIMEOUT"
"""The environment variable that replaces `DEFAULT_TIMEOUT` (seconds, or ``none``)."""


def implicit_limit() -> float | None:
    """The default limit: ``$TOOLRIG_DEFAULT_TIMEOUT`` when set, else `DEFAULT_TIMEOUT`."""
    given = os.environ.get(TIMEOUT_ENV)
    if given is None or not given.strip():
        return DEFAULT_TIMEOUT
    try:
        limit = check_timeout(given)
    except ValueError as exc:
        raise ValueError(f"${TIMEOUT_ENV}: {exc}") from None
    assert not isinstance(limit, Unset)
    return limit


@dataclass(frozen=True, slots=True, kw_only=True)
class CallPolicy:
    """Time limits, retries, strictness and output checks for the calls of a pipeline.

    ``default_timeout`` applies to tools that say nothing of their ``timeout``: left out,
    `implicit_limit` (`DEFAULT_TIMEOUT`) off the caller's thread; given (seconds, or ``None``
    for no limit), everywhere, direct blocking calls of sync tools included.
    ``max_concurrency`` caps calls running at once on the async path (``None``: no cap).
    ``strict`` refuses type coercion (``"5"`` for an integer) unless overridden per call.
    """

    default_timeout: float | Unset | None = UNSET
    max_concurrency: int | None = None
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    strict: bool = False
    validate_output: bool = True
    _implicit: float | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.max_concurrency is not None and self.max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1 (or None for no limit)")
        try:
            check_timeout(self.default_timeout)
        except ValueError as exc:
            raise ValueError(f"default_timeout: {exc}") from None
        given = self.default_timeout
        implicit = implicit_limit() if isinstance(given, Unset) else given
        object.__setattr__(self, "_implicit", implicit)

    def limit(
        self, own: float | Unset | None, timeout: float | Unset | None, *, implicit: bool = True
    ) -> float | None:
        """The time limit of each attempt: the call's (``timeout``), else the tool's
        (``own``, its spec's ``timeout``), else the policy's
        ``default_timeout``, else (when ``implicit``: the call does not run on the caller's
        own thread) the default limit. The one place a limit is decided."""
        if not isinstance(timeout, Unset):
            return timeout
        if not isinstance(own, Unset):
            return own
        if not isinstance(self.default_timeout, Unset):
            return self.default_timeout
        return self.implicit if implicit else None

    @property
    def implicit(self) -> float | None:
        """The limit of the calls that say nothing, off the caller's thread (the default
        limit, read when the policy was made, unless ``default_timeout`` is given)."""
        return self._implicit

    def replace(self, **changes: Any) -> CallPolicy:
        """This policy with ``changes``."""
        return dataclasses.replace(self, **changes)
