"""The entry point's promises (``toolrig.cli.main``), boundary by boundary: how a command's
outcome becomes the exit code and what is printed, whatever the command.

| promise | boundary | test |
|---|---|---|
| one way to fail | a `CliError` of several lines: one stderr line, its code kept | `..._line` |
| interrupted | Ctrl-C in a command: exit 130, nothing printed | `..._130` |
| reader gone | a broken pipe: exit 1, quiet, stdout then goes nowhere | `..._quietly` |
| `call` pairs | a pair after an option is a pair; an unknown option first: exit 2 | `..._option` |
| unknown extra | an option or a word, any command but `call`: usage error, exit 2 | `..._command` |
| usage errors | no such command, a bad value, an extra, a missing argument: one line | `..._line` |
| no command | the help (usage `toolrig ... COMMAND`, exit codes) on stdout, exit 2 | `..._help` |
| `--version` | `toolrig VERSION` on stdout, exit 0 | `..._version` |
| completion | the script is built from the whole parser (every command) | `..._help` |

Breaks tried (each made the named test fail, then was undone): the message printed as it is
(``..._line``); ``KeyboardInterrupt`` returning 1 (``..._130``); the broken pipe's ``dup2``
left out (``..._quietly``); extras after the pairs refused (``..._option``); extras of
``list`` taken as pairs (``..._command``); the completion built without the root parser, the
subcommands' metavar in lower case (``..._help``).
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import pytest

from toolrig import __version__
from toolrig.cli import _call_cmd
from toolrig.cli._output import CliError
from toolrig.cli.main import main

ADD_PY = '''
from toolrig import tool


@tool
def add(a: int, b: int = 0) -> int:
    """Add two integers."""
    return a + b


tools = [add]
'''


def _call_raising(monkeypatch: pytest.MonkeyPatch, exc: BaseException) -> None:
    """``toolrig call`` whose handler raises ``exc`` (the parser reads the handler when built)."""

    def handler(args: argparse.Namespace) -> int:
        raise exc

    monkeypatch.setattr(_call_cmd, "run_call", handler)


def test_a_cli_error_is_one_line_and_keeps_its_code(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _call_raising(monkeypatch, CliError("the driver said:\n  no such\ttable  ", code=1))
    assert main(["call", "x"]) == 1
    seen = capsys.readouterr()
    assert seen.err == "toolrig call: the driver said: no such table\n" and seen.out == ""


def test_an_interrupt_exits_130(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _call_raising(monkeypatch, KeyboardInterrupt())
    assert main(["call", "x"]) == 130
    assert capsys.readouterr() == ("", "")


def test_a_broken_pipe_exits_1_quietly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _call_raising(monkeypatch, BrokenPipeError())
    with (tmp_path / "out").open("w", encoding="utf-8") as out:
        monkeypatch.setattr("sys.stdout", out)
        assert main(["call", "x"]) == 1
        os.write(out.fileno(), b"after")  # Python's flush at exit must not fail again
    assert (tmp_path / "out").read_text(encoding="utf-8") == ""
    assert capsys.readouterr().err == ""


def test_call_pairs_after_an_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "add_tools.py").write_text(ADD_PY, encoding="utf-8")
    argv = ["call", "add", "a=2", "--catalog", str(tmp_path / "add_tools.py"), "--json"]
    assert main([*argv, "b=40"]) == 0
    assert json.loads(capsys.readouterr().out)["output"] == 42
    with pytest.raises(SystemExit) as info:
        main([*argv, "--no-such", "b=40"])
    assert info.value.code == 2
    assert capsys.readouterr().err == (
        "toolrig call: unrecognized arguments: --no-such b=40 (see toolrig call --help)\n"
    )


@pytest.mark.parametrize("extra", ["--no-such", "stray"])
def test_an_unknown_option_of_any_command(capsys: pytest.CaptureFixture[str], extra: str) -> None:
    with pytest.raises(SystemExit) as info:
        main(["list", extra])
    assert info.value.code == 2
    assert capsys.readouterr().err == (
        f"toolrig list: unrecognized arguments: {extra} (see toolrig list --help)\n"
    )


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (["nosuch"], "toolrig: argument COMMAND: invalid choice: 'nosuch'"),
        (["log", "query", "--limit", "0"], "toolrig log query: argument --limit: must be at"),
        (["log", "tail", "--nope"], "toolrig log: unrecognized arguments: --nope (see toolrig"),
        (["call"], "toolrig call: the following arguments are required: TOOL"),
    ],
)
def test_a_usage_error_is_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], line: str
) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(line) and err.count("\n") == 1, err


def test_no_command_prints_the_help(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "160")
    assert main([]) == 2
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "usage: toolrig [-h] [--version] COMMAND ..."
    assert lines[2] == (
        "The tool layer for LLM agents. Exit codes: 0 ok, 1 a tool call, plan or check "
        "failed, 2 usage or input error."
    )
    assert main(["completion", "bash"]) == 0
    script = capsys.readouterr().out
    assert all(f" {name} " in script for name in ("call", "list", "plan", "completion"))


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out == f"toolrig {__version__}\n"
