"""What ``toolrig call`` reads and shows people, boundary by boundary.

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
| a pair | split at the first ``=``; JSON holding ``=``; an empty value | `..._first_equals_..` |
| ``--args`` | not an object: the error names its JSON type | `..._name_what_they_are` |
| not JSON | `NaN`, `Infinity`, 20,000 deep (pair, `--args`): exit 2, quoted short | `..._json*` |
| a broker | ``--broker``, ``TOOLRIG_BROKER``: a queued tool runs on its queue | `..._its_queue` |

Breaks tried (each made the named test fail, then was undone): the title aligned right
(``..._title_...``); ``Text`` replaced by the JSON branch for text (``..._text_output_...``);
both borders green (``..._colour_...``); ``ensure_ascii=True`` (``..._json_...``); ``rpartition``
for ``partition`` (``..._first_equals_sign``); the broker not attached (``..._to_its_queue``).
"""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

import pytest
from cli_runner import ROOT, toolrig

from toolrig import BaseTool, ToolExecutor, action, tool
from toolrig.cli._call_cmd import parse_arguments, print_result
from toolrig.cli._output import CliError
from toolrig.core.result._result import ToolResult

BROKER = "redis://127.0.0.1:6379/6"


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


# -- the arguments and the broker (``parse_arguments``, ``run_call``) ---------------------------


def test_a_pair_splits_at_its_first_equals_sign() -> None:
    assert parse_arguments(["query=a=b", "n:=1", 'expr:="x=y"'], None) == {
        "query": "a=b",
        "n": 1,
        "expr": "x=y",
    }
    assert parse_arguments(["text="], '{"text": "over", "k": 2}') == {"text": "", "k": 2}


@pytest.mark.parametrize(("given", "kind"), [("[1]", "list"), ("3", "int"), ('"s"', "str")])
def test_args_that_are_not_an_object_name_what_they_are(given: str, kind: str) -> None:
    with pytest.raises(CliError, match=rf"^--args must be a JSON object, got {kind}$"):
        parse_arguments([], given)


DEEP = "[" * 20_000 + "]" * 20_000
"""JSON nested past the decoder's recursion (it raised ``RecursionError``: a traceback)."""


@pytest.mark.parametrize(
    ("pairs", "given", "says"),
    [
        (["a:=NaN"], None, "argument 'a': 'NaN' is not JSON (NaN is not JSON)"),
        ([], '{"a": Infinity}', "--args is not JSON: Infinity is not JSON"),
        ([], DEEP, "--args is not JSON: JSON text nested too deeply"),
        (
            [f"a:={DEEP}"],
            None,
            f"argument 'a': {'[' * 60!r}... (40,000 characters) is not JSON (JSON text nested "
            "too deeply)",
        ),
        (["a:=" + "x" * 60], None, f"argument 'a': {'x' * 60!r} is not JSON"),
    ],
)
def test_json_that_is_not_json_is_refused_and_quoted_short(
    pairs: list[str], given: str | None, says: str
) -> None:
    with pytest.raises(CliError) as refused:
        parse_arguments(pairs, given)
    assert str(refused.value).startswith(says), str(refused.value)[:300]


def test_deep_json_on_the_command_line_exits_2() -> None:
    done = toolrig("call", "add", f"a:={DEEP}")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "JSON text nested too deeply" in done.stderr


@pytest.mark.parametrize("where", ["option", "environment"])
def test_a_broker_sends_the_call_to_its_queue(where: str, tmp_path: Path) -> None:
    """With ``--broker`` (or ``TOOLRIG_BROKER``) a tool that names a queue runs there; no worker
    serves this queue, so the call times out saying so, its result marked remote."""
    import redis

    queue = f"nobody-{uuid.uuid4().hex[:8]}"
    text = (ROOT / "examples/remote/keyword_extractor.yaml").read_text(encoding="utf-8")
    (tmp_path / "keyword_extractor.yaml").write_text(
        text.replace("runs_on: analysis", f"runs_on: {queue}"), encoding="utf-8"
    )
    call = ["call", "keyword_extractor", 'text_data:=["a b"]', "--catalog", str(tmp_path),
            "--import-path", str(ROOT / "examples"), "--timeout", "1", "--json"]  # fmt: skip
    try:
        if where == "option":
            done = toolrig(*call, "--broker", BROKER)
        else:
            done = toolrig(*call, TOOLRIG_BROKER=BROKER)
    finally:
        redis.Redis.from_url(BROKER).delete(queue)
    assert done.returncode == 1, done.stderr
    result = json.loads(done.stdout)
    assert result["error"]["code"] == "timeout"
    assert f"no worker of queue '{queue}' answered" in result["error"]["message"]
    assert result["metadata"]["extra"]["remote"]["queue"] == queue
