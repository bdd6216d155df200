"""Registry benchmark: cold load of generated definitions, and file-write -> served delay.

Run: ``.venv/bin/python bench/registry.py [--quick] [--counts 1000,10000]`` (prints figures;
targets: 10,000 definitions under 3 s, reload under 300 ms). ``--quick``: 200 definitions and
5 edits, a few seconds.

Every definition names a real executor, ``bench_registry_tools.run``, in a module written beside
the definitions (and put on ``sys.path``): a reload imports the executor before it swaps, so a
definition naming missing code would never be served.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

DEFINITION = """\
name: {name}
display_name: Tool {i}
version: 1.0.{v}
description: |
  Generated tool number {i}; classifies texts and scores them.
type: {type}
layer: ml
parameters:
  - {{name: text_data, type: array, required: true, item_type: string, min_items: 1, description: texts to analyse}}
  - {{name: model, type: string, required: false, default: small, enum: [small, large]}}
  - {{name: batch_size, type: integer, required: false, default: 10, min: 1, max: 100}}
  - {{name: threshold, type: float, required: false, default: 0.5, min: 0.0, max: 1.0}}
  - {{name: filters, type: object, required: false, properties: {{start_date: {{type: string, format: date}}, rating_min: {{type: integer, min: 1, max: 5}}}}}}
output_schema: {{type: object, properties: {{overall_sentiment: {{type: string, enum: [positive, negative, neutral, mixed]}}}}}}
executor: bench_registry_tools.run
timeout: 300
max_retries: 3
dependencies: [{dep}]
tags: [generated, group{group}]
cost: {{base_cost: 0.001, per_item_cost: 0.0001}}
"""

TYPES = ("data", "analysis", "content", "business")
EXECUTOR_MODULE = "bench_registry_tools"
EXECUTOR = """\
def run(text_data, model="small", batch_size=10, threshold=0.5, filters=None):
    \"\"\"Score each text by its length (the code every generated definition names).\"\"\"
    return {"overall_sentiment": "neutral", "scores": [len(t) / 100 for t in text_data]}
"""


def write_definitions(folder: Path, count: int) -> None:
    """``count`` definition files in 100-file subfolders, and the module they name."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{EXECUTOR_MODULE}.py").write_text(EXECUTOR, encoding="utf-8")
    for i in range(count):
        sub = folder / f"group{i // 100:03d}"
        sub.mkdir(parents=True, exist_ok=True)
        text = DEFINITION.format(
            name=f"tool_{i:05d}",
            i=i,
            v=0,
            type=TYPES[i % 4],
            dep=f"tool_{i - 1:05d}" if i else "",
            group=i % 10,
        )
        (sub / f"tool_{i:05d}.yaml").write_text(text, encoding="utf-8")


COLD = """
import sys, time
t0 = time.perf_counter()
from toolrig.registry import Registry
t1 = time.perf_counter()
registry = Registry()
c1 = time.process_time()
report = registry.load_folder(sys.argv[1])
t2, c2 = time.perf_counter(), time.process_time()
assert report.ok, report
print(f"{len(registry)} {t1 - t0:.3f} {t2 - t1:.3f} {c2 - c1:.3f}")
"""


def cold_load(count: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        write_definitions(Path(tmp), count)
        env = {**os.environ, "PYTHONPATH": tmp}
        out = subprocess.run(
            [sys.executable, "-c", COLD, tmp], capture_output=True, text=True, check=True, env=env
        ).stdout.split()
        loaded, imported, seconds, cpu = int(out[0]), float(out[1]), float(out[2]), float(out[3])
        print(
            f"cold load of {count:>6,} definitions: {seconds:6.3f} s wall, {cpu:6.3f} s CPU "
            f"({seconds / count * 1e6:.0f} us each; {loaded:,} tools; import {imported:.3f} s)"
        )


def reload_delay(edits: int = 20) -> None:
    from toolrig import ToolExecutor
    from toolrig.registry import ChangeEvent, ChangeKind, Registry

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_definitions(folder, 100)
        sys.path.insert(0, tmp)
        target = folder / "group000" / "tool_00042.yaml"
        served = threading.Event()
        wanted: list[str] = [""]

        def listener(event: ChangeEvent) -> None:
            if event.kind is ChangeKind.UPDATED and event.version == wanted[0]:
                served.set()

        registry = Registry()
        registry.add_change_listener(listener)
        delays = []
        with registry.watch(folder):
            for n in range(1, edits + 1):
                served.clear()
                wanted[0] = f"1.0.{n}"
                text = DEFINITION.format(
                    name="tool_00042", i=42, v=n, type="data", dep="tool_00041", group=2
                )
                t0 = time.perf_counter()
                target.write_text(text, encoding="utf-8")
                if not served.wait(5):
                    raise SystemExit(f"edit {n} was not applied within 5 s")
                delays.append(time.perf_counter() - t0)
                assert registry.get("tool_00042").spec.version == wanted[0]
                time.sleep(0.05)
        result = ToolExecutor(registry).execute_sync("tool_00042", {"text_data": ["good"]})
        registry.close()
        sys.path.remove(tmp)
        if not result.success:
            raise SystemExit(f"the reloaded tool failed: {result.error}")
        ms = sorted(d * 1000 for d in delays)
        print(
            f"reload delay, write -> served ({edits} edits): median {statistics.median(ms):.1f} ms, "
            f"min {ms[0]:.1f} ms, max {ms[-1]:.1f} ms (debounce 50 ms)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="200 definitions, 5 edits")
    parser.add_argument("--counts", default="1000,10000", help="cold-load sizes (1000,10000)")
    parser.add_argument("--edits", type=int, default=20, help="hot-reload edits timed (20)")
    args = parser.parse_args()
    counts = [200] if args.quick else [int(c) for c in args.counts.split(",")]
    for count in counts:
        cold_load(count)
    reload_delay(5 if args.quick else args.edits)


if __name__ == "__main__":
    main()
