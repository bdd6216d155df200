"""One budget for one call of a tool that parses untrusted input: wall time, CPU time, memory
and output, checked while the work runs (page by page, paragraph by paragraph, file by file)
so that a hostile input stops the work when the budget is spent, not after all of it is done.

A :class:`Budget` is plain settings; :meth:`Budget.start` gives the :class:`Meter` of one call.
``Meter.check`` reads the monotonic clock, and the thread's CPU clock one time in 8;
``Meter.tick`` is for hot callbacks (one per PDF operator) and checks every :data:`TICKS`
calls. Memory is the growth of this process's
resident set since the call started, read from ``/proc/self/statm`` every :data:`TICKS`
checks: other threads count too, so it is a guard against a blow-up, not an account. In a
child process of its own (``isolation="process"``), :meth:`Meter.limit_process` also sets
``RLIMIT_AS`` and ``RLIMIT_CPU``, which hold inside a C parser that never returns to Python.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass
from typing import Final, final

from toolrig.core.model._errors import ErrorCode, ToolError

__all__ = ["TICKS", "Budget", "BudgetExceeded", "Meter"]

TICKS: Final = 256
"""Calls of ``Meter.tick`` between two real checks, and checks between two memory reads."""
_CPU_EVERY: Final = 8
_PAGE: Final = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


class BudgetExceeded(ToolError):
    """The call spent its budget (time, CPU or memory) and was stopped where it was."""

    def __init__(self, what: str, used: str, limit: str, *, where: str) -> None:
        super().__init__(
            f"stopped {where}: {what} reached {used}, over the budget of {limit}",
            code=ErrorCode.TIMEOUT if what != "memory" else ErrorCode.EXECUTION_ERROR,
            hint="The input is too large or too complex to process within this tool's limits; "
            "give a smaller part of it, or ask the operator to raise the budget.",
            details={"resource": what, "limit": limit},
        )


@dataclass(frozen=True, kw_only=True, slots=True)
class Budget:
    """Limits for one call; ``None`` means no limit on that resource."""

    wall_s: float | None = 10.0
    """Seconds of wall-clock time."""
    cpu_s: float | None = 10.0
    """Seconds of CPU time of the thread doing the work."""
    memory_bytes: int | None = 1 << 30
    """Growth of the process's resident memory while the call runs."""
    output_bytes: int | None = None
    """Characters of output the call may produce; past them the output is cut, not refused."""

    def start(self) -> Meter:
        """The meter of one call, its clocks starting now."""
        return Meter(self)


@final
class Meter:
    """A running budget: where the time, CPU, memory and output of one call stand."""

    __slots__ = ("_checks", "_cpu0", "_rss0", "_ticks", "_wall0", "budget", "output")

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.output = 0
        """Output taken so far (see :meth:`take`)."""
        self._wall0 = time.monotonic()
        self._cpu0 = time.thread_time()
        self._rss0 = _rss()
        self._ticks = 0
        self._checks = 0

    def check(self, where: str = "") -> None:
        """Raise :class:`BudgetExceeded` when time, CPU or memory is spent; ``where`` says
        how far the work got (e.g. "at page 12"), for the message."""
        b = self.budget
        if b.wall_s is not None and (used := time.monotonic() - self._wall0) > b.wall_s:
            raise BudgetExceeded("wall time", f"{used:.1f} s", f"{b.wall_s:g} s", where=where)
        self._checks += 1
        if self._checks % _CPU_EVERY:  # CPU time is a system call: one check in 8 reads it
            return
        if b.cpu_s is not None and (used := time.thread_time() - self._cpu0) > b.cpu_s:
            raise BudgetExceeded("CPU time", f"{used:.1f} s", f"{b.cpu_s:g} s", where=where)
        if b.memory_bytes is not None and self._checks % TICKS == 0:
            grown = _rss() - self._rss0
            if grown > b.memory_bytes:
                raise BudgetExceeded(
                    "memory", f"{grown >> 20} MiB", f"{b.memory_bytes >> 20} MiB", where=where
                )

    def tick(self, where: str = "") -> None:
        """:meth:`check`, every :data:`TICKS` calls: for callbacks run per token or operator."""
        self._ticks += 1
        if self._ticks % TICKS == 0:
            self.check(where)

    def take(self, size: int) -> bool:
        """Count ``size`` more output; False (and nothing counted) when it would pass the
        output budget, so the caller stops and says the output was cut."""
        limit = self.budget.output_bytes
        if limit is not None and self.output + size > limit:
            return False
        self.output += size
        return True

    def limit_process(self) -> None:
        """Set ``RLIMIT_AS`` (the address space now plus the memory budget) and ``RLIMIT_CPU``
        (the CPU used now plus the CPU budget) on this process. Only for a child process that
        runs this one call: the limits stay for the rest of the process's life."""
        try:
            import resource
        except ImportError:  # pragma: no cover - not POSIX
            return
        b = self.budget
        if b.memory_bytes is not None:
            size = _vm_size()
            if size:
                soft = size + b.memory_bytes
                resource.setrlimit(resource.RLIMIT_AS, (soft, _hard(resource.RLIMIT_AS, soft)))
        if b.cpu_s is not None:
            used = resource.getrusage(resource.RUSAGE_SELF)
            soft = math.ceil(used.ru_utime + used.ru_stime + b.cpu_s)
            resource.setrlimit(resource.RLIMIT_CPU, (soft, _hard(resource.RLIMIT_CPU, soft + 1)))


def _hard(which: int, wanted: int) -> int:
    import resource

    hard = resource.getrlimit(which)[1]
    return wanted if hard == resource.RLIM_INFINITY else min(hard, wanted)


def _statm(field: int) -> int:
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[field]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0


def _rss() -> int:
    return _statm(1)


def _vm_size() -> int:
    return _statm(0)
