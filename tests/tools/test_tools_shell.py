"""shell: argument lists without a shell, limits on time and output, env and allow-lists."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from toolrig.tools import ShellTool


@pytest.fixture
def shell(tmp_path: Path) -> ShellTool:
    return ShellTool(tmp_path, default_timeout=10)


def test_runs_a_program_and_captures_streams(shell: ShellTool) -> None:
    code = "import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)"
    out = shell.execute("execute", command=[sys.executable, "-c", code]).unwrap()
    assert (out["exit_code"], out["stdout"], out["stderr"]) == (3, "out\n", "err\n")
    assert out["truncated"] is False
    assert shell.spec.action_annotations("execute").destructive is True


def test_injection_in_arguments_is_plain_text(tmp_path: Path, shell: ShellTool) -> None:
    payload = ["hi; touch pwned", "&& touch pwned", "$(touch pwned)", "`touch pwned`", "| cat"]
    out = shell.execute("execute", command=["echo", *payload]).unwrap()
    assert out["stdout"] == " ".join(payload) + "\n"
    assert not (tmp_path / "pwned").exists()


def test_shell_strings_need_allow_shell(tmp_path: Path, shell: ShellTool) -> None:
    refused = shell.execute("execute", command="echo hi && touch pwned")
    assert refused.code == "permission_denied" and "list of arguments" in refused.error.hint
    assert not (tmp_path / "pwned").exists()
    allowed = ShellTool(tmp_path, allow_shell=True)
    out = allowed.execute("execute", command="echo a && echo b | tr b c").unwrap()
    assert out["stdout"] == "a\nc\n"


def test_working_folder_stays_in_the_sandbox(tmp_path: Path, shell: ShellTool) -> None:
    (tmp_path / "sub").mkdir()
    out = shell.execute("execute", command=["pwd"], cwd="sub").unwrap()
    assert Path(out["stdout"].strip()) == (tmp_path / "sub").resolve()
    assert shell.execute("execute", command=["pwd"], cwd="..").code == "permission_denied"
    assert shell.execute("execute", command=["pwd"], cwd="missing").code == "not_found"


def test_timeout_kills_the_whole_process_group(tmp_path: Path, shell: ShellTool) -> None:
    script = "sleep 30 & echo $! > child.pid; echo started; sleep 30"
    start = time.monotonic()
    result = ShellTool(tmp_path, allow_shell=True).execute("execute", command=script, timeout=1)
    assert time.monotonic() - start < 5
    assert result.code == "timeout" and "1 s" in result.error.message
    assert result.error.details["stdout"] == "started\n"
    child = int((tmp_path / "child.pid").read_text())
    time.sleep(0.2)
    assert not _running(child)


def _running(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie (killed but not yet reaped)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):  # ended between the open and the read
        return False


def test_output_is_cut_with_a_marker_and_floods_are_stopped(tmp_path: Path) -> None:
    shell = ShellTool(tmp_path, max_output_bytes=1000, kill_output_bytes=2_000_000)
    code = "print('x' * 5000, end='')"
    out = shell.execute("execute", command=[sys.executable, "-c", code]).unwrap()
    assert out["truncated"] is True and out["stdout_bytes"] == 5000
    assert "[... 4,000 bytes cut ...]" in out["stdout"] and len(out["stdout"]) < 1100
    start = time.monotonic()
    flood = shell.execute("execute", command=["yes"], timeout=20)
    assert time.monotonic() - start < 5
    assert flood.code == "execution_error" and "more than 2,000,000 bytes" in flood.error.message


def test_environment_is_passed_only_as_configured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SECRET_TOKEN", "hunter2")
    code = "import os; print(os.environ.get('SECRET_TOKEN'), os.environ.get('MODE'))"
    plain = ShellTool(tmp_path, env={"MODE": "test"})
    out = plain.execute("execute", command=[sys.executable, "-c", code]).unwrap()
    assert out["stdout"] == "None test\n"
    passing = ShellTool(tmp_path, pass_env=["PATH", "SECRET_TOKEN"])
    out = passing.execute("execute", command=[sys.executable, "-c", code]).unwrap()
    assert out["stdout"] == "hunter2 None\n"


def test_allow_list_of_programs(tmp_path: Path) -> None:
    shell = ShellTool(tmp_path, allowed_programs=["echo"])
    assert shell.execute("execute", command=["echo", "ok"]).unwrap()["stdout"] == "ok\n"
    refused = shell.execute("execute", command=["rm", "-rf", "."])
    assert refused.code == "permission_denied" and "echo" in refused.error.hint
    (tmp_path / "echo").write_text("#!/bin/sh\ntouch pwned\n")
    (tmp_path / "echo").chmod(0o755)
    assert shell.execute("execute", command=["./echo"]).code == "permission_denied"
    assert not (tmp_path / "pwned").exists()
    with pytest.raises(ValueError, match="shell"):
        ShellTool(tmp_path, allow_shell=True, allowed_programs=["echo"], kernel_sandbox="off")


def test_stdin_missing_programs_and_empty_commands(shell: ShellTool) -> None:
    assert shell.execute("execute", command=["cat"], stdin="abc").unwrap()["stdout"] == "abc"
    assert shell.execute("execute", command=["no-such-program-x"]).code == "not_found"
    assert shell.execute("execute", command=[]).code == "invalid_arguments"
