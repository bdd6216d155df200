"""Speed of the accurate mode: first build, build from the disk cache, and p50/p95 per request.

Run: ``.venv/bin/python bench/accurate_speed.py --sizes 1000,10000 --runs 5`` (``--quick``:
MetaTool's 199 tools, one run, 20 requests, for CI). Each run of a
size starts from an empty cache folder ("first build": index the tools and answer a first
request, which embeds every tool and reads its 40 candidates with the late-interaction model),
times ``--requests`` held-out MetaTool requests at once ("warming": the background thread is
still reading the other tools), and notes when that thread is done ("read ahead": seconds from
the start). Then it indexes the same tools again as a new process would ("from disk": vectors
and token vectors read back; the bench then reads them all at once) and times the requests
again ("warm"). ``--first-build-sizes``
limits the sizes whose first build is measured (at 10,000 tools the default's own first build
takes minutes here); the others fill their cache once, untimed. Wall-clock and the process's
CPU time (every thread) are printed with the load average beside them: the machine is shared.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from retrieval import clear_vector_handles, percentile  # noqa: E402
from retrieval_data import big_catalogue, is_dev, load_metatool, metatool_specs  # noqa: E402

from toolrig.core.model._spec import ToolSpec  # noqa: E402
from toolrig.search import SearchConfig, ToolIndex  # noqa: E402
from toolrig.search._requests import clear_query_cache  # noqa: E402
from toolrig.search._rerank import load_reranker  # noqa: E402


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:4.1f} {five:4.1f}"


def _fresh_cache() -> None:
    os.environ["TOOLRIG_CACHE_DIR"] = tempfile.mkdtemp(prefix="toolrig-accurate-")
    clear_vector_handles()
    _forget_tokens()


def _forget_tokens() -> None:
    """As in a new process: the reranker's token vectors are no longer in memory."""
    reranker = load_reranker("late-interaction")
    docs = getattr(reranker, "_docs", None)
    if docs is not None:
        docs.clear()


def _build(specs: list[ToolSpec], config: SearchConfig) -> tuple[ToolIndex, float, float]:
    """An index of ``specs`` that has answered one request; wall and CPU seconds."""
    c0, t0 = time.process_time(), time.perf_counter()
    index = ToolIndex(specs, config=config)
    index.search("warm up", k=5)
    return index, time.perf_counter() - t0, time.process_time() - c0


def _timed(index: ToolIndex, queries: list[str]) -> tuple[float, float, float]:
    clear_query_cache()
    wall, cpu = [], []
    for query in queries:
        c0, t0 = time.process_time(), time.perf_counter()
        index.search(query, k=5)
        wall.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    return percentile(wall, 0.5), percentile(wall, 0.95), percentile(cpu, 0.5)


def _wait_for_reader() -> None:
    load_reranker("late-interaction").wait()  # type: ignore[attr-defined]


def _read_all(index: ToolIndex) -> None:
    """Read every tool text now, in this thread (untimed fills and from-disk loads: the
    background thread runs at a low priority and, on a busy machine, can take minutes)."""
    from toolrig.search._second_stage import _text_of

    reranker = load_reranker("late-interaction")
    reranker.prepare([_text_of(d) for d in index._docs if d is not None])  # type: ignore[attr-defined]
    _wait_for_reader()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--first-build-sizes", default="1000")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument(
        "--quick", action="store_true", help="MetaTool's own 199 tools, one run, 20 requests (CI)"
    )
    args = parser.parse_args()
    if args.quick:
        args.sizes = args.first_build_sizes = "199"
        args.runs, args.requests = 1, 20
    tools, single, _ = load_metatool()
    held_out = [q for q, _ in single if not is_dev(q)]
    queries = random.Random(1).sample(held_out, args.requests)
    first_sizes = {int(s) for s in args.first_build_sizes.split(",") if s}
    config = SearchConfig.accurate()
    print(f"{os.cpu_count()} cores; {args.requests} held-out MetaTool requests per timing")
    print(
        f"{'tools':>6}{'run':>4} | {'first build s':>13} {'(cpu)':>6} {'warming p50':>11} "
        f"{'p95':>6} {'read ahead s':>12} | {'from disk s':>11} | {'warm p50 ms':>11} "
        f"{'p95':>6} {'cpu p50':>7} | load 1m 5m"
    )
    for size in [int(s) for s in args.sizes.split(",") if s]:
        specs = metatool_specs(tools) if size == len(tools) else big_catalogue(tools, size)
        filled = False
        for run in range(args.runs):
            first = first_cpu = warming50 = warming95 = ahead = float("nan")
            if size in first_sizes:
                _fresh_cache()
                t0 = time.perf_counter()
                index, first, first_cpu = _build(specs, config)
                warming50, warming95, _ = _timed(index, queries)
                _wait_for_reader()
                ahead = time.perf_counter() - t0
                del index
            elif not filled:
                _fresh_cache()
                _read_all(_build(specs, config)[0])
                filled = True
            clear_vector_handles()
            _forget_tokens()
            index, disk, _ = _build(specs, config)
            _read_all(index)
            p50, p95, cpu = _timed(index, queries)
            del index
            print(
                f"{size:>6}{run + 1:>4} | {first:13.1f} {first_cpu:6.1f} {warming50:11.1f} "
                f"{warming95:6.1f} {ahead:12.1f} | {disk:11.2f} | {p50:11.2f} {p95:6.2f} "
                f"{cpu:7.2f} | {_load()}",
                flush=True,
            )


if __name__ == "__main__":
    main()
