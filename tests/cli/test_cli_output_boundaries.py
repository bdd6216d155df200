"""What every command's output shares (``cli._output``), boundary by boundary.

| promise | boundary | test |
|---|---|---|
| JSON | indented by 2, characters kept (``café``), values made JSON | ``test_json_...`` |
| JSON's stream | stdout by default, else the file given (only it) | ``test_json_goes_...`` |
| consoles | results on stdout, progress on stderr; no highlighting | ``test_consoles_...`` |
| a warning | one line on stderr, prefixed with the command | ``test_a_warning_...`` |
| a usage error | exit 2 unless told otherwise | ``test_a_cli_error_...`` |

Breaks tried (each made the named test fail, then was undone): ``ensure_ascii=True``
(``test_json_...``); ``file=None`` (``test_json_goes_...``); ``highlight=True`` on either
console (``test_consoles_...``).
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from toolrig.cli._output import (
    EXIT_USAGE,
    CliError,
    err_console,
    out_console,
    print_json,
    warn,
)


def test_json_is_indented_and_keeps_its_characters(capsys: pytest.CaptureFixture[str]) -> None:
    print_json({"word": "café", "path": Path("a/b"), "n": [1]})
    assert capsys.readouterr().out == (
        '{\n  "word": "café",\n  "path": "a/b",\n  "n": [\n    1\n  ]\n}\n'
    )


def test_json_goes_to_stdout_or_to_the_file_given(capsys: pytest.CaptureFixture[str]) -> None:
    given = io.StringIO()
    print_json([1], file=given)
    assert given.getvalue() == "[\n  1\n]\n" and capsys.readouterr().out == ""
    print_json([2], file=None)
    assert capsys.readouterr().out == "[\n  2\n]\n"


def test_consoles_write_plain_words_on_their_streams(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")  # a terminal: highlighting would colour these
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    out_console().print("42 True None 'quoted' http://127.0.0.1/")
    err_console().print("7 False")
    got = capsys.readouterr()
    assert got.out == "42 True None 'quoted' http://127.0.0.1/\n"
    assert got.err == "7 False\n"


def test_a_warning_is_one_line_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    warn("call", "the log is read-only")
    got = capsys.readouterr()
    assert got.out == "" and got.err == "toolrig call: warning: the log is read-only\n"


def test_a_cli_error_exits_2_unless_told_otherwise() -> None:
    assert CliError("bad").code == EXIT_USAGE == 2
    error = CliError("failed", code=1)
    assert (error.code, error.message, str(error)) == (1, "failed", "failed")
