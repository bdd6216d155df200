"""What the accurate mode costs beside what it gains: CPU per request and nDCG@10, default
against accurate, on two held-out collections.

Run: ``.venv/bin/python bench/accurate_cost.py [--limit 500] [--quick]`` (``--quick``: 40
MetaTool requests and 40 BFCL questions, for CI).

Collections (``retrieval_data.py``): MetaTool's 199 tools with a fixed sample of held-out
single-tool requests (``--limit``), and BFCL v4's functions pooled into 1,362 tools with every
held-out question. For each collection and mode, one index is built and warmed first (its
first request answered and, in the accurate mode, every tool's token vectors read), so the
figures are per request, not per build. Each request is then timed alone with
``time.process_time()`` before and after ``search``: the CPU of every thread of this process
(the accurate mode reads the request on a worker thread), whatever else the shared machine
runs, which the wall clock would count. The request cache is cleared first, so every request
is embedded. Printed per collection and mode: nDCG@10 and recall@5 in percent, mean and p50
CPU ms per request, and the accurate mode's extra (ms, ratio, nDCG points).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from retrieval import add_scores, percentile  # noqa: E402
from retrieval_data import (  # noqa: E402
    Query,
    bfcl_specs,
    is_dev,
    load_bfcl,
    load_metatool,
    metatool_specs,
)

from toolrig.core.model._spec import ToolSpec  # noqa: E402
from toolrig.search import SearchConfig, ToolIndex  # noqa: E402
from toolrig.search._requests import clear_query_cache  # noqa: E402

Row = tuple[float, float, float, float]
"""nDCG@10 %, recall@5 %, mean CPU ms, p50 CPU ms."""


def measure(
    specs: list[ToolSpec], queries: list[Query], base: dict[str, str], config: SearchConfig
) -> Row:
    """One warm index of ``specs``; each request's quality and CPU time."""
    index = ToolIndex(specs, config=config)
    index.search("warm up", k=5)
    wait = getattr(index._reranker, "wait", None)
    if wait is not None:
        wait()  # tool token vectors are made once per tool text, not per request
    clear_query_cache()
    sums = {"r@1": 0.0, "r@5": 0.0, "r@10": 0.0, "ndcg@10": 0.0}
    cpu: list[float] = []
    for query, gold in queries:
        c0 = time.process_time()
        hits = index.search(query, k=10, group="tool")
        cpu.append((time.process_time() - c0) * 1000)
        add_scores(sums, [base.get(h.tool, h.tool) for h in hits], gold)
    n = max(len(queries), 1)
    return (
        100 * sums["ndcg@10"] / n,
        100 * sums["r@5"] / n,
        statistics.fmean(cpu),
        percentile(cpu, 0.5),
    )


def collections(
    limit: int, bfcl_limit: int | None
) -> list[tuple[str, list[ToolSpec], list[Query], dict[str, str]]]:
    tools, single, _ = load_metatool()
    held = [q for q in single if not is_dev(q[0])]
    meta = random.Random(0).sample(held, min(limit, len(held)))
    pooled, questions = load_bfcl()
    bfcl = [(t, g) for qid, t, g in questions if not is_dev(qid)][:bfcl_limit]
    base = {name: fn["base"] for name, fn in pooled.items()}
    return [
        (f"MetaTool ({len(meta)} held-out requests, 199 tools)", metatool_specs(tools), meta, {}),
        (
            f"BFCL ({len(bfcl)} held-out questions, {len(pooled):,} tools)",
            bfcl_specs(pooled),
            bfcl,
            base,
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=500, help="held-out MetaTool requests")
    parser.add_argument("--quick", action="store_true", help="40 requests per collection")
    args = parser.parse_args()
    if not os.environ.get("TOOLRIG_CACHE_DIR"):
        os.environ["TOOLRIG_CACHE_DIR"] = tempfile.mkdtemp(prefix="toolrig-accurate-cost-")
    limit, bfcl_limit = (40, 40) if args.quick else (args.limit, None)
    modes = [("default", SearchConfig()), ("accurate", SearchConfig.accurate())]
    print(f"load average {os.getloadavg()} on {os.cpu_count()} cores")
    header = (
        f"{'collection / mode':<58}| {'nDCG@10':>7} {'R@5':>5} | {'CPU ms mean':>11} {'p50':>6}"
    )
    print(header)
    print("-" * len(header))
    for label, specs, queries, base in collections(limit, bfcl_limit):
        rows = {name: measure(specs, queries, base, config) for name, config in modes}
        for name, (ndcg, r5, mean, p50) in rows.items():
            print(f"{label + ' / ' + name:<58}| {ndcg:7.1f} {r5:5.1f} | {mean:11.2f} {p50:6.2f}")
        (n0, _, m0, _), (n1, _, m1, _) = rows["default"], rows["accurate"]
        print(
            f"{'  accurate over default':<58}| {n1 - n0:+7.1f} {'':>5} | {m1 - m0:+11.2f}"
            f" ({m1 / m0:.1f}x)",
            flush=True,
        )
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
