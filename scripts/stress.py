#!/usr/bin/env python3
"""Run a command while every core is kept busy, a few times over: does it pass under load?

Run from the checkout:

    .venv/bin/python scripts/stress.py [--workers N] [--repeat N] [--timeout S] -- COMMAND...

e.g. ``scripts/stress.py --repeat 3 -- .venv/bin/pytest tests/runtime/test_retry_boundaries.py -q``.
Like ``stress --cpu N``: N processes (default: one per core) spin in a busy loop at normal
priority for as long as the runs last; the command runs under that load ``--repeat`` times in a
row (default 3), each run in its own process group, stopped after ``--timeout`` seconds. One
line per run (pass or fail, its exit code, seconds, the load average), then a summary; the
exit code is 0 only if every run passed. The command's own output goes where it would
(``--quiet`` hides it except for failed runs). Pure Python, nothing to install; the busy
processes end with the script, even when it is interrupted.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from multiprocessing.context import SpawnProcess


def spin() -> None:
    """Burn one core until killed."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops it
    n = 0
    while True:
        n = (n * 1_103_515_245 + 12_345) & 0xFFFFFFFF


def start_load(workers: int) -> list[SpawnProcess]:
    ctx = multiprocessing.get_context("spawn")
    spinners = [ctx.Process(target=spin, daemon=True, name=f"stress-{i}") for i in range(workers)]
    for spinner in spinners:
        spinner.start()
    return spinners


def stop_load(spinners: Sequence[SpawnProcess]) -> None:
    for spinner in spinners:
        spinner.terminate()
    for spinner in spinners:
        spinner.join(5)


def run_once(command: Sequence[str], timeout: float, quiet: bool) -> tuple[int | None, float, str]:
    """Run ``command`` once: its exit code (``None`` on timeout), seconds, its output if
    ``quiet`` (else it went to this terminal)."""
    started = time.perf_counter()
    with tempfile.TemporaryFile("w+") as sink:
        out = sink if quiet else None
        proc = subprocess.Popen(command, stdout=out, stderr=out, start_new_session=True)
        try:
            code: int | None = proc.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # the run's own group only
            proc.wait()
            code = None
        except BaseException:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise
        sink.seek(0)
        return code, time.perf_counter() - started, sink.read() if quiet else ""


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0], usage="%(prog)s [options] -- COMMAND..."
    )
    parser.add_argument(
        "--workers", type=int, default=os.cpu_count() or 1, help="busy processes (default: cores)"
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs in a row (default 3)")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds a run may take")
    parser.add_argument("--quiet", action="store_true", help="show output of failed runs only")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command, after --")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to run after --")
    if args.workers < 0 or args.repeat < 1:
        parser.error("--workers must be 0 or more and --repeat 1 or more")
    print(f"stress: {args.workers} busy processes; {args.repeat} runs of: {' '.join(command)}")
    spinners = start_load(args.workers)
    passed = 0
    try:
        for run in range(1, args.repeat + 1):
            code, seconds, output = run_once(command, args.timeout, args.quiet)
            ok = code == 0
            passed += ok
            state = "pass" if ok else "FAIL"
            said = "timed out" if code is None else f"exit {code}"
            said += f", {seconds:.1f} s, load {os.getloadavg()[0]:.1f}"
            if not ok and output:
                sys.stdout.write(output)
            print(f"stress: run {run}/{args.repeat}: {state} ({said})")
            sys.stdout.flush()
    finally:
        stop_load(spinners)
    print(f"stress: {passed}/{args.repeat} runs passed under load")
    return 0 if passed == args.repeat else 1


if __name__ == "__main__":
    sys.exit(main())
