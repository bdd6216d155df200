#!/usr/bin/env python3
"""Time and memory of the bounded paths of the file tools, each printed beside its limit, and
the cost of the budget on ordinary calls.

Run from the checkout:  .venv/bin/python bench/bounds.py [--quick]

* a 48 KB DOCX of 130,000 table rows and a 300,000-paragraph DOCX (19 s and more to read
  whole before the budget), a PDF of 1,000 pages sharing one content stream;
* a catastrophic pattern, ``(a+)+$`` over 30,000 ``a`` and a ``!``, through ``search`` and
  ``search_and_replace``;
* replacing one character by 100 in a 2 MB file (refused before it is built);
* ordinary calls (a 40-paragraph DOCX, a 5-page PDF, a regex search over this checkout's
  sources) with the budget checked, and with ``Meter.check`` made a no-op: the difference is
  the budget's overhead.

Peak memory is the growth of this process's resident set (``ru_maxrss``) over the run of
each row, measured in a fresh child process per row so one row's peak does not hide the
next. ``--quick`` runs the same rows once each (seconds); the full run takes the median of 5.
"""

from __future__ import annotations

import argparse
import multiprocessing
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "tools"))

from doc_bombs import docx_paragraphs, docx_table, pdf  # noqa: E402

from toolrig.tools import DocumentTool, SearchReplaceTool, SearchTool  # noqa: E402
from toolrig.tools._budget import Budget, Meter  # noqa: E402


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _row(queue: Any, make: Callable[[], Callable[[], Any]]) -> None:
    call = make()
    before = _peak_mb()
    started = time.perf_counter()
    result = call()
    elapsed = time.perf_counter() - started
    code = getattr(result, "code", None)
    queue.put((elapsed, _peak_mb() - before, code))


def measure(make: Callable[[], Callable[[], Any]]) -> tuple[float, float, str | None]:
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_row, args=(queue, make))
    proc.start()
    out = queue.get()
    proc.join()
    return out  # type: ignore[no-any-return]


def bounded_rows(box: Path) -> list[tuple[str, Callable[[], Callable[[], Any]], str]]:
    (box / "table.docx").write_bytes(docx_table(130_000))
    (box / "paragraphs.docx").write_bytes(docx_paragraphs(300_000))
    (box / "pages.pdf").write_bytes(pdf(3, 10, 1_000))
    (box / "hostile.txt").write_text("a" * 30_000 + "!\n")
    (box / "big.txt").write_text("ab\n" * 700_000)
    docs = DocumentTool(box)
    limit = f"{Budget().wall_s:g} s, {docs.max_output_chars:,} chars"

    def load(name: str) -> Callable[[], Callable[[], Any]]:
        return lambda: lambda: docs.execute("load", path=name)

    return [
        (f"DOCX 130,000 rows ({(box / 'table.docx').stat().st_size // 1000} KB)",
         load("table.docx"), limit),
        (f"DOCX 300,000 paragraphs ({(box / 'paragraphs.docx').stat().st_size // 1000} KB)",
         load("paragraphs.docx"), limit),
        (f"PDF 1,000 pages ({(box / 'pages.pdf').stat().st_size} B)", load("pages.pdf"), limit),
        ("search (a+)+$ over 30,000 a!",
         lambda: lambda: SearchTool(box).execute("search", pattern=r"(a+)+$"), "linear time"),
        ("replace (a+)+$ over 30,000 a!",
         lambda: lambda: SearchReplaceTool(box).execute(
             "search_and_replace", path="hostile.txt", search=r"(a+)+$", replace="", regex=True),
         "linear time"),
        ("replace 1 char by 100 in 2.1 MB",
         lambda: lambda: SearchReplaceTool(box).execute(
             "search_and_replace", path="big.txt", search="a", replace="x" * 100),
         "10,000,000 B written"),
        ("replace (a) by \\1 x 100 in 2.1 MB",
         lambda: lambda: SearchReplaceTool(box).execute(
             "search_and_replace", path="big.txt", search="(a)", replace="\\1" * 100, regex=True),
         "10,000,000 B written"),
    ]  # fmt: skip


def ordinary(box: Path, runs: int) -> list[tuple[str, float, float]]:
    from doc_bombs import docx

    (box / "normal.docx").write_bytes(
        docx("".join(f"<w:p><w:r><w:t>Paragraph {i} of an ordinary report.</w:t></w:r></w:p>"
                     for i in range(40)))
    )  # fmt: skip
    (box / "normal.pdf").write_bytes(pdf(1, 5, 40, text=b"an ordinary line of text"))
    docs = DocumentTool(box)
    src = SearchTool(ROOT / "src")
    calls: dict[str, Callable[[], Any]] = {
        "load a 40-paragraph DOCX": lambda: docs.execute("load", path="normal.docx"),
        "load a 5-page PDF": lambda: docs.execute("load", path="normal.pdf"),
        "search def \\w+\\( over src/": lambda: src.execute("search", pattern=r"def \w+\("),
        "search literal over src/": lambda: src.execute(
            "search", pattern="ToolError", literal=True
        ),
    }
    check, tick = Meter.check, Meter.tick
    rows = []
    for name, call in calls.items():
        call()
        with_budget: list[float] = []
        without: list[float] = []
        for _ in range(runs):
            for patched, into in ((False, with_budget), (True, without)):
                if patched:
                    Meter.check = Meter.tick = lambda self, where="": None  # type: ignore[method-assign]
                started = time.perf_counter()
                for _ in range(10):
                    call()
                into.append((time.perf_counter() - started) / 10)
                Meter.check, Meter.tick = check, tick  # type: ignore[method-assign]
        rows.append((name, statistics.median(with_budget), statistics.median(without)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one run of each row (seconds)")
    args = parser.parse_args()
    runs = 1 if args.quick else 5
    with tempfile.TemporaryDirectory() as tmp:
        box = Path(tmp)
        print(f"{'bounded path':<40} {'time':>8} {'peak RSS':>9}  {'answer':<18} limit")
        for name, make, limit in bounded_rows(box):
            results = [measure(make) for _ in range(runs)]
            elapsed = statistics.median(r[0] for r in results)
            peak = statistics.median(r[1] for r in results)
            code = results[0][2] or "ok"
            print(f"{name:<40} {elapsed:>7.2f}s {peak:>7.0f}MB  {code:<18} {limit}")
        print()
        print(f"{'ordinary call':<34} {'budget':>9} {'no-op':>9} {'overhead':>9}")
        for name, with_budget, without in ordinary(box, max(runs, 3)):
            extra = (with_budget - without) / without * 100
            print(
                f"{name:<34} {with_budget * 1000:>7.2f}ms {without * 1000:>7.2f}ms {extra:>8.1f}%"
            )


if __name__ == "__main__":
    main()
