"""Every benchmark in ``bench/`` has a ``--quick`` mode that ``bench/run_quick.py`` (run by
``.ci/run``) runs, and the runner fails when one breaks or has no quick mode."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
RUNNER = ROOT / "bench" / "run_quick.py"


def runner() -> ModuleType:
    spec = importlib.util.spec_from_file_location("run_quick", RUNNER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_bench_file_is_run_in_quick_mode_or_named_a_helper() -> None:
    rq = runner()
    scripts = {p.name for p in rq.benches()}
    helpers = {f"{name}.py" for name in rq.HELPERS}
    every = {p.name for p in (ROOT / "bench").glob("*.py")}
    assert every == scripts | helpers and not scripts & helpers
    assert helpers <= every, f"stale names in HELPERS: {sorted(helpers - every)}"
    assert {"registry.py", "ratios.py", "peers.py"} <= scripts
    assert [p.name for p in rq.benches() if not rq.has_quick(p)] == []
    for name in helpers - {"run_quick.py"}:  # a helper is imported, never run
        assert "__main__" not in (ROOT / "bench" / name).read_text(encoding="utf-8"), name


def test_ci_runs_the_quick_benchmarks_before_the_readme_command() -> None:
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()
    assert any(line.startswith(".venv/bin/python bench/run_quick.py") for line in lines[:-1])
    assert lines[-1].endswith(".venv/bin/pytest")  # the README's command stays last


def run_on(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(RUNNER), "--folder", str(folder)],
        capture_output=True,
        text=True,
        timeout=120,
    )


BENCH = """import argparse, sys
parser = argparse.ArgumentParser()
parser.add_argument("--quick", action="store_true")
args = parser.parse_args()
print("measured", args.quick)
sys.exit({code})
"""


def test_the_runner_fails_when_a_benchmark_fails(tmp_path: Path) -> None:
    (tmp_path / "fine.py").write_text(BENCH.format(code=0), encoding="utf-8")
    (tmp_path / "broken.py").write_text(BENCH.format(code=3), encoding="utf-8")
    done = run_on(tmp_path)
    assert done.returncode == 1
    assert "fine.py                 ok" in done.stdout
    assert "broken.py               FAILED" in done.stdout
    assert "measured True" in done.stdout  # the failing one's output, run with --quick
    assert "1 benchmark(s) failed in quick mode: broken.py" in done.stdout
    (tmp_path / "broken.py").unlink()
    assert run_on(tmp_path).returncode == 0


def test_the_runner_refuses_a_benchmark_without_quick_mode(tmp_path: Path) -> None:
    (tmp_path / "fine.py").write_text(BENCH.format(code=0), encoding="utf-8")
    (tmp_path / "new_bench.py").write_text("print('no arguments')\n", encoding="utf-8")
    done = run_on(tmp_path)
    assert done.returncode == 1
    assert "no --quick mode in new_bench.py" in done.stderr
    assert "measured" not in done.stdout  # refused before anything runs
