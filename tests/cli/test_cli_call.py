"""``toolrig call`` through the real command: results, errors as a model reads them, exit
codes."""

from __future__ import annotations

import json
from pathlib import Path

from cli_runner import one_line_error, toolrig


def test_a_good_call_prints_its_output_and_exits_0() -> None:
    done = toolrig("call", "add", "a=2", "b=40")  # text, converted as a model's "40" would be
    assert done.returncode == 0, done.stderr
    assert "ok add" in done.stdout and "42" in done.stdout


def test_json_values_and_the_args_object() -> None:
    done = toolrig("call", "search", "--args", '{"query": "file sql"}', "max_results:=1", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["success"] is True and result["output"] == ["file_tool"]
    assert result["metadata"]["tool"] == "search"


def test_a_bad_call_exits_1_with_the_error_a_model_reads() -> None:
    done = toolrig("call", "add", "a=two", "bb=3")
    assert done.returncode == 1
    assert "Error [invalid_arguments]: Invalid arguments for `add`: 3 problems." in done.stdout
    assert "did you mean `b`?" in done.stdout
    assert "Hint: Fix the arguments" in done.stdout


def test_a_tool_error_keeps_its_code_and_hint_in_json() -> None:
    done = toolrig("call", "notes.read", "note_id:=7", "--json")
    assert done.returncode == 1
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "not_found" and error["message"] == "no note 7"


def test_unreadable_arguments_exit_2_before_any_call() -> None:
    for args, expected in (
        (["--args", "{a: 1}"], "--args is not JSON"),
        (["--args", "[1]"], "--args must be a JSON object"),
        (["a:=two"], "argument 'a': 'two' is not JSON"),
        (["justtext"], "write key=value or key:=JSON"),
    ):
        done = toolrig("call", "add", *args)
        assert done.returncode == 2, args
        assert expected in one_line_error(done, "call")


def test_did_you_mean_keeps_names_with_double_underscores(tmp_path: Path) -> None:
    """Tools imported from an MCP server are named ``prefix__tool``: the "did you mean" list
    and the list of available tools keep them."""
    for name in ("gh__search_issues", "gh__create_issue"):
        (tmp_path / f"{name}.yaml").write_text(
            f"name: {name}\ndescription: A remote tool.\n"
            "parameters:\n  - {name: q, type: string, required: true}\n",
            encoding="utf-8",
        )
    done = toolrig("call", "gh__search_issue", "q=x", "--catalog", tmp_path, "--json")
    assert done.returncode == 1
    message = json.loads(done.stdout)["error"]["message"]
    assert "Did you mean 'gh__search_issues'" in message
    assert message.endswith("Available tools: gh__create_issue, gh__search_issues.")
