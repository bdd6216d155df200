"""``toolrig agent`` through the real command: a scripted run streamed, JSON events, approval
and denial across two processes, and usage errors."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from cli_runner import one_line_error, toolrig


def _script(tmp_path: Path, name: str, turns: list[Any]) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(turns), encoding="utf-8")
    return path


def _events(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def test_a_bad_call_is_corrected_after_the_error_and_the_run_streams(tmp_path: Path) -> None:
    script = _script(
        tmp_path,
        "turns.json",
        [
            {"calls": [["add", {"a": "two", "b": 3}]]},
            {"calls": [["add", {"a": 2, "b": 3}]]},
            {"text": "2 + 3 = 5"},
        ],
    )
    done = toolrig("agent", "add two and three", "--script", script)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    failed = next(i for i, line in enumerate(lines) if "invalid_arguments" in line)
    succeeded = next(i for i, line in enumerate(lines) if "✓ 5" in line)
    assert failed < succeeded
    assert "done (answer): 2 + 3 = 5" in done.stdout


def test_json_lines_tell_every_event_and_the_final_result(tmp_path: Path) -> None:
    script = _script(
        tmp_path, "turns.json", [{"calls": [["shout", {"text": "hi"}]]}, "It says HI."]
    )
    done = toolrig("agent", "shout hi", "--script", script, "--json")
    assert done.returncode == 0, done.stderr
    events = _events(done.stdout)
    kinds = [e["event"] for e in events]
    assert kinds[:2] == ["tool_call_started", "tool_call_finished"]
    assert events[1]["result"]["success"] is True and events[1]["result"]["output"] == "HI"
    assert "".join(e["text"] for e in events if e["event"] == "text") == "It says HI."
    final = events[-1]
    assert final["event"] == "final" and final["stop_reason"] == "answer"
    assert final["output"] == "It says HI."


def test_a_held_call_is_denied_from_a_second_process(tmp_path: Path) -> None:
    log = tmp_path / "log.db"
    first = _script(tmp_path, "first.json", [{"calls": [["notes.delete", {"note_id": 1}]]}])
    held = toolrig(
        "agent", "delete note 1", "--script", first, "--approve-destructive",
        "--log", log, "--session", "s-1", "--json",
    )  # fmt: skip
    assert held.returncode == 1, held.stderr
    events = _events(held.stdout)
    assert events[-2]["event"] == "approval_required"
    assert events[-2]["pending"] == [
        {"id": "call_1", "name": "notes__delete", "arguments": {"note_id": 1}}
    ]
    assert events[-1]["stop_reason"] == "approval"
    assert not any(e["event"] == "tool_call_finished" for e in events)  # nothing ran

    second = _script(tmp_path, "second.json", ["I did not delete it."])
    resumed = toolrig(
        "agent", "--script", second, "--approve-destructive", "--log", log,
        "--session", "s-1", "--deny", "call_1=not on Fridays", "--json",
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    events = _events(resumed.stdout)
    finished = next(e for e in events if e["event"] == "tool_call_finished")
    assert finished["result"]["error"]["code"] == "permission_denied"
    assert "not on Fridays" in finished["result"]["error"]["message"]
    assert events[-1]["output"] == "I did not delete it."


def test_a_resume_keeps_the_approval_policy_of_the_session(tmp_path: Path) -> None:
    """Resumed with --allow only, the run still holds a new destructive call: the policy was
    stored with the session by the first process."""
    log = tmp_path / "log.db"
    first = _script(tmp_path, "first.json", [{"calls": [["notes.delete", {"note_id": 1}]]}])
    held = toolrig(
        "agent", "delete note 1", "--script", first, "--approve-destructive",
        "--log", log, "--session", "s-4", "--json",
    )  # fmt: skip
    assert held.returncode == 1, held.stderr
    assert _events(held.stdout)[-2]["pending"][0]["id"] == "call_1"

    second = _script(
        tmp_path, "second.json", [{"calls": [["notes.delete", {"note_id": 2}, "n2"]]}, "Done."]
    )
    resumed = toolrig(
        "agent", "--script", second, "--log", log, "--session", "s-4", "--allow", "call_1",
        "--json",
    )  # fmt: skip
    assert resumed.returncode == 1, resumed.stderr
    events = _events(resumed.stdout)
    finished = [e["id"] for e in events if e["event"] == "tool_call_finished"]
    assert finished == ["call_1"]  # the approved call ran; the new one did not
    assert events[-2] == {
        "event": "approval_required",
        "pending": [{"id": "n2", "name": "notes__delete", "arguments": {"note_id": 2}}],
    }
    assert events[-1]["stop_reason"] == "approval"

    again = toolrig(
        "agent", "--script", second, "--log", log, "--session", "s-4", "--allow", "call_1",
        "--json",
    )  # fmt: skip
    assert again.returncode == 1
    assert _events(again.stdout) == [
        {
            "event": "already_decided",
            "message": "call(s) call_1 of session 's-4' were already decided; nothing ran in "
            "this run. Load the session to see what is held now (the execution log has what "
            "the deciding run did)",
        }
    ]


def test_a_held_call_tells_how_to_resume(tmp_path: Path) -> None:
    script = _script(tmp_path, "s.json", [{"calls": [["notes.delete", {"note_id": 1}]]}])
    done = toolrig(
        "agent", "delete", "--script", script, "--approve-tools", "notes",
        "--log", tmp_path / "log.db", "--session", "s-2",
    )  # fmt: skip
    assert done.returncode == 1
    assert "--session s-2" in " ".join(done.stderr.split())
    assert "--allow call_1" in " ".join(done.stderr.split())


def test_usage_errors_are_one_line_with_exit_2(tmp_path: Path) -> None:
    script = _script(tmp_path, "s.json", ["ok"])
    cases = {
        ("agent", "hi", "--script", script, "--session", "x"): "add --log",
        ("agent", "--script", script): "give a PROMPT",
        ("agent", "hi", "--script", script, "--max-steps", "0"): "must be at least 1, not 0",
        ("agent", "hi", "--script", script, "--allow", "call_1"): "add --session",
        ("agent", "hi", "--script", script, "--model", "gpt-4o"): "drop --model",
        ("agent", "hi", "--script", tmp_path / "missing.json"): "No such file",
    }
    for args, expected in cases.items():
        done = toolrig(*args)
        assert done.returncode == 2, (args, done.stderr)
        assert expected in one_line_error(done, "agent"), args


def test_a_script_that_is_not_turns_is_refused(tmp_path: Path) -> None:
    for content, expected in (
        ("{not json", "is not JSON"),
        ("[" * 20_000 + "]" * 20_000, "is not JSON: JSON text nested too deeply"),
        ("[]", "non-empty JSON list"),
        ('[{"txt": "typo"}]', "turn 1 must be text or an object"),
        ('[{"calls": [["add"], "x"]}]', "'calls' must be a list"),
    ):
        path = tmp_path / "bad.json"
        path.write_text(content, encoding="utf-8")
        done = toolrig("agent", "hi", "--script", path)
        assert done.returncode == 2, content
        assert expected in one_line_error(done, "agent"), content


def test_no_model_configured_says_how_to_get_one(tmp_path: Path) -> None:
    done = toolrig("agent", "hi", HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / "config"))
    assert done.returncode == 2
    line = one_line_error(done, "agent")
    assert "no model to run" in line and "--script FILE" in line


def test_the_printed_resume_command_works_as_pasted(tmp_path: Path) -> None:
    """The hint carries the real log, the script, the catalogue and the approval options; the
    same script replays only the turns the session has not played yet."""
    tools = tmp_path / "mytools.py"
    tools.write_text(
        "from toolrig import ToolAnnotations, tool\n\n"
        "DONE = []\n\n\n"
        "@tool(annotations=ToolAnnotations(destructive=True))\n"
        "def wipe(table: str) -> str:\n"
        '    """Empty a table."""\n'
        '    return f"wiped {table}"\n\n\n'
        "tools = [wipe]\n",
        encoding="utf-8",
    )
    script = _script(
        tmp_path, "turns.json", [{"calls": [["wipe", {"table": "t 1"}]]}, "The table is empty."]
    )
    log = tmp_path / "my log.db"
    held = toolrig(
        "agent", "wipe t 1", "--script", script, "--catalog", tools,
        "--approve-destructive", "--log", log,
    )  # fmt: skip
    assert held.returncode == 1, held.stderr
    flat = " ".join(held.stderr.split())
    command = flat[flat.index("toolrig agent ") :]
    assert " URL " not in command and "--approve-destructive" in command
    words = shlex.split(command)
    assert words[words.index("--log") + 1] == str(log)
    assert words[words.index("--script") + 1] == str(script)
    assert words[words.index("--catalog") + 1] == str(tools)
    resumed = toolrig(*words[1:])  # as pasted: `toolrig agent ...`
    assert resumed.returncode == 0, resumed.stderr
    assert "✓ wiped t 1" in resumed.stdout
    assert "done (answer): The table is empty." in resumed.stdout


def test_a_run_stops_at_its_tool_call_budget_and_resumes_with_a_larger_one(
    tmp_path: Path,
) -> None:
    script = _script(
        tmp_path,
        "turns.json",
        [
            {"calls": [["add", {"a": 1, "b": 1}]]},
            {"calls": [["add", {"a": 2, "b": 2}], ["add", {"a": 3, "b": 3}]]},
            "Done: 2, 4 and 6.",
        ],
    )
    log = tmp_path / "log.db"
    stopped = toolrig(
        "agent", "add", "--script", script, "--log", log, "--max-tool-calls", "2", "--json"
    )
    assert stopped.returncode == 1, stopped.stderr
    events = _events(stopped.stdout)
    finished = [e for e in events if e["event"] == "tool_call_finished"]
    assert [e["result"]["output"] for e in finished] == [2]  # the turn of 2 more never ran
    final = events[-1]
    assert final["stop_reason"] == "usage_limit" and "tool_calls limit (2)" in final["error"]
    resumed = toolrig(
        "agent", "--session", final["session_id"], "--script", script, "--log", log,
        "--max-tool-calls", "5",
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    assert "✓ 4" in resumed.stdout and "✓ 6" in resumed.stdout
    assert "done (answer): Done: 2, 4 and 6." in resumed.stdout


def test_a_held_call_is_run_with_edited_arguments_from_a_second_process(tmp_path: Path) -> None:
    log = tmp_path / "log.db"
    first = _script(tmp_path, "first.json", [{"calls": [["notes.delete", {"note_id": 1}]]}])
    held = toolrig(
        "agent", "delete note 1", "--script", first, "--approve-destructive",
        "--log", log, "--session", "s-e", "--json",
    )  # fmt: skip
    assert held.returncode == 1, held.stderr
    second = _script(tmp_path, "second.json", ["Deleted note 2 instead."])
    for bad, expected in (
        ("call_1", "CALL_ID=JSON"),
        ("call_1=[2]", "a JSON object"),
        ("call_1={nope", "not JSON"),
        ('={"note_id": 2}', "CALL_ID=JSON"),
    ):
        refused = toolrig(
            "agent", "--script", second, "--log", log, "--session", "s-e", "--edit", bad,
        )  # fmt: skip
        assert refused.returncode == 2
        assert expected in one_line_error(refused, "agent"), bad
    twice = toolrig(
        "agent", "--script", second, "--log", log, "--session", "s-e",
        "--allow", "call_1", "--edit", 'call_1={"note_id": 2}',
    )  # fmt: skip
    assert "decided twice" in one_line_error(twice, "agent")
    resumed = toolrig(
        "agent", "--script", second, "--log", log, "--session", "s-e",
        "--edit", 'call_1={"note_id": 2}', "--json",
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    events = _events(resumed.stdout)
    started = next(e for e in events if e["event"] == "tool_call_started")
    assert started["arguments"] == {"note_id": 2}  # the edited arguments ran
    assert events[-1]["output"] == "Deleted note 2 instead."


def test_allow_for_session_lets_the_tools_later_calls_pass(tmp_path: Path) -> None:
    log = tmp_path / "log.db"
    first = _script(tmp_path, "first.json", [{"calls": [["notes.delete", {"note_id": 1}]]}])
    held = toolrig(
        "agent", "delete note 1", "--script", first, "--approve-destructive",
        "--log", log, "--session", "s-a", "--json",
    )  # fmt: skip
    assert held.returncode == 1, held.stderr
    second = _script(
        tmp_path, "second.json", [{"calls": [["notes.delete", {"note_id": 2}, "n2"]]}, "Done."]
    )
    resumed = toolrig(
        "agent", "--script", second, "--log", log, "--session", "s-a",
        "--allow-for-session", "call_1", "--json",
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    events = _events(resumed.stdout)
    finished = [e["id"] for e in events if e["event"] == "tool_call_finished"]
    assert finished == ["call_1", "n2"]  # the later delete passed without asking
    assert events[-1]["output"] == "Done."
