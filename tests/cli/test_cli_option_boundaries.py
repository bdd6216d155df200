"""The CLI's options and exit codes, boundary by boundary (docs/cli.md), through `main` as the
``toolrig`` command runs it.

The promise: exit 0 when the command did what was asked, 1 when a tool call, plan or check
failed, 2 when the command was used wrongly or its input cannot be read; ``--json`` changes
what is printed, never the exit code; an error is one line on stderr starting
``toolrig COMMAND:``; ``key=value`` gives text (converted as a model's text would be, refused
under ``--strict``), ``key:=JSON`` a JSON value, ``--args`` a whole object whose keys the
pairs override; reading a log never creates one; ``search`` exits 1 when nothing fits.

| promise | boundary | test |
|---|---|---|
| exit codes | a call that succeeds (0), fails in the tool (1), names no tool (1) | `..._outcome` |
| `--json` | each outcome above: the same code, the result as JSON on stdout | `..._outcome` |
| `key=value` | text converted for an integer; an empty value is the empty text | `..._forms` |
| `--strict` | the same text refused (exit 1, `invalid_arguments`); JSON passes | `..._forms` |
| `key:=JSON` | a JSON value kept as JSON (a list holding `null`) | `..._forms` |
| pair shapes | no `=`; `=v`, `:=v` (no key); `k:=x` not JSON: exit 2, one line | `..._exit_2` |
| `--args` | not JSON; JSON but a list or a text: exit 2, one line | `..._exit_2` |
| `--args` + pairs | a pair overrides the object's key; its other keys stay | `..._args` |
| inputs | no such catalogue path (one line); unparsable YAML (file:line) | `..._catalogue_...` |
| reading a log | `query`, `tail`, `summary` of no log: exit 2, no file created | `..._nothing` |
| usage | an unknown option (argparse, exit 2); no command at all (help, exit 2) | `..._usage_...` |
| search `-k` | 0 refused (exit 2); 1 gives one hit | `..._found` |
| numbers | each command's count, port and seconds past its bound: exit 2, one line | `..._bound` |
| search, no fit | exit 1, as a table and with `--json` (`[]`) | `..._found` |
| search filters | `--type`, `--layer`, `--tag` once, twice (any); `--type` + tag | `..._library` |
| search filters | a value no tool has: exit 1, `[]`; each as the library filters | `..._library` |

Breaks tried (each made the named test fail, then was undone): ``run_call`` returning
``EXIT_OK`` whatever the result (``..._outcome``); ``parse_arguments`` accepting ``:=v``
with an empty key (``..._exit_2``); pairs applied before ``--args`` (``..._override_args``);
``run_search_command`` returning 0 for ``--json`` without hits (``..._nothing_found``);
``--tag`` passed as ``match="all"`` (``..._library``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolrig.cli.main import main

CATALOG = str(Path(__file__).resolve().parents[2] / "examples" / "catalog")

TOOLS_PY = '''
from toolrig import tool


@tool
def add(a: int, b: int = 0) -> int:
    """Add two integers."""
    return a + b


@tool
def echo(value: object = None, other: object = None) -> dict:
    """Give back what it was called with."""
    return {"value": value, "other": other}


@tool
def fail() -> str:
    """Always fails."""
    raise ValueError("no luck")


tools = [add, echo, fail]
'''


@pytest.fixture
def tools_py(tmp_path: Path) -> str:
    path = tmp_path / "option_tools.py"
    path.write_text(TOOLS_PY, encoding="utf-8")
    return str(path)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exited:  # argparse refused the command line: usage, then one line
        code = exited.code if isinstance(exited.code, int) else 2
    seen = capsys.readouterr()
    return code, seen.out, seen.err


@pytest.mark.parametrize(
    ("call", "code", "error"),
    [
        (["add", "a=2", "b=40"], 0, None),
        (["fail"], 1, "execution_error"),
        (["no_such_tool"], 1, "not_found"),
    ],
)
def test_exit_code_of_each_outcome(
    capsys: pytest.CaptureFixture[str], tools_py: str, call: list[str], code: int, error: str | None
) -> None:
    got, out, err = run(capsys, "call", *call, "--catalog", tools_py)
    assert got == code and err == ""
    got, out, err = run(capsys, "call", *call, "--catalog", tools_py, "--json")
    result = json.loads(out)
    assert got == code and err == ""
    assert result["success"] is (code == 0)
    assert (result["error"] or {}).get("code") == error


def test_pair_forms(capsys: pytest.CaptureFixture[str], tools_py: str) -> None:
    code, out, _ = run(capsys, "call", "add", "a=2", "b=40", "--catalog", tools_py, "--json")
    assert code == 0 and json.loads(out)["output"] == 42  # "2" and "40" converted
    code, out, _ = run(capsys, "call", "add", "a=2", "--strict", "--catalog", tools_py, "--json")
    assert code == 1 and json.loads(out)["error"]["code"] == "invalid_arguments"
    code, out, _ = run(capsys, "call", "add", "a:=2", "--strict", "--catalog", tools_py, "--json")
    assert code == 0 and json.loads(out)["output"] == 2  # JSON needs no converting
    code, out, _ = run(
        capsys, "call", "echo", "value=", "other:=[1, null]", "--catalog", tools_py, "--json"
    )
    assert code == 0 and json.loads(out)["output"] == {"value": "", "other": [1, None]}


@pytest.mark.parametrize(
    "argv",
    [
        ["call", "add", "a"],
        ["call", "add", "=3"],
        ["call", "add", ":=3"],
        ["call", "add", "a:=x"],
        ["call", "add", "--args", "{bad"],
        ["call", "add", "--args", "[1]"],
        ["call", "add", "--args", '"text"'],
    ],
)
def test_each_unreadable_argument_is_one_line_exit_2(
    capsys: pytest.CaptureFixture[str], tools_py: str, argv: list[str]
) -> None:
    code, out, err = run(capsys, *argv, "--catalog", tools_py)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("toolrig call: ")


@pytest.mark.parametrize("broken", ["missing", "unparsable"])
def test_unreadable_catalogue_is_one_line_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, broken: str
) -> None:
    path = tmp_path / "tools.yaml"
    if broken == "unparsable":
        path.write_text("tools: [unclosed\n", encoding="utf-8")
    code, out, err = run(capsys, "call", "add", "--catalog", str(path))
    lines = err.strip().splitlines()
    assert code == 2 and out == "" and "Traceback" not in err
    assert lines and all(line.startswith("toolrig call: ") for line in lines)
    if broken == "unparsable":  # printed with its file and line
        assert f"{path}:2:" in err
    else:
        assert len(lines) == 1 and "no such file" in err


def test_pairs_override_args(capsys: pytest.CaptureFixture[str], tools_py: str) -> None:
    code, out, _ = run(
        capsys,
        "call",
        "echo",
        "--args",
        '{"value": 1, "other": 2}',
        "value:=3",
        "--catalog",
        tools_py,
        "--json",
    )
    assert code == 0 and json.loads(out)["output"] == {"value": 3, "other": 2}


def test_reading_a_missing_log_creates_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for argv in (["log", "query"], ["log", "tail"], ["log", "summary"]):
        path = tmp_path / "absent.sqlite3"
        code, out, err = run(capsys, *argv, "--log", str(path))
        assert code == 2 and out == "" and err.startswith("toolrig log: ")
        assert not path.exists()


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["call", "add", "a=1", "--no-such-option"])
    assert exited.value.code == 2
    assert "unrecognized arguments: --no-such-option" in capsys.readouterr().err
    assert main([]) == 2
    assert "Exit codes" in capsys.readouterr().out


def test_search_k_and_nothing_found(capsys: pytest.CaptureFixture[str]) -> None:
    lexical = ["search", "--catalog", CATALOG, "--mode", "lexical"]
    code, _, err = run(capsys, *lexical, "-k", "0", "stock")
    assert code == 2
    assert (
        err
        == "toolrig search: argument -k: must be at least 1, not 0 (see toolrig search --help)\n"
    )
    code, out, _ = run(capsys, *lexical, "-k", "1", "--json", "stock of the kettle")
    assert code == 0 and len(json.loads(out)) == 1
    code, out, _ = run(capsys, *lexical, "zzyzx qwertyuiop")
    assert code == 1 and "no tool fits" in out
    code, out, _ = run(capsys, *lexical, "--json", "zzyzx qwertyuiop")
    assert code == 1 and json.loads(out) == []


@pytest.mark.parametrize(
    ("options", "filters"),
    [
        (["--type", "analysis"], {"type": "analysis"}),
        (["--layer", "nlp"], {"layer": "nlp"}),
        (["--tag", "nlp"], {"tags": ["nlp"]}),
        (["--tag", "nlp", "--tag", "inventory"], {"tags": ["nlp", "inventory"]}),
        (["--type", "analysis", "--tag", "seo"], {"type": "analysis", "tags": ["seo"]}),
        (["--layer", "no-such-layer"], {"layer": "no-such-layer"}),
    ],
)
def test_search_filters_are_the_library_s(
    capsys: pytest.CaptureFixture[str], options: list[str], filters: dict[str, object]
) -> None:
    from toolrig.registry import Registry
    from toolrig.search import ToolIndex

    query = "data text market reviews"
    argv = ["search", "--catalog", CATALOG, "--mode", "lexical", "--tools", "-k", "30"]
    code, out, _ = run(capsys, *argv, *options, "--json", query)
    registry = Registry()
    registry.load(CATALOG)
    index = ToolIndex(registry.specs(), embedders=())
    wanted = index.search(query, k=30, filters=filters, mode="lexical", group="tool")
    assert [h["name"] for h in json.loads(out)] == [h.name for h in wanted]
    assert code == (0 if wanted else 1)
    if "--tag" in options and len(filters.get("tags", [])) == 2:  # type: ignore[arg-type]
        assert len(wanted) > len(index.search(query, k=30, filters={"tags": ["inventory"]}))


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["console", "--port", "65536"], "--port: must be 0 to 65535, not 65536"),
        (["serve", "--port", "-1"], "--port: must be 0 to 65535, not -1"),
        (["serve", "--head-timeout", "nan"], "--head-timeout: must be a positive number"),
        (["serve", "--max-connections", "0"], "--max-connections: must be at least 1, not 0"),
        (["serve", "--workers", "0"], "--workers: must be at least 1, not 0"),
        (["worker", "--concurrency", "0"], "--concurrency: must be at least 1, not 0"),
        (["call", "add", "--timeout", "inf"], "--timeout: must be a positive number"),
        (["call", "add", "--timeout", "0"], "--timeout: must be a positive number"),
        (["agent", "hi", "--max-tool-calls", "0"], "--max-tool-calls: must be at least 1"),
        (["agent", "hi", "--max-tokens", "-1"], "--max-tokens: must be at least 1, not -1"),
        (["agent", "hi", "--max-steps", "two"], "--max-steps: 'two' is not a whole number"),
    ],
)
def test_a_number_past_its_bound(
    capsys: pytest.CaptureFixture[str], argv: list[str], said: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith(f"toolrig {argv[0]}: argument ") and err.count("\n") == 1, err
    assert said in err
