"""``toolrig validate``: every problem of catalogues and plans with its file and line, and a
non-zero exit on any, including executors that cannot be imported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_runner import CATALOG, EXAMPLES, PLAN, one_line_error, toolrig

GOOD = """\
name: greet
description: Greets someone.
parameters:
  - {name: who, type: string, required: true}
executor: greetings.greet
"""


def _catalog(tmp_path: Path) -> Path:
    (tmp_path / "code").mkdir()
    (tmp_path / "code" / "greetings.py").write_text(
        "def greet(who: str) -> str:\n    return f'Hello, {who}!'\n", encoding="utf-8"
    )
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "greet.yaml").write_text(GOOD, encoding="utf-8")
    return tmp_path / "tools"


def test_the_example_catalogue_and_plan_are_valid() -> None:
    done = toolrig("validate", CATALOG, PLAN, "--import-path", EXAMPLES)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ok: 16 tools, 1 plan, no problems" in done.stdout


def test_an_executor_that_cannot_be_imported_is_a_problem_at_its_line(tmp_path: Path) -> None:
    tools = _catalog(tmp_path)
    (tools / "broken.yaml").write_text(
        "name: broken\ndescription: Its code is missing.\nexecutor: greetings.nothing_here\n",
        encoding="utf-8",
    )
    (tools / "gone.yaml").write_text(
        "name: gone\ndescription: Its module is missing.\nexecutor: no_such_module.run\n",
        encoding="utf-8",
    )
    done = toolrig("validate", tools, "--import-path", tmp_path / "code")
    assert done.returncode == 1
    assert f"{tools / 'broken.yaml'}:3: executor 'greetings.nothing_here'" in done.stdout
    assert f"{tools / 'gone.yaml'}:3: executor 'no_such_module.run'" in done.stdout
    assert "2 problems (3 tools, 0 plans)" in done.stdout
    # without the import path even the good executor cannot be imported
    done = toolrig("validate", tools)
    assert done.returncode == 1 and "greetings.greet" in done.stdout


def test_an_executor_whose_module_raises_is_a_problem(tmp_path: Path) -> None:
    tools = _catalog(tmp_path)
    (tmp_path / "code" / "greetings.py").write_text("raise RuntimeError('no config')\n")
    done = toolrig("validate", tools, "--import-path", tmp_path / "code", "--json")
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert report["ok"] is False and report["tools"] == ["greet"]
    (problem,) = report["problems"]
    assert problem["line"] == 5 and problem["tool"] == "greet"
    assert "failed to import: RuntimeError: no config" in problem["message"]


def test_definition_errors_name_file_line_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "name: bad\n"
        "description: Broken parameters.\n"
        "parameters:\n"
        "  - {name: n, type: integer, min: 5, max: 1}\n"
        "  - {name: m, type: intger}\n",
        encoding="utf-8",
    )
    done = toolrig("validate", bad)
    assert done.returncode == 1
    lines = [line for line in done.stdout.splitlines() if line.startswith(str(bad))]
    assert lines and all(line.startswith(f"{bad}:") for line in lines)
    assert any(line.startswith(f"{bad}:5: parameters[1]") for line in lines), done.stdout


def test_plan_problems_point_at_their_step(tmp_path: Path) -> None:
    tools = _catalog(tmp_path)
    plan = tmp_path / "plan.yaml"
    plan.write_text(
        "id: hello\n"
        "steps:\n"
        "  - {id: first, tool: greet, params: {who: Ada}}\n"
        "  - id: second\n"
        "    tool: greeet\n"
        "  - {id: third, tool: greet, params: {who: '${nowhere.output}'}}\n",
        encoding="utf-8",
    )
    done = toolrig("validate", tools, plan, "--import-path", tmp_path / "code")
    assert done.returncode == 1
    assert f"{plan}:4: step 'second': Tool 'greeet' not found. Did you mean 'greet'?" in (
        done.stdout
    )
    assert f"{plan}:6: step 'third' refers to step 'nowhere'" in done.stdout


def test_a_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    done = toolrig("validate", tmp_path / "nope.yaml")
    assert done.returncode == 2
    assert "no such file or folder" in one_line_error(done, "validate")


def _deep(depth: int) -> str:
    return (
        "steps:\n  - id: a\n    tool: echo\n    params: {text: " + "[" * depth + "]" * depth + "}\n"
    )


LAUGHS = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{n}: &{n} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
    for p, n in zip("abcdefgh", "bcdefghi", strict=True)
)


@pytest.mark.parametrize("name", ["deep", "laughs"])
def test_a_hostile_file_is_one_problem_not_a_traceback(tmp_path: Path, name: str) -> None:
    """A file 100,000 levels deep, or of aliases that expand to 387 million strings, is told
    apart from a plan without expanding it (it was read with ``yaml.safe_load``: a traceback,
    or memory without bound)."""
    path = tmp_path / f"{name}.yaml"
    path.write_text(_deep(100_000) if name == "deep" else LAUGHS, encoding="utf-8")
    done = toolrig("validate", str(path))
    said = done.stdout + done.stderr
    assert done.returncode == 1, said
    assert "Traceback" not in said and f"{path}:" in said and "1 problem" in said
