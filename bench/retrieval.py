"""Tool search benchmark on MetaTool: quality of lexical, dense and fused ranking, and speed.

Run: ``.venv/bin/python bench/retrieval.py`` (about five minutes on 2 cores, a minute of it
embedding the 10,000 tools; ``--quick`` runs on a sample of the queries and skips the
10,000-tool catalogue). It uses a fresh cache folder, so "embeddings" is a first start and
"from disk" a later one that reads the stored vectors.

Data: ``../shared/corpora/metatool`` (199 tools, 20,614 single-tool queries, 497 two-tool
queries). Every query goes to the dev slice (30%) or the held-out part by a hash of its text;
the ranking parameters in :class:`~toolrig.search.SearchConfig` were tuned on the dev
slice only, and the tables report the held-out part. "with N sample requests" gives each tool
N ``examples`` taken from the dev slice (as a tool author would write a few sample requests);
"+ usage" gives the index the number of dev-slice requests each tool answered, as a deployment's
execution log would after serving them (the usage prior, ``ToolIndex.set_usage``). Held-out
queries are never used as examples or counted as usage.

Targets: single-tool and two-tool recall@5 >= 85 (held out); <= 5 ms p50 per query at 10,000
tools.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import math
import os
import random
import re
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from toolrig.core._spec import ActionSpec, ToolSpec
from toolrig.search import SearchConfig, ToolIndex
from toolrig.search._dense import clear_query_cache, load_embedders

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT.parent / "shared" / "corpora"
METATOOL = CORPORA / "metatool"
BFCL = CORPORA / "bfcl"
MODES = ("lexical", "dense", "fused")

Query = tuple[str, list[str]]


def safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.\- ]", "_", name)


def is_dev(query: str) -> bool:
    """The fixed dev slice: 30% of the queries, by a hash of the text."""
    return int(hashlib.sha1(query.encode()).hexdigest()[:8], 16) % 10 < 3


def load_metatool() -> tuple[dict[str, str], list[Query], list[Query]]:
    tools = {safe(k): v for k, v in json.loads((METATOOL / "plugin_des.json").read_text()).items()}
    with open(METATOOL / "all_clean_data.csv", newline="", encoding="utf-8") as f:
        single = [(row["Query"], [safe(row["Tool"])]) for row in csv.DictReader(f)]
    multi = [
        (d["query"], [safe(t) for t in d["tool"]])
        for d in json.loads((METATOOL / "multi_tool_query_golden.json").read_text())
    ]
    return tools, single, multi


def sample_requests(dev: list[Query], tools: dict[str, str], n: int) -> dict[str, list[str]]:
    """Up to ``n`` dev-slice requests per tool (the first ones in hash order)."""
    out: dict[str, list[str]] = {name: [] for name in tools}
    for query, gold in sorted(dev, key=lambda x: hashlib.sha1(x[0].encode()).hexdigest()):
        if len(out[gold[0]]) < n:
            out[gold[0]].append(query)
    return out


def usage_counts(dev: list[Query]) -> dict[str, int]:
    """Calls per tool, had each dev-slice request been answered by its gold tool."""
    counts: dict[str, int] = {}
    for _, gold in dev:
        counts[gold[0]] = counts.get(gold[0], 0) + 1
    return counts


def specs(tools: dict[str, str], examples: dict[str, list[str]] | None = None) -> list[ToolSpec]:
    return [
        ToolSpec(
            name=name,
            description=text,
            examples=tuple((examples or {}).get(name, ())),
            actions={name: ActionSpec(name=name, description=text)},
        )
        for name, text in tools.items()
    ]


# -- quality ---------------------------------------------------------------------------------
KEYS = ("r@1", "r@5", "r@10", "ndcg@10", "all@5")


def add_scores(sums: dict[str, float], ranked: list[str], gold: list[str]) -> None:
    wanted = set(gold)
    for k in (1, 5, 10):
        sums[f"r@{k}"] += len(wanted & set(ranked[:k])) / len(wanted)
    sums["all@5"] += float(wanted <= set(ranked[:5]))
    dcg = sum(1 / math.log2(i + 2) for i, t in enumerate(ranked) if t in wanted)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(wanted), 10)))
    sums["ndcg@10"] += dcg / ideal


Row = tuple[str, str, ToolIndex, str]  # catalogue label, ranking label, index, mode


def evaluate(rows: list[Row], queries: Sequence[Query]) -> list[dict[str, float]]:
    """Metrics in percent per row. Each query is embedded once per model (the vector is
    shared by every index and mode)."""
    sums = [dict.fromkeys(KEYS, 0.0) for _ in rows]
    for query, gold in queries:
        for (_, _, index, mode), row_sums in zip(rows, sums, strict=True):
            hits = index.search(query, k=10, mode=mode)  # type: ignore[arg-type]
            add_scores(row_sums, [h.tool for h in hits], gold)
    return [{key: 100 * v / len(queries) for key, v in row.items()} for row in sums]


def quality(args: argparse.Namespace) -> None:
    tools, single, multi = load_metatool()
    dev_single = [q for q in single if is_dev(q[0])]
    test_single = [q for q in single if not is_dev(q[0])]
    test_multi = [q for q in multi if not is_dev(q[0])]
    if args.quick:
        test_single = random.Random(0).sample(test_single, 1500)
    print(
        f"MetaTool: {len(tools)} tools; held-out queries: {len(test_single)} single-tool, "
        f"{len(test_multi)} two-tool (dev slice: {len(single) - len(test_single)} / "
        f"{len(multi) - len(test_multi)} not reported)\n"
    )
    embedders = load_embedders()
    fast = SearchConfig(embedders=("static",))
    fast_embedders = load_embedders(fast.embedders)
    configs = [("descriptions only", specs(tools))]
    if args.examples:
        examples = sample_requests(dev_single, tools, args.examples)
        configs.append((f"with {args.examples} sample requests", specs(tools, examples)))
    usage = usage_counts(dev_single)
    rows: list[Row] = []
    for (label, catalogue), counts in [(c, None) for c in configs] + [(c, usage) for c in configs]:
        if counts is not None:
            label = label.replace("with ", "") + " + usage"
        index = ToolIndex(catalogue, embedders=embedders)
        quick = ToolIndex(catalogue, config=fast, embedders=fast_embedders)
        if counts is not None:
            index.set_usage(counts)
            quick.set_usage(counts)
        rows += [(label, mode, index, mode) for mode in MODES]
        rows.append((label, "fast", quick, "fused"))
    t0 = time.perf_counter()
    single_scores = evaluate(rows, test_single)
    multi_scores = evaluate(rows, test_multi)
    header = (
        f"{'catalogue':<26}{'ranking':<9}| {'R@1':>5} {'R@5':>5} {'R@10':>5} {'nDCG':>5} "
        f"| {'R@1':>5} {'R@5':>5} {'R@10':>5} {'nDCG':>5} {'both@5':>6}"
    )
    print(f"{'':<35}| single-tool (held out)    | two-tool (held out)")
    print(header)
    print("-" * len(header))
    for (label, ranking, _, _), s, m in zip(rows, single_scores, multi_scores, strict=True):
        print(
            f"{label:<26}{ranking:<9}| {s['r@1']:5.1f} {s['r@5']:5.1f} {s['r@10']:5.1f} "
            f"{s['ndcg@10']:5.1f} | {m['r@1']:5.1f} {m['r@5']:5.1f} {m['r@10']:5.1f} "
            f"{m['ndcg@10']:5.1f} {m['all@5']:6.1f}"
        )
    print(
        "\nlexical: BM25F; dense: MiniLM + static embeddings; fused: BM25F + both (default);"
        " fast: BM25F + static embeddings only; + usage: with the usage prior"
    )
    print(f"(evaluated in {time.perf_counter() - t0:.0f} s)\n", flush=True)


# -- speed -----------------------------------------------------------------------------------
def big_catalogue(tools: dict[str, str], size: int) -> list[ToolSpec]:
    """The MetaTool tools, every BFCL function (with its parameters), then tools made by
    recombining those names and descriptions, up to ``size`` tools."""
    out = {s.name: s for s in specs(tools)}
    for path in sorted(BFCL.glob("BFCL_v4_*.json")):
        for line in path.read_text().splitlines():
            for fn in json.loads(line).get("function", []):
                name = safe(fn["name"])
                props = (fn.get("parameters") or {}).get("properties") or {}
                action = ActionSpec(
                    name=name,
                    description=fn.get("description", ""),
                    parameters={"type": "object", "properties": props},
                )
                out.setdefault(
                    name,
                    ToolSpec(name=name, description=action.description, actions={name: action}),
                )
    base = list(out.values())
    rng = random.Random(42)
    i = 0
    while len(out) < size:
        a, b = rng.sample(base, 2)
        name = f"{a.name}_{b.name.split('.')[-1]}_{i}"[:120]
        action = next(iter(b.actions.values()))
        text = f"{a.description} {b.description}"
        out[name] = ToolSpec(
            name=name,
            description=text,
            actions={name: action.model_copy(update={"name": name, "description": text})},
        )
        i += 1
    return list(out.values())[:size]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def speed(args: argparse.Namespace) -> None:
    tools, single, _ = load_metatool()
    test = [q for q, _ in single if not is_dev(q)]
    queries = random.Random(1).sample(test, 300)
    embedders = load_embedders()
    fast_config = SearchConfig(embedders=("static",))
    fast_embedders = load_embedders(fast_config.embedders)
    sizes = [len(tools)] + ([] if args.quick else [10_000])
    # vectors stored by the quality run must not make the first index look fast
    os.environ["TOOLRIG_CACHE_DIR"] = tempfile.mkdtemp(prefix="toolrig-bench-speed-")
    clear_vector_handles()
    print(
        f"{'catalogue':<12}{'index words':>12}{'embeddings':>12}{'from disk':>11} | "
        f"{'ranking':<8}{'p50 ms':>8}{'p95 ms':>8}{'cpu p50':>9}"
    )
    for size in sizes:
        catalogue = specs(tools) if size == len(tools) else big_catalogue(tools, size)
        t0 = time.perf_counter()
        index = ToolIndex(catalogue, embedders=embedders)
        words_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        index.search("warm up", k=5)  # embeds every document, in batches
        embed_s = time.perf_counter() - t0
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
        for label, idx, mode in (
            ("lexical", index, "lexical"),
            ("fused", index, "fused"),
            ("+usage", index, "fused"),
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
                f"{len(catalogue):<12,}{words_s:>11.2f}s{embed_s:>11.1f}s{disk_s:>10.2f}s"
                f" | {label:<8}"
                f"{percentile(wall, 0.5):>8.2f}{percentile(wall, 0.95):>8.2f}"
                f"{percentile(cpu, 0.5):>9.2f}",
                flush=True,
            )
    print(f"\nload average during the run: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")


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
    os.environ["TOOLRIG_CACHE_DIR"] = tempfile.mkdtemp(prefix="toolrig-bench-")
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--examples", type=int, default=5, help="sample requests per tool")
    parser.add_argument("--quick", action="store_true", help="sample queries; 199 tools only")
    parser.add_argument("--skip-quality", action="store_true")
    parser.add_argument("--skip-speed", action="store_true")
    args = parser.parse_args()
    if not args.skip_quality:
        quality(args)
    if not args.skip_speed:
        speed(args)


if __name__ == "__main__":
    main()
