"""The two ways toolrig runs work in another process, measured side by side: could one serve both?

* **Process isolation** (``isolation="process"``, `toolrig.runtime._process`): each attempt
  forks *this* process; the child is a copy of it (the tool, its arguments, module state, open
  clients) and is gone after the call.
* **Fork-server workers** (`toolrig.tools._fork_call`, behind ``db_tool``'s SQLite queries): a
  small clean interpreter forks long-lived workers that rebuild a pickled handler, serve call
  after call over two pipes, and get a memory ceiling (``RLIMIT_AS``) per request.

For an application of 0 MB and ``--ballast`` MB of live memory, it prints per call (median of
``--calls``): process isolation through an executor; a warm fork-server worker; a fork-server
worker used once and then killed (what "a fresh process per attempt" would cost there); the
fork server's first call (interpreter start, handler import, fork); and each child's resident
and virtual size (the base a memory ceiling would be set on). Then what each can run: a tool
defined inside a function, which the fork server cannot rebuild.

    python bench/fork_engines.py              # 0 and 512 MB, 30 calls
    python bench/fork_engines.py --quick      # 0 and 64 MB, 8 calls
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

PAGE = 4096


def status(_request: Any = None) -> tuple[int, int]:
    """(resident, virtual) size of the calling process, in MB, from ``/proc/self/status``."""
    sizes = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmSize"):
            sizes[key] = int(value.split()[0]) // 1024
    return sizes["VmRSS"], sizes["VmSize"]


def median_ms(run: Callable[[], Any], calls: int) -> float:
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def measure(ballast_mb: int, calls: int, here: Any) -> dict[str, Any]:
    from toolrig import ToolExecutor, tool
    from toolrig.tools._fork_call import ForkedWorkers

    ballast = bytearray(ballast_mb << 20)
    ballast[::PAGE] = b"\x01" * len(range(0, len(ballast), PAGE))  # every page resident

    isolated = tool(name="isolated_status", isolation="process")(status)
    row: dict[str, Any] = {"ballast": ballast_mb, "parent": status()}
    with ToolExecutor([isolated]) as executor:
        first = executor.execute_sync("isolated_status", {})
        assert first.success, first.error
        row["isolated child"] = tuple(first.output)
        row["isolated ms"] = median_ms(lambda: executor.execute_sync("isolated_status", {}), calls)

    workers = ForkedWorkers(here.status, what="The bench")
    started = time.perf_counter()
    row["worker child"] = workers.run(None, timeout=30, memory=64 << 20)
    row["first worker ms"] = (time.perf_counter() - started) * 1000
    row["warm worker ms"] = median_ms(lambda: workers.run(None, timeout=30, memory=64 << 20), calls)

    def once() -> None:
        workers.run(None, timeout=30, memory=64 << 20)
        workers.close()  # killed: the next call forks a fresh worker

    row["fresh worker ms"] = median_ms(once, calls)
    workers.close()
    del ballast
    return row


def what_runs() -> list[str]:
    """Whether each engine runs a tool defined inside a function (a closure over local state)."""
    from toolrig import ToolExecutor, tool
    from toolrig.tools._fork_call import ForkedWorkers

    secret = 41

    def closure(_request: Any = None) -> int:
        return secret + 1

    lines = []
    with ToolExecutor([tool(name="closure", isolation="process")(closure)]) as executor:
        result = executor.execute_sync("closure", {})
        lines.append(
            f"process isolation, a closure: {result.output if result.success else result.error}"
        )
    try:
        ForkedWorkers(closure, what="The closure")
        lines.append("fork server, a closure: accepted")
    except TypeError as exc:
        lines.append(f"fork server, a closure: refused ({str(exc)[:80]}...)")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="0 and 64 MB, 8 calls")
    parser.add_argument("--ballast", type=int, default=512, help="MB of live memory to add")
    parser.add_argument("--calls", type=int, default=30)
    args = parser.parse_args()
    ballast, calls = (64, 8) if args.quick else (args.ballast, args.calls)
    if not Path("/proc/self/status").exists():
        print("needs Linux (/proc): nothing measured")
        return
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import fork_engines as here  # importable by the fork server (its PYTHONPATH is ours)

    rows = [measure(mb, calls, here) for mb in (0, ballast)]
    print(f"## Per call, median of {calls} (ms); sizes are (resident, virtual) MB\n")
    print(
        "| app live memory | parent size | isolation: call | its child | worker: warm call | fresh worker | first call, new pool | worker size |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| +{r['ballast']} MB | {r['parent']} | {r['isolated ms']:.2f} | {r['isolated child']} "
            f"| {r['warm worker ms']:.2f} | {r['fresh worker ms']:.2f} | {r['first worker ms']:.0f} "
            f"| {r['worker child']} |"
        )
    print(
        "\nThe fork server starts once per process: its first call above is cold only in the first row.\n"
    )
    for line in what_runs():
        print(line)


if __name__ == "__main__":
    main()
