#!/usr/bin/env python3
"""Run every benchmark of ``bench/`` in its ``--quick`` mode; fail if any fails.

Run from the checkout:  .venv/bin/python bench/run_quick.py [--only NAME ...] [--list]
(``.ci/run`` runs it, so a benchmark that breaks fails CI; the full runs stay manual).

Every ``bench/*.py`` is a benchmark except the helper modules named in :data:`HELPERS` (each
with the benchmark that imports it). A benchmark must declare ``--quick`` with argparse
(``add_argument("--quick", ...)``): one that does not fails the run before anything is timed,
so a new benchmark cannot be left out. Each runs in its own interpreter from the checkout,
with :data:`TIMEOUT_S` to finish; its output is shown only when it fails.
"""

from __future__ import annotations

import argparse
import ast
import os
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
TIMEOUT_S = 900.0
"""Seconds a quick run may take before it counts as failed: most take under 30 s, a few
about two minutes on a loaded 2-core machine (the peers, the per-call overhead, Celery)."""
HELPERS = {
    "distributed_tools": "the tools distributed.py sends to Celery workers",
    "fuzz_tools": "the tools fuzz.py calls",
    "fuzz_values": "the arguments fuzz.py generates",
    "retrieval_data": "the corpora retrieval.py and tune_search.py read",
    "retrieval_models": "the per-model rows retrieval.py prints",
    "run_quick": "this runner",
}
"""Modules of ``bench/`` that are not benchmarks, with what they are."""


def benches(folder: Path = BENCH) -> list[Path]:
    """The benchmark scripts of ``folder``: every ``*.py`` except :data:`HELPERS`."""
    return sorted(p for p in folder.glob("*.py") if p.stem not in HELPERS)


def has_quick(script: Path) -> bool:
    """Whether ``script`` declares ``--quick`` through argparse's ``add_argument``."""
    tree = ast.parse(script.read_text(encoding="utf-8"), str(script))
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "add_argument"
            and any(isinstance(a, ast.Constant) and a.value == "--quick" for a in node.args)
        ):
            return True
    return False


def run(script: Path) -> tuple[bool, float, str]:
    """Run ``script --quick``: (passed, seconds, its output)."""
    started = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, str(script), "--quick"],
            cwd=script.parent.parent,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=TIMEOUT_S,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout if isinstance(exc.stdout, str) else (exc.stdout or b"").decode()
        return False, time.perf_counter() - started, f"{out}\n(no answer within {TIMEOUT_S:g} s)"
    return done.returncode == 0, time.perf_counter() - started, done.stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", nargs="*", default=[], help="run only these benchmarks")
    parser.add_argument("--list", action="store_true", help="print the benchmarks and stop")
    parser.add_argument("--folder", type=Path, default=BENCH, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    scripts = benches(args.folder)
    if args.list:
        print("\n".join(p.stem for p in scripts))
        return 0
    unknown = sorted(set(args.only) - {p.stem for p in scripts})
    if unknown:
        parser.error(f"no benchmark named {', '.join(unknown)} in {args.folder}")
    missing = [p.name for p in scripts if not has_quick(p)]
    if missing:
        print(
            f"no --quick mode in {', '.join(missing)}: give each benchmark a --quick argument "
            f"(a few seconds, small sizes), or name a helper module in HELPERS of {__file__}",
            file=sys.stderr,
        )
        return 1
    failed = []
    for script in scripts:
        if args.only and script.stem not in args.only:
            continue
        print(f"{script.name:<24}", end="", flush=True)
        passed, seconds, output = run(script)
        print(f"{'ok' if passed else 'FAILED':<8}{seconds:7.1f} s", flush=True)
        if not passed:
            failed.append(script.name)
            print("\n".join(f"    {line}" for line in output.rstrip().splitlines()[-40:]))
    if failed:
        print(f"{len(failed)} benchmark(s) failed in quick mode: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
