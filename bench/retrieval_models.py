"""Tool search benchmark, per model: each candidate model alone, the default and the accurate
mode, with held-out quality, latency (p50/p95) and the time to build an index.

Called by ``bench/retrieval.py`` (``--models`` part; ``--skip-models`` leaves it out). Rows:

- "X alone": one embedding model's cosine ranking (``mode="dense"``), no words;
- "default" (BM25F + MiniLM + static), and the default with bge-small-en in MiniLM's place;
- "accurate (...)": the default's ``reranker_depth`` best candidates re-scored by a reranker
  and fused with the first-stage scores (``SearchConfig.accurate()``).

Quality: a fixed sample of held-out MetaTool single-tool requests (``--model-limit``), every
held-out two-tool request and every held-out BFCL question. Speed: the same 200 held-out
requests at ``--model-size`` tools; build: a first index of 1,000 tools from an empty cache,
until every tool is embedded (and read by the late-interaction model, which the accurate mode
does in a background thread after its first request; ``bench/accurate_speed.py`` times that
apart).
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
from dataclasses import dataclass
from typing import Any

from retrieval_data import (
    Query,
    bfcl_specs,
    big_catalogue,
    is_dev,
    load_bfcl,
    load_metatool,
    metatool_specs,
)

from toolrig.core.model._spec import ToolSpec
from toolrig.search import SearchConfig, ToolIndex
from toolrig.search._dense import load_embedders
from toolrig.search._packaged import ModelFilesMissing
from toolrig.search._requests import clear_query_cache


@dataclass(frozen=True)
class Candidate:
    label: str
    config: SearchConfig
    mode: str = "fused"


def candidates() -> list[Candidate]:
    accurate = SearchConfig.accurate()
    return [
        Candidate("BM25F (words only)", SearchConfig(embedders=()), "lexical"),
        Candidate("static alone", SearchConfig(embedders=("static",)), "dense"),
        Candidate("MiniLM-L6 alone", SearchConfig(embedders=("minilm",)), "dense"),
        Candidate("bge-small-en alone", SearchConfig(embedders=("bge",)), "dense"),
        Candidate("default (BM25F+MiniLM+static)", SearchConfig()),
        Candidate(
            "BM25F+bge+static",
            SearchConfig(embedders=("bge", "static"), dense_weights={"bge": 2.0, "static": 2.0}),
        ),
        Candidate(f"accurate ({accurate.reranker}, default)", accurate),
        Candidate(
            "accurate (cross-encoder, d20)",
            SearchConfig(reranker="cross-encoder", reranker_depth=20),
        ),
    ]


def _index(specs: list[ToolSpec], c: Candidate) -> ToolIndex:
    return ToolIndex(specs, config=c.config, embedders=load_embedders(c.config.embedders))


def _recall(
    index: ToolIndex, mode: str, queries: list[Query], base: dict[str, str] | None
) -> tuple[float, float]:
    """recall@5 and nDCG@10, in percent."""
    from retrieval import add_scores

    sums = {"r@1": 0.0, "r@5": 0.0, "r@10": 0.0, "ndcg@10": 0.0}
    for query, gold in queries:
        hits = index.search(query, k=10, mode=mode, group="tool")  # type: ignore[arg-type]
        add_scores(sums, [base.get(h.tool, h.tool) if base else h.tool for h in hits], gold)
    n = max(len(queries), 1)
    return 100 * sums["r@5"] / n, 100 * sums["ndcg@10"] / n


def _timed(index: ToolIndex, mode: str, queries: list[str]) -> tuple[float, float, float]:
    """Wall-clock p50 and p95, and the p50 of the CPU time of every thread of the process
    (what a request costs, whatever else the shared machine runs), in milliseconds."""
    from retrieval import percentile

    clear_query_cache()
    wall, cpu = [], []
    for query in queries:
        c0, t0 = time.process_time(), time.perf_counter()
        index.search(query, k=5, mode=mode)  # type: ignore[arg-type]
        wall.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    return percentile(wall, 0.5), percentile(wall, 0.95), percentile(cpu, 0.5)


def _first_build(specs: list[ToolSpec], c: Candidate) -> float:
    """Seconds to index ``specs`` and answer a first request, from an empty vector cache."""
    from retrieval import clear_vector_handles

    previous = os.environ.get("TOOLRIG_CACHE_DIR")
    os.environ["TOOLRIG_CACHE_DIR"] = tempfile.mkdtemp(prefix="toolrig-bench-build-")
    clear_vector_handles()
    try:
        t0 = time.perf_counter()
        index = _index(specs, c)
        index.search("warm up", k=5, mode=c.mode)  # type: ignore[arg-type]
        _prepare(index)
        return time.perf_counter() - t0
    finally:
        if previous is not None:
            os.environ["TOOLRIG_CACHE_DIR"] = previous
        clear_vector_handles()


def _prepare(index: ToolIndex) -> None:
    """Wait until a late-interaction reranker has read every tool text (its background
    thread starts at the index's first search)."""
    wait = getattr(index._reranker, "wait", None)
    if wait is not None:
        wait()


def model_rows(args: argparse.Namespace) -> None:
    tools, single, multi = load_metatool()
    pick = [q for q in single if is_dev(q[0]) == args.dev]
    limit = 100 if args.quick else args.model_limit
    test_single = random.Random(0).sample(pick, min(limit, len(pick)))
    test_multi = [q for q in multi if is_dev(q[0]) == args.dev][: 40 if args.quick else None]
    pooled, questions = load_bfcl()
    base = {name: fn["base"] for name, fn in pooled.items()}
    bfcl_test = [(t, g) for qid, t, g in questions if is_dev(qid) == args.dev]
    timing = random.Random(1).sample([q for q, _ in pick], 50 if args.quick else 200)
    size = 199 if args.quick else args.model_size
    big = metatool_specs(tools) if size == len(tools) else big_catalogue(tools, size)
    thousand = big_catalogue(tools, 1_000)
    words = [w for w in args.only.split(",") if w]
    rows = [c for c in candidates() if not words or any(w in c.label for w in words)]
    if args.quick:
        rows = [r for r in rows if r.label.startswith(("BM25F (", "default", "accurate ("))][:3]
    load = os.getloadavg()
    part = "dev slice" if args.dev else "held out"
    print(
        f"\nPer model ({part}; MetaTool {len(test_single)} single / {len(test_multi)} two-tool,"
        f" BFCL {0 if args.quick else len(bfcl_test)}; speed at {size:,} tools; build: 1,000)"
    )
    header = (
        f"{'ranking':<36}| {'MT1 R@5':>7} {'nDCG':>5} {'MT2 R@5':>7} {'BFCL R@5':>8} {'nDCG':>5}"
        f" | {'p50 ms':>7} {'p95 ms':>7} {'cpu p50':>7} {'build s':>7}"
    )
    print(header)
    print("-" * len(header))
    for c in rows:
        try:
            line = _row(
                c,
                tools,
                test_single,
                test_multi,
                pooled,
                base,
                bfcl_test,
                big,
                timing,
                thousand,
                args.quick,
            )
        except ModelFilesMissing as exc:
            line = f"skipped: {exc}"
        print(f"{c.label:<36}| {line}", flush=True)
    print(f"load average before the per-model rows: {load} on {os.cpu_count()} cores")
    print(f"load average after them: {os.getloadavg()}")


def _row(
    c: Candidate,
    tools: dict[str, str],
    test_single: list[Query],
    test_multi: list[Query],
    pooled: dict[str, Any],
    base: dict[str, str],
    bfcl_test: list[Query],
    big: list[ToolSpec],
    timing: list[str],
    thousand: list[ToolSpec],
    quick: bool,
) -> str:
    meta = _index(metatool_specs(tools), c)
    r1, n1 = _recall(meta, c.mode, test_single, None)
    r2, _ = _recall(meta, c.mode, test_multi, None)
    rb = nb = float("nan")
    if not quick:
        rb, nb = _recall(_index(bfcl_specs(pooled), c), c.mode, bfcl_test, base)
    build = _first_build(thousand, c) if not quick else float("nan")
    index = _index(big, c)
    index.search("warm up", k=5, mode=c.mode)  # type: ignore[arg-type]
    _prepare(index)  # tool token vectors are made once per tool text, not timed per request
    p50, p95, cpu = _timed(index, c.mode, timing)
    return f"{r1:7.1f} {n1:5.1f} {r2:7.1f} {rb:8.1f} {nb:5.1f} | {p50:7.2f} {p95:7.2f} {cpu:7.2f} {build:7.1f}"
