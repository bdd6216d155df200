"""Tune ``SearchConfig`` on the dev slices only (MetaTool dev + pooled BFCL dev).

Run: ``.venv/bin/python bench/tune_search.py "a=1 b=2" "a=3"``: each argument is one
configuration (``retrieval.configured`` overrides); every configuration is scored on the
same dev requests in one process, so each request is embedded once. ``--learned`` scores
learned pairs instead (learned from one half of each dev slice, measured on the other).
``--quick``: the defaults on 100 single-tool requests (a smoke run).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
from pathlib import Path

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")
os.environ.setdefault("TOOLRIG_CACHE_DIR", str(Path.home() / ".cache" / "toolrig" / "bench"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from retrieval import configured, evaluate, index_ranker, simulated_log  # noqa: E402
from retrieval_data import bfcl_specs, is_dev, load_bfcl, load_metatool, metatool_specs  # noqa: E402

from toolrig.search import ToolIndex  # noqa: E402
from toolrig.search._dense import load_embedders  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("configs", nargs="*")
    parser.add_argument("--limit", type=int, default=1500)
    parser.add_argument("--learned", action="store_true")
    parser.add_argument("--quick", action="store_true", help="smoke run: defaults, 100 requests")
    args = parser.parse_args()
    if args.quick:
        args.configs, args.limit = args.configs or [""], 100
    if not args.configs:
        parser.error('give at least one configuration ("" for the defaults), or --quick')
    tools, single, multi = load_metatool()
    pooled, questions = load_bfcl()
    dev_single = [q for q in single if is_dev(q[0])]
    dev_multi = [q for q in multi if is_dev(q[0])]
    dev_bfcl = [(t, g) for i, t, g in questions if is_dev(i)]
    learn_single: list = []
    learn_bfcl: list = []
    if args.learned:
        learn_single, dev_single = dev_single[0::2], dev_single[1::2]
        learn_bfcl, dev_bfcl = dev_bfcl[0::2], dev_bfcl[1::2]
    dev_single = random.Random(0).sample(dev_single, min(args.limit, len(dev_single)))
    base = {name: fn["base"] for name, fn in pooled.items()}
    work = Path(tempfile.mkdtemp(prefix="toolrig-tune-"))
    meta_rows, bfcl_rows = [], []
    for i, text in enumerate(args.configs):
        config = configured(text.split())
        embedders = load_embedders(config.embedders)
        meta = ToolIndex(metatool_specs(tools), config=config, embedders=embedders)
        bfcl = ToolIndex(bfcl_specs(pooled), config=config, embedders=embedders)
        if args.learned:
            meta.learn_from(simulated_log(learn_single, work / f"m{i}.sqlite3"))
            pairs = [
                (q, [n for n, fn in pooled.items() if fn["base"] in g][:4]) for q, g in learn_bfcl
            ]
            bfcl.learn_from(simulated_log(pairs, work / f"b{i}.sqlite3"))
        meta_rows.append((text, index_ranker(meta)))
        bfcl_rows.append((text, index_ranker(bfcl, base=base)))
    results = [
        evaluate(meta_rows, dev_single),
        evaluate(meta_rows, dev_multi),
        evaluate(bfcl_rows, dev_bfcl),
    ]
    print(f"{'config':<60} | single R@5 nDCG | two R@5 nDCG | BFCL R@5 nDCG | mean R@5")
    for i, text in enumerate(args.configs):
        s, m, b = (r[i] for r in results)
        mean = (s["r@5"] + m["r@5"] + b["r@5"]) / 3
        print(
            f"{text or '(defaults)':<60} | {s['r@5']:5.1f} {s['ndcg@10']:5.1f} | "
            f"{m['r@5']:5.1f} {m['ndcg@10']:5.1f} | {b['r@5']:5.1f} {b['ndcg@10']:5.1f} | {mean:5.1f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
