"""``toolrig plan``: the rough edges a user met, through the real command."""

from __future__ import annotations

from pathlib import Path

from cli_runner import CATALOG, EXAMPLES, PLAN, one_line_error, toolrig


def test_check_fails_when_an_executor_cannot_be_imported() -> None:
    # without --import-path the example executors (examples/review_tools) cannot be imported
    done = toolrig("plan", "check", PLAN, "--catalog", CATALOG)
    assert done.returncode == 1
    assert "executor 'review_tools." in done.stdout and "was not found" in done.stdout
    done = toolrig("plan", "check", PLAN, "--catalog", CATALOG, "--import-path", EXAMPLES)
    assert done.returncode == 0, done.stdout


def test_a_missing_catalogue_is_an_error_not_eight_not_found_lines() -> None:
    done = toolrig("plan", "check", PLAN, "--catalog", "examples/no-such-catalog")
    assert done.returncode == 2
    line = one_line_error(done, "plan")
    assert "--catalog 'examples/no-such-catalog': no such file or folder" in line
    assert "not found" not in done.stdout


def test_rich_markup_in_plan_text_is_printed_as_written(tmp_path: Path) -> None:
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "echo.yaml").write_text(
        "name: echo\ndescription: Echoes.\n"
        "parameters:\n  - {name: text, type: string, required: true}\n"
        "executor: echo_code.echo\n",
        encoding="utf-8",
    )
    (tmp_path / "echo_code.py").write_text("def echo(text: str) -> str:\n    return text\n")
    plan = tmp_path / "plan.yaml"
    plan.write_text(
        "steps:\n"
        "  - {id: loud, tool: echo, params: {text: '[bold]not bold[/bold] and [not_found]'}}\n",
        encoding="utf-8",
    )
    log = tmp_path / "log.sqlite3"
    args = ["--catalog", tools, "--import-path", tmp_path, "--log", log, "--no-progress"]
    done = toolrig("plan", "run", plan, *args)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "[bold]not bold[/bold] and [not_found]" in done.stdout
    bad = tmp_path / "bad.yaml"
    bad.write_text("steps:\n  - {id: a, tool: '[red]x'}\n", encoding="utf-8")
    done = toolrig("plan", "check", bad, *args)
    assert done.returncode == 1
    assert "Tool '[red]x' not found" in done.stdout
