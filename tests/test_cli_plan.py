"""``toolrig plan check|run`` on the example catalogue."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from toolrig.cli.main import main
from toolrig.storage import SQLiteExecutionLog

ROOT = Path(__file__).resolve().parents[1]
ARGS = ["--catalog", str(ROOT / "examples" / "catalog"), "--import-path", str(ROOT / "examples")]


@pytest.fixture(autouse=True)
def _clean_imports(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(sys, "path", list(sys.path))


def test_plan_check_and_run_with_progress(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = str(ROOT / "examples" / "plans" / "review_report.yaml")
    assert main(["plan", "check", plan, *ARGS]) == 0
    assert "8 steps in 5 layers" in capsys.readouterr().out
    log_path = tmp_path / "log.sqlite3"
    assert main(["plan", "run", plan, *ARGS, "--log", str(log_path), "--id", "cli-1"]) == 0
    out = capsys.readouterr().out
    assert "plan cli-1: succeeded" in out and "8/8" in out
    log = SQLiteExecutionLog(log_path)
    assert len(log.get_run("cli-1")) == 8
    log.close()
    # the same id again resumes: every step is re-used
    assert main(["plan", "run", plan, *ARGS, "--log", str(log_path), "--id", "cli-1"]) == 0
    again = capsys.readouterr().out
    assert "reused" not in out
    assert again.count("│ reused") == 8  # one row per step in the result table


def test_plan_problems_are_listed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "steps:\n  - {id: a, tool: nope}\n"
        "  - {id: b, tool: preprocessor, params: {reviews: '${zz.output}'}}\n"
    )
    assert main(["plan", "check", str(bad), *ARGS]) == 1
    out = capsys.readouterr().out
    assert "'nope' not found" in out and "refers to step 'zz'" in out
    assert main(["plan", "run", str(tmp_path / "missing.yaml"), *ARGS]) == 2
