"""Default tool search at one catalogue size, several source trees compared run by run.

Run: ``.venv/bin/python bench/search_speed.py --runs 5 [--size 10000] [--src DIR ...]``.
Each ``--src`` is a folder holding a ``toolrig`` package (e.g. an older checkout's ``src``);
without one, the installed package is timed. A run is one new process per tree, and the
trees take turns (A B A B ...), so a busy machine weighs on every tree alike. Each process
builds the index from the vector cache (``TOOLRIG_CACHE_DIR``, filled by the first run,
which takes a minute or two at 10,000 tools), answers one untimed request, then times
``--requests`` held-out MetaTool requests (those of ``retrieval.py``'s speed part) with the
default ``SearchConfig``: wall-clock p50 / p95, the requesting thread's CPU p50 and the
process's CPU (every thread, MiniLM's included) p50, with the load average beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def measure(size: int, requests: int) -> dict[str, float]:
    """Time the default search in this process (the ``--worker`` side)."""
    sys.path.insert(0, str(HERE))
    from retrieval import percentile
    from retrieval_data import big_catalogue, is_dev, load_metatool, metatool_specs

    from toolrig.search import ToolIndex
    from toolrig.search._dense import clear_query_cache

    tools, single, _ = load_metatool()
    held_out = [q for q, _ in single if not is_dev(q)]
    queries = random.Random(1).sample(held_out, requests)
    specs = metatool_specs(tools) if size == len(tools) else big_catalogue(tools, size)
    index = ToolIndex(specs)
    index.search("warm up", k=5)
    clear_query_cache()
    wall, thread, process = [], [], []
    for query in queries:
        p0, c0, t0 = time.process_time(), time.thread_time(), time.perf_counter()
        index.search(query, k=5)
        wall.append((time.perf_counter() - t0) * 1000)
        thread.append((time.thread_time() - c0) * 1000)
        process.append((time.process_time() - p0) * 1000)
    return {
        "p50": percentile(wall, 0.5),
        "p95": percentile(wall, 0.95),
        "thread": percentile(thread, 0.5),
        "cpu": percentile(process, 0.5),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--src", action="append", default=[], help="a folder with 'toolrig'")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.worker:
        print(json.dumps(measure(args.size, args.requests)))
        return
    os.environ.setdefault(
        "TOOLRIG_CACHE_DIR", str(Path(tempfile.gettempdir()) / "toolrig-search-speed")
    )
    trees = args.src or [""]
    print(f"{args.size:,} tools, {args.requests} requests, {os.cpu_count()} cores")
    print(f"{'run':>3}  {'tree':<32}{'p50 ms':>8}{'p95':>7}{'thread':>8}{'cpu':>7}  load 1m")
    for run in range(args.runs):
        for tree in trees:
            env = dict(os.environ)
            if tree:
                env["PYTHONPATH"] = str(Path(tree).resolve())
            command = [sys.executable, __file__, "--worker", f"--size={args.size}"]
            command.append(f"--requests={args.requests}")
            out = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
            m = json.loads(out.stdout.strip().splitlines()[-1])
            print(
                f"{run + 1:>3}  {(tree or 'installed')[-32:]:<32}{m['p50']:>8.2f}{m['p95']:>7.2f}"
                f"{m['thread']:>8.2f}{m['cpu']:>7.2f}  {os.getloadavg()[0]:.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
