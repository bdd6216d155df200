"""``CallPolicy``: the settings every call of a pipeline follows, as one frozen value."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolrig.runtime._call import Unset
from toolrig.runtime._retry import RetryPolicy

if TYPE_CHECKING:
    from toolrig.core.model._spec import ToolSpec

__all__ = ["CallPolicy"]


@dataclass(frozen=True, slots=True, kw_only=True)
class CallPolicy:
    """Time limits, retries, strictness and output checks for the calls of a pipeline.

    ``default_timeout`` applies to tools without their own ``timeout`` (``None``: no limit).
    ``max_concurrency`` caps calls running at once on the async path (``None``: no cap).
    ``strict`` refuses type coercion (``"5"`` for an integer) unless overridden per call.
    """

    default_timeout: float | None = None
    max_concurrency: int | None = None
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    strict: bool = False
    validate_output: bool = True

    def __post_init__(self) -> None:
        if self.max_concurrency is not None and self.max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1 (or None for no limit)")
        if self.default_timeout is not None and self.default_timeout <= 0:
            raise ValueError("default_timeout must be positive (or None for no limit)")

    def limit(self, spec: ToolSpec, timeout: float | Unset | None) -> float | None:
        """The time limit of each attempt: the call's, else the tool's, else the default."""
        if not isinstance(timeout, Unset):
            return timeout
        return spec.timeout if spec.timeout is not None else self.default_timeout

    def replace(self, **changes: Any) -> CallPolicy:
        """This policy with ``changes``."""
        return dataclasses.replace(self, **changes)
