"""Adversarial suite, processes: getting around an allow-list of programs, shell syntax in
arguments, NUL characters, variables that were not passed, and children that try to outlive
the call (the escapes themselves are in ``test_tools_escapes``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolrig.tools import ShellTool


@pytest.fixture
def only_echo(tmp_path: Path) -> ShellTool:
    return ShellTool(tmp_path, allowed_programs=["echo"])


BYPASSES = [
    ["/bin/sh", "-c", "id"],
    ["sh", "-c", "id"],
    ["bash"],
    ["./echo"],
    ["../../bin/echo"],
    ["/usr/bin/env", "echo", "x"],
    ["env", "echo"],
    ["ECHO"],
    [" echo"],
    ["echo "],
    ["echo;id"],
    ["echo\tid"],
    ["python3", "-c", "print(1)"],
    ["/proc/self/exe"],
    ["xargs", "echo"],
    ["find", ".", "-exec", "id", ";"],
]


@pytest.mark.parametrize("command", BYPASSES, ids=[" ".join(c) for c in BYPASSES])
def test_the_allow_list_is_not_bypassed(only_echo: ShellTool, command: list[str]) -> None:
    result = only_echo.execute("execute", command=command)
    assert result.code == "permission_denied", (command, result)


LITERALS = [
    "$(id)",
    "`id`",
    "a; id",
    "a && id",
    "a | id",
    "a > /tmp/toolrig-never",
    "$HOME",
    "${PATH}",
    "*",
    "~",
    "'quoted'",
    '"double"',
    "\\n",
    "-e \\x41",
    "\n; id",
    "a\rb",
]


@pytest.mark.parametrize("argument", LITERALS)
def test_shell_syntax_in_an_argument_stays_text(only_echo: ShellTool, argument: str) -> None:
    out = only_echo.execute("execute", command=["echo", argument]).unwrap()
    assert out["stdout"] == argument + "\n"
    assert not os.path.exists("/tmp/toolrig-never")


@pytest.mark.parametrize("position", [0, 1, 2])
@pytest.mark.parametrize("nul", ["\x00", "a\x00", "\x00b", "a\x00b\x00"])
def test_a_nul_anywhere_is_invalid(tmp_path: Path, position: int, nul: str) -> None:
    command = ["echo", "one", "two"]
    command[position] = nul
    result = ShellTool(tmp_path).execute("execute", command=command)
    assert result.code == "invalid_arguments", (command, result)


def test_variables_not_passed_stay_hidden(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLRIG_TEST_SECRET_TOKEN", "hunter2")
    shell = ShellTool(tmp_path)  # `env` prints the environment (it may not be allow-listed)
    out = shell.execute("execute", command=["env"]).unwrap()
    assert "hunter2" not in out["stdout"] and "TOOLRIG_TEST_SECRET_TOKEN" not in out["stdout"]
