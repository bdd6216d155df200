"""Default tool search at one catalogue size, several source trees compared request by request.

Run: ``.venv/bin/python bench/search_speed.py --runs 5 [--size 10000] [--src DIR ...]``.
Each ``--src`` is a folder holding a ``toolrig`` package (e.g. an older checkout's ``src``);
without one, the installed package is timed. Every tree gets a process of its own, which
builds the index from the vector cache (``TOOLRIG_CACHE_DIR``, filled by the first start,
a minute or two at 10,000 tools) and answers one untimed request. Then the trees take turns
request by request (A B, then B A for the next), so a busy machine weighs on every tree
alike; a run is ``--requests`` held-out MetaTool requests (those of ``retrieval.py``'s speed
part) with the default ``SearchConfig``, remembered request vectors forgotten at its start.
Per run and tree: wall-clock p50 / p95, the requesting thread's CPU p50, the process's CPU
p50 (every thread, MiniLM's included), and the load average.
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
from typing import Any

HERE = Path(__file__).resolve().parent


def serve(size: int, requests: int) -> None:
    """The worker side: index, say ``ready``, then time each request index read from stdin
    (``run`` forgets remembered request vectors) and answer its times as one JSON line."""
    sys.path.insert(0, str(HERE))
    from retrieval_data import big_catalogue, is_dev, load_metatool, metatool_specs

    from toolrig.search import ToolIndex
    from toolrig.search._requests import clear_query_cache

    tools, single, _ = load_metatool()
    held_out = [q for q, _ in single if not is_dev(q)]
    queries = random.Random(1).sample(held_out, requests)
    specs = metatool_specs(tools) if size == len(tools) else big_catalogue(tools, size)
    index = ToolIndex(specs)
    index.search("warm up", k=5)
    print("ready", flush=True)
    for line in sys.stdin:
        if line.strip() == "run":
            clear_query_cache()
            continue
        query = queries[int(line)]
        p0, c0, t0 = time.process_time(), time.thread_time(), time.perf_counter()
        index.search(query, k=5)
        wall = (time.perf_counter() - t0) * 1000
        thread, process = (time.thread_time() - c0) * 1000, (time.process_time() - p0) * 1000
        print(json.dumps([wall, thread, process]), flush=True)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def start(tree: str, size: int, requests: int) -> Any:
    env = dict(os.environ)
    if tree:
        env["PYTHONPATH"] = str(Path(tree).resolve())
    command = [sys.executable, __file__, "--worker", f"--size={size}", f"--requests={requests}"]
    worker = subprocess.Popen(
        command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    if worker.stdout.readline().strip() != "ready":
        raise SystemExit(f"the worker for {tree or 'the installed package'} did not start")
    return worker


def ask(worker: Any, line: str) -> list[float] | None:
    worker.stdin.write(line + "\n")
    worker.stdin.flush()
    if line == "run":
        return None
    times: list[float] = json.loads(worker.stdout.readline())
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--src", action="append", default=[], help="a folder with 'toolrig'")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--quick", action="store_true", help="CI smoke run: 2,100 tools, one run of 20 requests"
    )
    args = parser.parse_args()
    if args.quick:  # still above 2,000 tools, where the large-catalogue path starts
        args.size, args.runs, args.requests = 2_100, 1, 20
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.worker:
        serve(args.size, args.requests)
        return
    os.environ.setdefault(
        "TOOLRIG_CACHE_DIR", str(Path(tempfile.gettempdir()) / "toolrig-search-speed")
    )
    trees = args.src or [""]
    workers = [start(tree, args.size, args.requests) for tree in trees]
    print(f"{args.size:,} tools, {args.requests} requests a run, {os.cpu_count()} cores")
    print(f"{'run':>3}  {'tree':<32}{'p50 ms':>8}{'p95':>7}{'thread':>8}{'cpu':>7}  load 1m")
    for run in range(args.runs):
        times: list[list[list[float]]] = [[] for _ in trees]
        for worker in workers:
            ask(worker, "run")
        for i in range(args.requests):
            order = list(range(len(trees)))
            if (run * args.requests + i) % 2:
                order.reverse()
            for t in order:
                answer = ask(workers[t], str(i))
                assert answer is not None
                times[t].append(answer)
        for tree, rows in zip(trees, times, strict=True):
            wall, thread, process = ([row[j] for row in rows] for j in range(3))
            print(
                f"{run + 1:>3}  {(tree or 'installed')[-32:]:<32}{percentile(wall, 0.5):>8.2f}"
                f"{percentile(wall, 0.95):>7.2f}{percentile(thread, 0.5):>8.2f}"
                f"{percentile(process, 0.5):>7.2f}  {os.getloadavg()[0]:.1f}",
                flush=True,
            )
    for worker in workers:
        worker.stdin.close()
        worker.wait()


if __name__ == "__main__":
    main()
