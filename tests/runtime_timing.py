"""Wall-clock bounds that hold on a loaded machine and still fail when a promise breaks.

A fixed bound ("answered within 0.4 s") fails when busy processes share the cores, although
nothing broke. Here a bound is the promise plus how late this machine is at that very moment:
:class:`Beside` sleeps next to the measured work, and its overshoot is how late the machine
wakes a sleeper right then. The broken behaviours these bounds exist to catch (waiting for the
tool's own end, queueing behind a stuck worker, holding the interpreter) take seconds more, so
they still fail. Where the broken behaviour is code holding the GIL, the reference sleeps in a
child process (``process=True``): a thread of this process would wake late too, and excuse it.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from types import TracebackType

SLACK = 0.25
"""Seconds allowed on top of a promise and of the measured lateness (interpreter, GC, forks)."""


class Beside:
    """A reference sleep of ``seconds`` in a thread, started on entry, and the measured time.

    >>> with Beside(0.1) as ref:
    ...     work()
    >>> ref.elapsed, ref.lateness   # the work's duration; how late the reference woke
    """

    def __init__(self, seconds: float, *, process: bool = False) -> None:
        self.seconds = seconds
        self.elapsed = 0.0
        self._late = 0.0
        self._thread = threading.Thread(
            target=self._in_child if process else self._sleep, daemon=True
        )
        self._t0 = 0.0

    def _sleep(self) -> None:
        t0 = time.perf_counter()
        time.sleep(self.seconds)
        self._late = time.perf_counter() - t0 - self.seconds

    def _in_child(self) -> None:
        s = self.seconds
        code = f"import time; t = time.perf_counter(); time.sleep({s!r}); "
        code += f"print(time.perf_counter() - t - {s!r})"
        out = subprocess.run(
            [sys.executable, "-S", "-c", code], capture_output=True, text=True, check=True
        )
        self._late = float(out.stdout)

    def __enter__(self) -> Beside:
        self._t0 = time.perf_counter()
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.elapsed = time.perf_counter() - self._t0
        self._thread.join()

    @property
    def lateness(self) -> float:
        """How late the reference sleeper woke (seconds; 0 on an idle machine)."""
        return max(self._late, 0.0)

    def bound(self, promise: float) -> float:
        """``promise`` seconds, plus this moment's lateness and :data:`SLACK`."""
        return promise + self.lateness + SLACK


def idle_gap(seconds: float = 0.3) -> float:
    """The largest gap of a 10 ms sleeper over ``seconds`` with nothing else running: how long
    this machine may leave a thread waiting right now, for bounds on a ticker's gaps."""
    worst = 0.0
    end = time.perf_counter() + seconds
    last = time.perf_counter()
    while last < end:
        time.sleep(0.01)
        now = time.perf_counter()
        worst = max(worst, now - last - 0.01)
        last = now
    return worst
