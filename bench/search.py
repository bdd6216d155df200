#!/usr/bin/env python3
"""The built-in ``search`` tool next to ``grep -rn`` on the same tree and the same queries.

Run from the checkout:  .venv/bin/python bench/search.py [--files N] [--repeats N] [--quick]

The tree (10,000 text files of ~10 KB, about 100 MB, in 100 folders) is generated once with a
fixed seed and cached under the system temp folder; the first timed query runs after one untimed
pass, so both sides read from the page cache. A figure is the best of ``--repeats`` runs. Both
sides must report the same number of matching lines, or the script fails.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from toolrig.tools import SearchTool

WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "value",
    "result",
    "return",
    "import",
    "class",
    "def",
    "self",
    "data",
    "item",
    "list",
    "config",
    "handler",
    "request",
    "response",
    "error",
    "token",
    "index",
    "buffer",
    "stream",
    "cache",
    "query",
    "node",
    "parse",
    "render",
    "update",
    "delete",
    "create",
    "fetch",
    "store",
    "load",
    "save",
    "check",
    "build",
    "test",
]

# (label, pattern, literal, ignore_case, grep flags)
QUERIES = [
    ("rare literal", "needle_4242", True, False, ["-F"]),
    ("common literal", "return value", True, False, ["-F"]),
    ("regex", r"def [a-z]+_handler\(", False, False, ["-E"]),
    ("ignore case", "NEEDLE_42", True, True, ["-F", "-i"]),
]


def make_tree(root: Path, files: int, seed: int = 42) -> None:
    """Write ``files`` text files of about 10 KB in 100 folders; a few hold known needles."""
    rng = random.Random(seed)
    per_dir = max(1, files // 100)
    for i in range(files):
        folder = root / f"pkg{i // per_dir:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        lines = []
        size = 0
        while size < 10_000:
            if rng.random() < 0.02:
                line = f"def {rng.choice(WORDS)}_handler(self, {rng.choice(WORDS)}):"
            else:
                line = " ".join(rng.choices(WORDS, k=rng.randint(4, 12)))
            lines.append(line)
            size += len(line) + 1
        if i % 200 == 0:
            lines.insert(rng.randrange(len(lines)), f"    needle_{4242 if i % 400 == 0 else 42}")
        (folder / f"module{i:05d}.py").write_text("\n".join(lines) + "\n")


def tree(files: int) -> Path:
    root = Path(tempfile.gettempdir()) / f"toolrig-bench-search-{files}"
    marker = root / ".complete"
    if not marker.exists():
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        print(f"generating {files:,} files under {root} ...", flush=True)
        make_tree(root, files)
        marker.write_text("ok\n")
    return root


def best_of(repeats: int, run: Callable[[], int]) -> tuple[float, int]:
    times = []
    count = 0
    for _ in range(repeats):
        start = time.perf_counter()
        count = run()
        times.append(time.perf_counter() - start)
    return min(times), count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="smoke run: 300 files, 1 repeat")
    args = parser.parse_args()
    if args.quick:
        args.files, args.repeats = 300, 1
    root = tree(args.files)
    total = sum(e.stat().st_size for d in os.scandir(root) if d.is_dir() for e in os.scandir(d))
    grep = shutil.which("grep")
    if grep is None:
        print("grep not found", file=sys.stderr)
        return 1
    tool = SearchTool(root, max_results_limit=1_000_000)

    def ours(pattern: str, literal: bool, ignore_case: bool) -> int:
        out = tool.execute(
            "search",
            pattern=pattern,
            literal=literal,
            ignore_case=ignore_case,
            max_results=1_000_000,
        ).unwrap()
        return len(out["matches"])

    def theirs(pattern: str, flags: list[str]) -> int:
        proc = subprocess.run(
            [grep, "-rn", *flags, "--", pattern, "."],
            cwd=root,
            capture_output=True,
            env={**os.environ, "LC_ALL": "C"},
            check=False,
        )
        return proc.stdout.count(b"\n")

    ours("warm up the page cache", True, False)
    theirs("warm up the page cache", ["-F"])
    print(f"tree: {args.files:,} files, {total / 1e6:.0f} MB, {root}")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, best of {args.repeats}")
    print()
    print(f"{'query':<16} {'matches':>8} {'toolrig search':>15} {'grep -rn':>10} {'ratio':>7}")
    failed = False
    for label, pattern, literal, ignore_case, flags in QUERIES:
        t_ours, n_ours = best_of(args.repeats, lambda: ours(pattern, literal, ignore_case))  # noqa: B023
        t_grep, n_grep = best_of(args.repeats, lambda: theirs(pattern, flags))  # noqa: B023
        mark = "" if n_ours == n_grep else f"  MISMATCH (grep {n_grep})"
        failed |= bool(mark)
        print(
            f"{label:<16} {n_ours:>8,} {t_ours * 1000:>12.0f} ms {t_grep * 1000:>7.0f} ms "
            f"{t_ours / t_grep:>6.1f}x{mark}"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
