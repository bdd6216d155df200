"""What ``toolrig call`` shows people, boundary by boundary (``print_result``).

The promise (docs/cli.md): without ``--json`` a result is a panel — green, titled ``ok NAME``,
holding the output (text as it is, anything else as JSON with its characters kept), or red,
titled with the error code, holding the error exactly as a model reads it — with the call's
time and attempts under it. Markup in the output or the error is shown, never interpreted.

| promise | boundary | test |
|---|---|---|
| text output | as it is: not quoted, ``[b]`` not read as markup | `..._text_output_...` |
| other output | JSON, ``café`` not ``\\u00e9``; ``None`` is ``null`` | `..._json_...` |
| title | ``ok NAME`` at the top border's left; ``tool.action`` | `..._title_...` |
| footer | ``N.NN ms, attempts N`` at the bottom border's right | `..._footer_...` |
| failure | the code as title, the model's text as body, markup literal | `..._failure_...` |
| colour | green border and title for ok, red for a failure | `..._colour_...` |
| no metadata | a result made by hand: ``?`` as the name, no footer | `..._no_metadata` |
| no error info | a failed result without an error: titled ``error`` | `..._no_metadata` |

Breaks tried (each made the named test fail, then was undone): the title aligned right
(``..._title_...``); ``Text`` replaced by the JSON branch for text (``..._text_output_...``);
both borders green (``..._colour_...``); ``ensure_ascii=True`` (``..._json_...``).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from toolrig import BaseTool, ToolExecutor, action, tool
from toolrig.cli._call_cmd import print_result
from toolrig.core.result._result import ToolResult


@tool
def shout(text: str) -> str:
    """Give back the text."""
    return text


@tool
def describe(word: str) -> dict[str, Any]:
    """Give back a mapping."""
    return {"word": word, "n": 1}


@tool
def nothing() -> None:
    """Give back nothing."""


@tool
def refuse(text: str) -> str:
    """Fail with the text in the message."""
    raise ValueError(f"cannot take {text}")


class Notes(BaseTool):
    """Notes."""

    name = "notes"

    @action
    def read(self, note_id: int) -> str:
        """Read a note."""
        return f"note {note_id}"


def _call(name: str, arguments: dict[str, Any]) -> ToolResult:
    with ToolExecutor([shout, describe, nothing, refuse, Notes()]) as executor:
        return executor.execute_sync(name, arguments)


def _shown(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    result: ToolResult,
    *,
    colour: bool = False,
) -> list[str]:
    """The panel's lines, as a 100-column terminal shows them."""
    monkeypatch.setenv("COLUMNS", "100")
    if colour:
        monkeypatch.delenv("NO_COLOR", raising=False)
        monkeypatch.setenv("FORCE_COLOR", "1")
        monkeypatch.setenv("TERM", "xterm-256color")
    else:
        monkeypatch.setenv("NO_COLOR", "1")
        monkeypatch.delenv("FORCE_COLOR", raising=False)
    capsys.readouterr()
    print_result(result)
    return capsys.readouterr().out.splitlines()


def test_text_output_is_shown_as_it_is(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = _shown(capsys, monkeypatch, _call("shout", {"text": "a [b]c[/b] 'q'"}))
    body = [line.strip("│ ") for line in lines[1:-1]]
    assert body == ["a [b]c[/b] 'q'"]


def test_json_output_keeps_its_characters(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = "\n".join(_shown(capsys, monkeypatch, _call("describe", {"word": "café"})))
    assert '"word": "café"' in text and '"n": 1' in text and "\\u00e9" not in text
    nothing_shown = _shown(capsys, monkeypatch, _call("nothing", {}))
    assert [line.strip("│ ") for line in nothing_shown[1:-1]] == ["null"]


def test_title_names_the_call_at_the_left(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    top = _shown(capsys, monkeypatch, _call("shout", {"text": "x"}))[0]
    assert top.startswith("╭─ ok shout ─") and top.endswith("─╮")
    top = _shown(capsys, monkeypatch, _call("notes.read", {"note_id": 7}))[0]
    assert top.startswith("╭─ ok notes.read ─")


def test_footer_gives_time_and_attempts_at_the_right(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    bottom = _shown(capsys, monkeypatch, _call("shout", {"text": "x"}))[-1]
    assert re.fullmatch(r"╰─+ \d+\.\d\d ms, attempts 1 ─╯", bottom), bottom


def test_failure_shows_the_code_and_the_models_text(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    result = _call("refuse", {"text": "[red]x[/red]"})
    lines = _shown(capsys, monkeypatch, result)
    assert result.error is not None
    assert lines[0].startswith(f"╭─ {result.error.code} refuse ─")
    body = " ".join(line.strip("│ ") for line in lines[1:-1])
    assert body.startswith(f"Error [{result.error.code}]:")
    assert "[red]x[/red]" in body
    assert re.fullmatch(r"╰─+ \d+\.\d\d ms, attempts \d+ ─╯", lines[-1]), lines[-1]
    refused = _shown(capsys, monkeypatch, _call("shout", {}))
    assert refused[0].startswith("╭─ invalid_arguments shout ─")


def test_colour_says_ok_or_failed(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    green, red = "\x1b[32m", "\x1b[31m"
    ok = _shown(capsys, monkeypatch, _call("shout", {"text": "x"}), colour=True)
    assert ok[0].startswith(green + "╭─") and green in ok[-1] and red not in "".join(ok)
    assert "\x1b[1;32mok" in ok[0]
    failed = _shown(capsys, monkeypatch, _call("refuse", {"text": "x"}), colour=True)
    assert failed[0].startswith(red + "╭─") and red in failed[-1] and green not in "".join(failed)
    assert "\x1b[1;31m" in failed[0]


def test_a_hand_made_result_without_metadata(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = _shown(capsys, monkeypatch, ToolResult(success=True, output="hi"))
    assert lines[0].startswith("╭─ ok ? ─") and re.fullmatch("╰─+╯", lines[-1])
    lines = _shown(capsys, monkeypatch, ToolResult(success=False))
    assert lines[0].startswith("╭─ error ? ─")
