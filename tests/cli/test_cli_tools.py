"""``toolrig list`` and ``toolrig show`` through the real command."""

from __future__ import annotations

import json

from cli_runner import CATALOG, EXAMPLES, one_line_error, toolrig


def test_list_shows_every_call_name_of_the_demo_tools() -> None:
    done = toolrig("list")
    assert done.returncode == 0, done.stderr
    for name in ("add", "search", "notes.add", "notes.read", "notes.delete", "shout"):
        assert name in done.stdout
    assert "4 tools, 6 call names" in done.stdout
    assert "destructive" in done.stdout and "read-only" in done.stdout


def test_list_json_over_a_catalogue_with_filters() -> None:
    done = toolrig("list", "--catalog", CATALOG, "--type", "analysis", "--json")
    assert done.returncode == 0, done.stderr
    entries = json.loads(done.stdout)
    names = {e["name"] for e in entries}
    assert "sentiment_analyzer" in names and "inventory_manager.check_stock" not in names
    first = entries[0]
    assert set(first) >= {"name", "tool", "action", "description", "parameters", "source"}
    assert first["source"].endswith(".yaml")


def test_a_missing_catalogue_is_one_line_and_exit_2() -> None:
    done = toolrig("list", "--catalog", "/nonexistent/tools")
    assert done.returncode == 2
    line = one_line_error(done, "list")
    assert "'/nonexistent/tools': no such file or folder" in line
    assert done.stdout == ""


def test_show_prints_options_schema_and_the_prompt_text_once() -> None:
    done = toolrig("show", "add")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "JSON Schema" in out and "what the model reads" in out
    assert "First addend." in out
    # "When to use" is said once in the prompt (the tool and its one action share it)
    assert out.count("When to use: When numbers must be added exactly.") == 1


def test_show_json_and_a_call_name_of_a_multi_action_tool() -> None:
    done = toolrig(
        "inspect",
        "inventory_manager.check_stock",
        "--catalog",
        CATALOG,
        "--import-path",
        EXAMPLES,
        "--json",
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["name"] == "inventory_manager"
    assert "inventory_manager.check_stock" in data["call_names"]
    assert data["source"].endswith(".yaml") and data["prompt"].startswith("### inventory_manager")


def test_show_an_unknown_tool_says_what_a_model_would_read() -> None:
    done = toolrig("show", "ad")
    assert done.returncode == 2
    line = one_line_error(done, "show")
    assert "Tool 'ad' not found. Did you mean 'add'" in line
