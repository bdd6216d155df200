"""The mutation run in CI: ``.ci/run`` runs ``scripts/mutation.py --changed --budget``, which
picks the modules whose score is not recorded for their current code and tests, stops at its
time budget and says so, and fails only on a module that certainly scores below the target.

| promise | boundary | test |
|---|---|---|
| CI runs it | after the benches, before the README command, with a budget | ``test_ci_...`` |
| what changed | recorded and current: not run; changed, unrecorded: run | ``test_changed_...`` |
| what changed | quickest recorded first; never recorded: named, not run | ``test_changed_...`` |
| the table | every module and every mapped test file exists | ``test_every_...`` |
| recording | a complete run is recorded, a run cut short is not | ``test_record_...`` |
| the verdict | a complete run: below the target fails, at it passes | ``test_a_complete_...`` |
| the verdict | a cut run fails only once its survivors exceed the target | ``test_a_cut_run_...`` |
| the budget | spent: no module starts, each named in the table, exit 0 | ``test_a_spent_...`` |
| the limit | a stopped run's whole process group ends, output kept | ``test_the_time_limit_...`` |
"""

from __future__ import annotations

import importlib.util
import os
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def mutation() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mutation_script", ROOT / "scripts/mutation.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def score(mutation: ModuleType, **figures: object) -> object:
    base: dict[str, object] = {
        "module": "src/toolrig/agent/_claim.py",
        "generated": 100,
        "killed": 100,
        "survived": 0,
        "equivalent": 0,
        "other": 0,
        "survivors": (),
        "seconds": 1.0,
    }
    return mutation.Score(**{**base, **figures})


def test_ci_runs_the_changed_modules_with_a_budget_between_benches_and_tests() -> None:
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()
    bench = next(i for i, line in enumerate(lines) if "bench/run_quick.py" in line)
    runs = [i for i, line in enumerate(lines) if "scripts/mutation.py" in line]
    assert len(runs) == 1 and bench < runs[0] < len(lines) - 1
    words = lines[runs[0]].split("#")[0].split()
    assert words[:2] == [".venv/bin/python", "scripts/mutation.py"]
    assert "--changed" in words and words[words.index("--changed") + 1].startswith("-")
    budget = float(words[words.index("--budget") + 1])
    assert 0 < budget <= 1200  # CI stays far under its 90 minutes


def test_changed_means_not_recorded_for_the_current_code_and_tests(mutation: ModuleType) -> None:
    modules = list(mutation.MODULES)
    first, second, *rest = modules
    baseline = {m: {"fingerprint": mutation._fingerprint(m), "seconds": 5.0} for m in modules}
    assert mutation.unrecorded_modules(baseline) == []
    assert mutation.unscored_modules(baseline) == []
    baseline[first] = {"fingerprint": "an older hash", "seconds": 300.0}
    baseline[second] = {"fingerprint": "an older hash", "seconds": 30.0}
    for module in rest[:1]:
        del baseline[module]  # never recorded: not yet scored, named but not run
    assert mutation.unrecorded_modules(baseline) == [second, first]
    assert mutation.unscored_modules(baseline) == rest[:1]


def test_changed_names_the_modules_not_yet_scored_and_runs_none_of_them(
    mutation: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    baseline = mutation.load_baseline()
    assert mutation.main(["--changed", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    named = {line.strip() for line in lines if line.startswith("  ")}
    selected = {line for line in lines if line.startswith("src/")}
    assert named == set(mutation.unscored_modules(baseline))
    assert selected == set(mutation.unrecorded_modules(baseline))
    assert not named & selected


def test_every_module_of_the_table_exists_and_maps_existing_tests(mutation: ModuleType) -> None:
    for module, tests in mutation.MODULES.items():
        assert (ROOT / module).is_file(), module
        assert tests, module
        for test in tests:
            assert (ROOT / test.partition("::")[0]).is_file(), (module, test)


def test_record_keeps_complete_runs_only(mutation: ModuleType, tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    claim, policy = list(mutation.MODULES)[:2]
    done = score(mutation, module=claim, killed=95, survived=5, seconds=12.5)
    cut = score(mutation, module=policy, killed=10, not_run=90, cut=True)
    assert mutation.record([done, cut], path) == [claim]
    recorded = mutation.load_baseline(path)
    assert set(recorded) == {claim}
    assert recorded[claim]["fingerprint"] == mutation._fingerprint(claim)
    assert (recorded[claim]["killed"], recorded[claim]["survived"]) == (95, 5)
    assert claim not in mutation.unrecorded_modules(recorded)


def test_a_complete_run_fails_below_the_target_only(mutation: ModuleType) -> None:
    assert score(mutation, killed=90, survived=10).passes
    assert not score(mutation, killed=89, survived=11).passes
    assert not score(mutation, killed=89, survived=1, other=10).passes  # timeouts are not kills
    assert score(mutation, killed=89, survived=1, equivalent=10).passes  # 89 of 90


def test_a_cut_run_fails_only_when_the_target_is_already_out_of_reach(
    mutation: ModuleType,
) -> None:
    # 100 mutants, 10 equivalent: at most 9 may be left alive over the whole module.
    early = score(mutation, equivalent=10, killed=1, survived=2, not_run=87, cut=True)
    assert early.rate < mutation.TARGET and early.passes  # the rest may all be killed
    worse = score(mutation, equivalent=10, killed=1, survived=9, not_run=80, cut=True)
    assert worse.passes
    lost = score(mutation, equivalent=10, killed=1, survived=8, other=2, not_run=79, cut=True)
    assert not lost.passes
    table = mutation.table([early, lost])
    assert table.count("over the mutants run (stopped by the time limit)") == 2
    assert "| 87 |" in table and "(below target)" in table.splitlines()[3]
    nothing = score(mutation, generated=0, killed=0, cut=True)
    none_ran = score(mutation, generated=19, killed=0, not_run=19, cut=True)
    for cut in (nothing, none_ran):
        assert cut.passes
        assert "| stopped by the time limit before any mutant ran |" in mutation.table([cut])


def test_a_spent_budget_starts_no_module_and_says_so(
    mutation: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    assert mutation.main(["--fresh", "--budget", "0"]) == 0
    out = capsys.readouterr().out
    for module in mutation.MODULES:
        assert f"{module}: not started, the budget of 0 s is spent" in out
        assert f"| `{mutation._slug(module)}` | | | | | | all | not started: budget spent |" in out


def test_the_time_limit_ends_the_whole_process_group(mutation: ModuleType, tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    # A parent that ignores the interrupt and leaves a grandchild: both must end.
    script = (
        "import os, signal, subprocess, sys, time\n"
        "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"open({str(pids)!r}, 'w').write(str(child.pid))\n"
        "print('started', flush=True)\n"
        "time.sleep(60)\n"
    )
    started = time.monotonic()
    out, cut = mutation.run_limited(
        [sys.executable, "-c", script], cwd=tmp_path, env=dict(os.environ), limit=1.0, grace=0.5
    )
    assert cut and "started" in out
    assert time.monotonic() - started < 10  # the interrupt's grace, then a kill
    grandchild = int(pids.read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _alive(grandchild):
        time.sleep(0.05)
    assert not _alive(grandchild)
    assert mutation.run_limited(
        [sys.executable, "-c", "print('done')"], cwd=tmp_path, env=dict(os.environ), limit=30
    ) == ("done\n", False)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        return stat.read().split(") ")[1][0] != "Z"  # a zombie has ended
