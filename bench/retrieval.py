"""Tool search benchmark: quality on MetaTool and the pooled BFCL functions, and speed.

Run: ``.venv/bin/python bench/retrieval.py`` (about 8 minutes for quality and 10 for speed on
an idle 2-core machine, more for the per-model rows of ``retrieval_models.py``; ``--quick``:
no 10,000-tool catalogue, 300 sampled requests, per-model rows on a few MetaTool requests
and 199 tools; ``--limit N``: N sampled
single-tool requests; ``--dev``: measure on the dev slices, for tuning; ``--only WORDS`` keeps
the rows whose label holds one of them; ``--set name=value`` overrides a ``SearchConfig``
field; ``--sizes 199,1000`` the catalogues timed). Set ``TOOLRIG_CACHE_DIR`` to keep document
vectors between runs of the quality part; the speed part always starts from an empty cache
folder, so "first build" is a first start and "from disk" a later one that reads the vectors.

Data (see ``retrieval_data.py``): MetaTool (199 tools; 20,614 single-tool and 497 two-tool
requests) and BFCL v4's functions pooled into one catalogue of 1,362 tools (each question
targets its gold functions). Every request goes to the dev slice (30%) or the held-out part by
a hash; ``SearchConfig`` was tuned on the dev slices only (``bench/tune_search.py``) and the
tables report the held-out part. Rows, per set:

- BM25 (plain), BM25F (our words-only ranking) and "descriptions only" (the default);
- "+ N sample requests": each tool's ``examples`` are dev-slice requests it answered;
- "+ global usage prior": the dev-slice call counts per tool (``ToolIndex.set_usage``), and
  the same counts shuffled across tools as its control;
- "+ learned pairs": ``(request, tool)`` pairs of a simulated execution log that served the
  dev-slice requests (``RequestLog``, read back by ``ToolIndex.learn_from``).

Held-out requests are never used as examples, counts or learned pairs.

Targets: MetaTool descriptions only >= 85 single- and two-tool recall@5; pooled BFCL 15
points of recall@5 above BM25; <= 5 ms p50 per request at 10,000 tools; a first index of
1,000 tools built in <= 5 s; the accurate mode (per-model rows) <= 20 ms p50 at 10,000 tools
and a first index of 1,000 tools in <= 10 s.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from toolrig.core.model._spec import ToolSpec
from toolrig.search import SearchConfig, ToolIndex
from toolrig.search._dense import load_embedders
from toolrig.search._requests import clear_query_cache, embed_request
from toolrig.search._segments import request_parts
from toolrig.storage import open_log
from toolrig.storage._requests import RequestLog

sys.path.insert(0, str(Path(__file__).resolve().parent))
from retrieval_data import (
    PlainBM25,
    Query,
    bfcl_specs,
    big_catalogue,
    dev_samples,
    is_dev,
    load_bfcl,
    load_metatool,
    metatool_specs,
    words_of,
)
from retrieval_models import model_rows

specs = metatool_specs

# -- quality ---------------------------------------------------------------------------------
KEYS = ("r@1", "r@5", "r@10", "ndcg@10")


def add_scores(sums: dict[str, float], ranked: list[str], gold: list[str]) -> None:
    wanted = set(gold)
    ranked = list(dict.fromkeys(ranked))  # variants of one function count once
    for k in (1, 5, 10):
        sums[f"r@{k}"] += len(wanted & set(ranked[:k])) / len(wanted)
    dcg = sum(1 / math.log2(i + 2) for i, t in enumerate(ranked[:10]) if t in wanted)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(wanted), 10)))
    sums["ndcg@10"] += dcg / ideal


def simulated_log(dev: Sequence[Query], path: Path) -> RequestLog:
    """An execution log's request pairs, as a deployment that served the dev-slice requests
    (each with its gold tools, successfully) would have stored them."""
    log = open_log(str(path))
    requests = RequestLog(log, enabled=True)
    for query, gold in dev:
        for tool in gold:
            requests.record(query, tool, run_id="simulated")
    return requests


Ranker = Callable[[str], list[str]]


def index_ranker(
    index: ToolIndex, mode: str = "fused", base: dict[str, str] | None = None
) -> Ranker:
    def rank(query: str) -> list[str]:
        hits = index.search(query, k=10, mode=mode, group="tool")  # type: ignore[arg-type]
        return [base.get(h.tool, h.tool) if base else h.tool for h in hits]

    return rank


def evaluate(rows: list[tuple[str, Ranker]], queries: Sequence[Query]) -> list[dict[str, float]]:
    """Metrics in percent per row (each query's vector is shared by every index)."""
    sums = [dict.fromkeys(KEYS, 0.0) for _ in rows]
    for query, gold in queries:
        for (_, rank), row_sums in zip(rows, sums, strict=True):
            add_scores(row_sums, rank(query), gold)
    return [{key: 100 * v / max(len(queries), 1) for key, v in row.items()} for row in sums]


def shuffled(counts: dict[str, int], names: list[str]) -> dict[str, int]:
    """The same counts given to other tools (the control of the usage prior)."""
    values = [counts.get(n, 0) for n in names]
    random.Random(3).shuffle(values)
    return {n: v for n, v in zip(names, values, strict=True) if v}


def catalogue_rows(
    label: str,
    make: Callable[[dict[str, list[str]] | None], list[ToolSpec]],
    docs: dict[str, str],
    dev: list[Query],
    samples: int,
    log_path: Path,
    config: SearchConfig,
    base: dict[str, str] | None = None,
) -> list[tuple[str, Ranker]]:
    """The rows of one catalogue: baselines, descriptions only, samples, prior, learned."""
    embedders = load_embedders(config.embedders)
    plain = PlainBM25(docs)
    catalogue = make(None)
    index = ToolIndex(catalogue, config=config, embedders=embedders)
    rows: list[tuple[str, Ranker]] = [
        (
            "BM25 (plain, name + description)",
            lambda q: [base.get(t, t) if base else t for t in plain.rank(q)],
        ),
        ("BM25F", index_ranker(index, "lexical", base)),
        ("descriptions only", index_ranker(index, "fused", base)),
    ]
    if samples:
        with_samples = ToolIndex(
            make(dev_samples(dev, docs, samples)), config=config, embedders=embedders
        )
        rows.append(
            (f"+ {samples} sample requests per tool", index_ranker(with_samples, "fused", base))
        )
    counts: dict[str, int] = {}
    for _, gold in dev:
        for tool in gold:
            counts[tool] = counts.get(tool, 0) + 1
    prior = ToolIndex(catalogue, config=config, embedders=embedders)
    prior.set_usage(counts)
    rows.append(("+ global usage prior (dev counts)", index_ranker(prior, "fused", base)))
    control = ToolIndex(catalogue, config=config, embedders=embedders)
    control.set_usage(shuffled(counts, list(docs)))
    rows.append(("+ same counts shuffled (control)", index_ranker(control, "fused", base)))
    learned = ToolIndex(catalogue, config=config, embedders=embedders)
    learned.learn_from(simulated_log(dev, log_path))
    rows.append(("+ learned pairs (dev-slice log)", index_ranker(learned, "fused", base)))
    fast_config = SearchConfig(embedders=("static",))
    fast = ToolIndex(catalogue, config=fast_config, embedders=load_embedders(fast_config.embedders))
    rows.append(("fast (BM25F + static), descriptions", index_ranker(fast, "fused", base)))
    return [(f"{label}|{name}", rank) for name, rank in rows]


def keep(rows: list[tuple[str, Ranker]], only: str) -> list[tuple[str, Ranker]]:
    words = [w for w in only.split(",") if w]
    return [r for r in rows if not words or any(w in r[0] for w in words)]


def configured(settings: Sequence[str]) -> SearchConfig:
    """``SearchConfig`` with ``name=value`` overrides (``bm25f.FIELD=w``, ``bm25f.k1=x``,
    ``bm25f.common.name=share``, ``minilm=w`` for a dense weight), for tuning on the dev slice."""
    import dataclasses

    config = SearchConfig()
    bm25f = config.bm25f
    weights, dense, common = dict(bm25f.weights), dict(config.dense_weights), dict(bm25f.common)
    top: dict[str, object] = {}
    extra: dict[str, float] = {}
    for item in settings:
        key, _, raw = item.partition("=")
        value = json.loads(raw)
        if key.startswith("bm25f.common."):
            common[key.removeprefix("bm25f.common.")] = value
        elif key in ("bm25f.k1", "bm25f.default_b"):
            extra[key.removeprefix("bm25f.")] = value
        elif key.startswith("bm25f."):
            weights[key.removeprefix("bm25f.")] = value
        elif key in dense:
            dense[key] = value
        else:
            top[key] = value
    bm25f = dataclasses.replace(bm25f, weights=weights, common=common, **extra)  # type: ignore[arg-type]
    return dataclasses.replace(config, bm25f=bm25f, dense_weights=dense, **top)  # type: ignore[arg-type]


def quality(args: argparse.Namespace) -> None:
    tools, single, multi = load_metatool()
    dev_single = [q for q in single if is_dev(q[0])]
    dev_multi = [q for q in multi if is_dev(q[0])]
    pooled, questions = load_bfcl()
    bfcl_queries = [(text, gold) for _, text, gold in questions]
    bfcl_dev = [(text, gold) for qid, text, gold in questions if is_dev(qid)]
    bfcl_test = [(text, gold) for qid, text, gold in questions if not is_dev(qid)]
    test_single = [q for q in single if not is_dev(q[0])]
    test_multi = [q for q in multi if not is_dev(q[0])]
    learn_single, learn_bfcl = dev_single, bfcl_dev
    if args.dev:  # tuning: learn from one half of the dev slice, measure on the other
        test_single = [q for i, q in enumerate(dev_single) if i % 2]
        test_multi = dev_multi
        bfcl_test = [q for i, q in enumerate(bfcl_dev) if i % 2]
        learn_single = [q for i, q in enumerate(dev_single) if not i % 2]
        learn_bfcl = [q for i, q in enumerate(bfcl_dev) if not i % 2]
    if args.limit:
        test_single = random.Random(0).sample(test_single, min(args.limit, len(test_single)))
    part = "dev slice (tuning)" if args.dev else "held out"
    print(
        f"MetaTool: {len(tools)} tools; {part}: {len(test_single)} single-tool, "
        f"{len(test_multi)} two-tool requests. BFCL pooled: {len(pooled)} tools "
        f"({len(bfcl_queries)} questions); {part}: {len(bfcl_test)} questions\n"
    )
    config = configured(args.set)
    base = {name: fn["base"] for name, fn in pooled.items()}
    work = Path(tempfile.mkdtemp(prefix="toolrig-bench-logs-"))
    meta_rows = catalogue_rows(
        "MetaTool",
        lambda ex: metatool_specs(tools, ex),
        {n: f"{words_of(n)} {d}" for n, d in tools.items()},
        learn_single,
        args.examples,
        work / "metatool.sqlite3",
        config,
    )
    bfcl_docs = {
        n: f"{words_of(fn['name'])} {fn.get('description', '')}" for n, fn in pooled.items()
    }
    bfcl_rows = catalogue_rows(
        "BFCL",
        lambda ex: bfcl_specs(pooled, ex),
        bfcl_docs,
        [(q, [n for n, fn in pooled.items() if fn["base"] in gold][:4]) for q, gold in learn_bfcl],
        2,
        work / "bfcl.sqlite3",
        config,
        base,
    )
    # what the parameters are worth: the same functions without them (in every field)
    bare = {name: {**fn, "parameters": {}} for name, fn in pooled.items()}
    bare_index = ToolIndex(
        bfcl_specs(bare), config=config, embedders=load_embedders(config.embedders)
    )
    bfcl_rows.insert(
        3, ("BFCL|descriptions only, no parameters", index_ranker(bare_index, "fused", base))
    )
    meta_rows, bfcl_rows = keep(meta_rows, args.only), keep(bfcl_rows, args.only)
    t0 = time.perf_counter()
    tables = [
        ("MetaTool single-tool", meta_rows, evaluate(meta_rows, test_single)),
        ("MetaTool two-tool", meta_rows, evaluate(meta_rows, test_multi)),
        ("BFCL pooled", bfcl_rows, evaluate(bfcl_rows, bfcl_test)),
    ]
    header = f"{'set':<22}{'ranking':<38}| {'R@1':>5} {'R@5':>5} {'R@10':>5} {'nDCG@10':>7}"
    print(f"({part})")
    print(header)
    print("-" * len(header))
    for name, rows, scores in tables:
        for (label, _), s in zip(rows, scores, strict=True):
            print(
                f"{name:<22}{label.split('|', 1)[1]:<38}| {s['r@1']:5.1f} {s['r@5']:5.1f} "
                f"{s['r@10']:5.1f} {s['ndcg@10']:7.1f}"
            )
        print()
    print(
        "BM25F: words only; descriptions only: BM25F + MiniLM + static embeddings (default);"
        " samples: dev-slice requests as each tool's examples; prior: dev-slice call counts;"
        " learned: (request, tool) pairs of a log that served the dev-slice requests"
    )
    print(f"(evaluated in {time.perf_counter() - t0:.0f} s)\n", flush=True)


# -- speed -----------------------------------------------------------------------------------
def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def speed(args: argparse.Namespace) -> None:
    tools, single, _ = load_metatool()
    test = [q for q, _ in single if not is_dev(q)]  # held out, as requests
    queries = random.Random(1).sample(test, 300)
    embedders = load_embedders()
    fast_config = SearchConfig(embedders=("static",))
    fast_embedders = load_embedders(fast_config.embedders)
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else [len(tools), 1_000]
    if not args.sizes and not args.quick:
        sizes.append(10_000)
    # vectors stored by the quality run must not make the first index look fast
    os.environ["TOOLRIG_CACHE_DIR"] = tempfile.mkdtemp(prefix="toolrig-bench-speed-")
    clear_vector_handles()
    dev = [q for q, _ in single if is_dev(q)][:500]
    print(
        f"{'catalogue':<12}{'index words':>12}{'embeddings':>12}{'first build':>12}"
        f"{'(cpu)':>8}{'from disk':>11} | {'ranking':<8}{'p50 ms':>8}{'p95 ms':>8}{'cpu p50':>9}"
    )
    for size in sizes:
        catalogue = specs(tools) if size == len(tools) else big_catalogue(tools, size)
        c0 = time.process_time()
        t0 = time.perf_counter()
        index = ToolIndex(catalogue, embedders=embedders)
        words_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        index.search("warm up", k=5)  # embeds every document, in batches
        embed_s = time.perf_counter() - t0
        build_cpu = time.process_time() - c0
        clear_vector_handles()  # a new process indexing the same tools reads their vectors
        again = ToolIndex(catalogue, embedders=embedders)
        t0 = time.perf_counter()
        again.search("warm up", k=5)
        disk_s = time.perf_counter() - t0
        del again
        fast = ToolIndex(catalogue, config=fast_config, embedders=fast_embedders)
        fast.search("warm up", k=5)
        # call counts for every tool, Zipf-like (a few tools take most calls), for "+usage"
        names = [spec.name for spec in catalogue]
        rng = random.Random(7)
        counts = {
            name: int(1000 / (rank + 1))
            for rank, name in enumerate(rng.sample(names, min(2000, len(names))))
        }
        learned = ToolIndex(catalogue, embedders=embedders)
        learned.learn((q, rng.choice(names)) for q in dev)  # 500 learned requests
        learned.search("warm up", k=5)
        for label, idx, mode in (
            ("lexical", index, "lexical"),
            ("fused", index, "fused"),
            ("+usage", index, "fused"),
            ("+learned", learned, "fused"),
            ("fast", fast, "fused"),
        ):
            if label == "+usage":
                idx.set_usage(counts)
            clear_query_cache()
            wall, cpu = [], []
            for query in queries:
                c0, t0 = time.thread_time(), time.perf_counter()
                idx.search(query, k=5, mode=mode)  # type: ignore[arg-type]
                wall.append((time.perf_counter() - t0) * 1000)
                cpu.append((time.thread_time() - c0) * 1000)
            print(
                f"{len(catalogue):<12,}{words_s:>11.2f}s{embed_s:>11.1f}s"
                f"{words_s + embed_s:>11.1f}s{build_cpu:>7.1f}s{disk_s:>10.2f}s"
                f" | {label:<8}"
                f"{percentile(wall, 0.5):>8.2f}{percentile(wall, 0.95):>8.2f}"
                f"{percentile(cpu, 0.5):>9.2f}",
                flush=True,
            )
    # the floor under fused ranking: MiniLM's own pass over each request, nothing else
    minilm = next((e for e in embedders if e.name == "minilm"), None)
    if minilm is not None:
        clear_query_cache()
        alone = []
        for query in queries:
            t0 = time.perf_counter()
            embed_request(minilm, query, request_parts(query))
            alone.append((time.perf_counter() - t0) * 1000)
        print(
            f"\nMiniLM alone, one request and its parts: {percentile(alone, 0.5):.2f} ms p50, "
            f"{percentile(alone, 0.95):.2f} ms p95"
        )
    print(f"load average during the run: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")


def clear_vector_handles() -> None:
    from toolrig.search import _vector_cache as vector_cache

    vector_cache._caches.clear()


def main() -> None:
    # numpy's BLAS on one thread, so it never fights onnxruntime for the two cores (numpy is
    # imported only when the models load, after this)
    assert "numpy" not in sys.modules
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing may be downloaded
    # a fresh cache folder: the int8 model copy and the document vectors are made in this run
    if not os.environ.get("TOOLRIG_CACHE_DIR"):
        os.environ["TOOLRIG_CACHE_DIR"] = tempfile.mkdtemp(prefix="toolrig-bench-")
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--examples", type=int, default=5, help="sample requests per tool")
    parser.add_argument(
        "--quick", action="store_true", help="no 10,000-tool catalogue, 300 sampled requests"
    )
    parser.add_argument("--skip-models", action="store_true", help="no per-model rows")
    parser.add_argument("--model-limit", type=int, default=1000, help="MetaTool requests")
    parser.add_argument("--model-size", type=int, default=10_000, help="tools timed per model")
    parser.add_argument("--dev", action="store_true", help="measure on the dev slice (tuning)")
    parser.add_argument("--sizes", default="", help="catalogue sizes for speed, e.g. 199,1000")
    parser.add_argument("--set", action="append", default=[], help="SearchConfig override k=v")
    parser.add_argument("--only", default="", help="comma-separated row labels to keep")
    parser.add_argument(
        "--limit", type=int, default=0, help="sample this many single-tool requests"
    )
    parser.add_argument("--skip-quality", action="store_true")
    parser.add_argument("--skip-speed", action="store_true")
    args = parser.parse_args()
    if args.quick and not args.limit:
        args.limit = 300
    if not args.skip_quality:
        quality(args)
    if not args.skip_models:
        model_rows(args)
    if not args.skip_speed:
        speed(args)


if __name__ == "__main__":
    main()
