"""CPU time of a piece of work, for bounds that hold on a loaded machine.

A wall-clock bound ("read within 3.5 s") fails when other processes share the cores, although
nothing broke: the work waited for a core. The CPU time this process spends does not grow with
the load, and the broken behaviours these bounds catch (a parse that never checks its budget,
a backtracking regular expression) spend seconds to minutes of it, so they still fail.
"""

from __future__ import annotations

import time
from types import TracebackType


class CPU:
    """The CPU seconds this process (every thread of it) spends inside the ``with`` block.

    >>> with CPU() as cpu:
    ...     work()
    >>> cpu.seconds
    """

    def __init__(self) -> None:
        self.seconds = 0.0
        self._t0 = 0.0

    def __enter__(self) -> CPU:
        self._t0 = time.process_time()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.seconds = time.process_time() - self._t0
