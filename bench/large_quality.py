"""Ranking quality in the 10,000-tool catalogue: candidates picked on the static model's first
``coarse_dims`` dimensions against the full vectors.

Run: ``.venv/bin/python bench/large_quality.py [--dev] [--limit 1000] [--dims 256,128,64]``.
MetaTool's requests are searched among the 10,000 tools of ``retrieval.py``'s speed part (its
199 tools among recombined ones), where the default search first picks 300 candidates; 256
(the model's width) is the full scan. Every setting ranks the same requests in one process,
the index built once (vectors from ``TOOLRIG_CACHE_DIR``). ``--dev``: the dev slice (for
choosing), else the held-out part.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from pathlib import Path

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOOLRIG_CACHE_DIR", str(Path.home() / ".cache" / "toolrig" / "bench"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from retrieval import KEYS, add_scores  # noqa: E402
from retrieval_data import big_catalogue, is_dev, load_metatool  # noqa: E402

from toolrig.search import ToolIndex  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dev", action="store_true")
    parser.add_argument("--limit", type=int, default=1000, help="single-tool requests")
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--dims", default="256,128,64")
    parser.add_argument(
        "--quick", action="store_true", help="CI smoke run: 2,100 tools, 20 requests"
    )
    args = parser.parse_args()
    if args.quick:  # still above 2,000 tools, where the candidates are picked on a cut
        args.size, args.limit = 2_100, 20
    tools, single, multi = load_metatool()
    single = [q for q in single if is_dev(q[0]) == args.dev]
    single = random.Random(0).sample(single, min(args.limit, len(single)))
    multi = [q for q in multi if is_dev(q[0]) == args.dev]
    if args.quick:
        multi = multi[: args.limit]
    index = ToolIndex(big_catalogue(tools, args.size))
    static = next(t for t in index._tables if t.name == "static")
    width = static.embedder.embed(["width"]).shape[1]

    def use(dims: int) -> None:
        static.embedder.coarse_dims = dims if dims < width else None  # type: ignore[attr-defined]
        static._coarse = None

    settings = [int(d) for d in args.dims.split(",")]
    part = "dev slice" if args.dev else "held out"
    print(f"{len(index):,} actions; {part}: {len(single)} single-tool, {len(multi)} two-tool")
    for label, queries in (("single-tool", single), ("two-tool", multi)):
        for dims in settings:
            use(dims)
            sums = dict.fromkeys(KEYS, 0.0)
            for query, gold in queries:
                add_scores(sums, [h.tool for h in index.search(query, k=10, group="tool")], gold)
            scores = " ".join(f"{k} {100 * v / len(queries):5.1f}" for k, v in sums.items())
            print(f"{label:<12} dims {dims:>4}: {scores}", flush=True)


if __name__ == "__main__":
    main()
