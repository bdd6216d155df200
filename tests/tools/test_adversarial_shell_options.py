"""Adversarial suite, allowed programs running others through their own options, for the
argument checks (``kernel_sandbox="off"``, what applies where the kernel lacks Landlock): each
attempt would create the file ``pwned`` (or print the parent's environment) if the option ran
its program; the call is refused, or the program runs sandboxed and the file never appears.
The same attempts under the kernel sandbox are in test_shell_kernel_sandbox.py."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from toolrig.tools import ShellTool

MARK = "touch pwned"

REFUSED = [
    ["find", ".", "-exec", "sh", "-c", MARK, ";"],
    ["find", ".", "-execdir", "sh", "-c", MARK, ";"],
    ["find", ".", "-ok", "sh", "-c", MARK, ";"],
    ["find", ".", "-okdir", "sh", "-c", MARK, ";"],
    ["find", ".", "-name", "x", "-o", "-exec", "touch", "pwned", "+"],
    ["tar", "-cf", "/dev/null", "--to-command=sh -c 'touch pwned'", "."],
    ["tar", "-xf", "a.tar", "--to-command", "touch pwned"],
    ["tar", "-xf", "a.tar", "--to-com=touch pwned"],
    ["tar", "-cf", "out.tar", "--use-compress-program=touch pwned", "a.txt"],
    ["tar", "-cf", "out.tar", "--use-compress", "touch pwned", "a.txt"],
    ["tar", "-cf", "out.tar", "-I", "touch pwned", "a.txt"],
    ["tar", "-cIf", "touch pwned", "out.tar", "a.txt"],
    ["tar", "cIf", "touch pwned", "out.tar", "a.txt"],
    ["tar", "-cf", "out.tar", "--checkpoint=1", "--checkpoint-action=exec=touch pwned", "."],
    ["tar", "-cf", "out.tar", "--info-script=touch pwned", "-L1", "a.txt"],
    ["tar", "-cf", "out.tar", "-F", "touch pwned", "-L1", "a.txt"],
    ["tar", "-cf", "out.tar", "--new-volume-script=touch pwned", "a.txt"],
    ["tar", "-cf", "h:out.tar", "--rsh-command=/usr/bin/touch", "a.txt"],
    ["tar", "-cf", "h:out.tar", "--rmt-command=/usr/bin/touch", "a.txt"],
    ["git", "-c", "core.pager=touch pwned", "log"],
    ["git", "-ccore.pager=touch pwned", "log"],
    ["git", "-c", "alias.x=!touch pwned", "x"],
    ["git", "--config-env=core.pager=X", "log"],
    ["git", "--exec-path=.", "log"],
    ["git", "--exec-path", "log"],
    ["git", "--no-pager", "-c", "core.fsmonitor=touch pwned", "status"],
    ["git", "grep", "-Otouch pwned", "x"],
    ["git", "grep", "--open-files-in-pager=touch pwned", "x"],
    ["git", "grep", "--open-files", "x"],
    ["git", "rebase", "-x", "touch pwned", "HEAD"],
    ["git", "rebase", "--exec", "touch pwned", "HEAD"],
    ["git", "difftool", "--extcmd=touch pwned"],
    ["git", "difftool", "-x", "touch pwned"],
    ["git", "diff", "--ext-diff"],
    ["git", "ls-remote", "--upload-pack=touch pwned", "."],
    ["git", "fetch", "--upload-pack", "touch pwned", "."],
    ["git", "push", "--receive-pack=touch pwned", "."],
    ["git", "archive", "--exec=touch pwned", "--remote=.", "HEAD"],
    ["git", "clone", "--config", "core.fsmonitor=touch pwned", ".", "c"],
    ["git", "mergetool", "--tool=x"],
]


PROGRAMS = ["find", "tar", "git", "sed", "awk", "echo"]


@pytest.fixture
def shell(tmp_path: Path) -> ShellTool:
    (tmp_path / "a.txt").write_text("a\n")
    return ShellTool(tmp_path, allowed_programs=PROGRAMS, kernel_sandbox="off")


@pytest.fixture(params=["off", "auto"])
def either_shell(request: pytest.FixtureRequest, tmp_path: Path) -> ShellTool:
    """The tool with the argument checks alone, and with the kernel sandbox where offered."""
    (tmp_path / "a.txt").write_text("a\n")
    return ShellTool(tmp_path, allowed_programs=PROGRAMS, kernel_sandbox=request.param)


@pytest.mark.parametrize("command", REFUSED, ids=[" ".join(c)[:60] for c in REFUSED])
def test_options_that_run_a_program_are_refused(
    tmp_path: Path, shell: ShellTool, command: list[str]
) -> None:
    result = shell.execute("execute", command=command)
    assert result.code == "permission_denied", (command, result)
    assert result.error is not None and "is not allowed" in result.error.message
    assert not (tmp_path / "pwned").exists()


SANDBOXED = [
    ["sed", "-n", "1e touch pwned", "a.txt"],
    ["sed", "s/a/touch pwned/e", "a.txt"],
    ["sed", "-e", "1e touch pwned", "a.txt"],
    ["sed", "w pwned", "a.txt"],
    ["sed", "-n", "1r /etc/hostname", "a.txt"],
    ["awk", 'BEGIN { system("touch pwned") }'],
    ["awk", 'BEGIN { print "x" | "sh" ; close("sh") }'],
    ["awk", 'BEGIN { "touch pwned" | getline x }'],
    ["awk", 'BEGIN { print "x" > "pwned" }'],
    ["awk", "-f", "/dev/stdin"],
]


@pytest.mark.skipif(
    subprocess.run(["sed", "--sandbox", "p", "/dev/null"], capture_output=True).returncode != 0
    or shutil.which("gawk") is None,
    reason="needs GNU sed and gawk (their --sandbox)",
)
@pytest.mark.parametrize("command", SANDBOXED, ids=[" ".join(c)[:50] for c in SANDBOXED])
def test_sed_and_awk_run_sandboxed(tmp_path: Path, shell: ShellTool, command: list[str]) -> None:
    stdin = 'BEGIN { system("touch pwned") }' if command[-1] == "/dev/stdin" else None
    result = shell.execute("execute", command=command, stdin=stdin)
    output = result.unwrap()
    assert output["exit_code"] != 0, output
    assert "sandbox" in output["stderr"]
    assert not (tmp_path / "pwned").exists()


def test_ordinary_uses_still_work(tmp_path: Path, either_shell: ShellTool) -> None:
    shell = either_shell
    assert shell.execute("execute", command=["sed", "s/a/b/", "a.txt"]).unwrap()["stdout"] == "b\n"
    out = shell.execute("execute", command=["awk", "{ print NR, $0 }", "a.txt"]).unwrap()
    assert out["stdout"] == "1 a\n"
    found = shell.execute("execute", command=["find", ".", "-name", "*.txt"]).unwrap()
    assert found["stdout"] == "./a.txt\n"
    listed = shell.execute("execute", command=["tar", "-cf", "a.tar", "a.txt"]).unwrap()
    assert listed["exit_code"] == 0 and (tmp_path / "a.tar").exists()
    assert shell.execute("execute", command=["git", "init", "-q"]).unwrap()["exit_code"] == 0
    status = shell.execute("execute", command=["git", "status", "--short"]).unwrap()
    assert status["stdout"] == "?? a.tar\n?? a.txt\n"


def test_git_runs_without_hooks_pager_or_fsmonitor_from_the_repository(
    tmp_path: Path, either_shell: ShellTool
) -> None:
    """What a model could write into .git/config is overridden for the settings that name a
    program on every command (filters and aliases remain: docs/tools.md says so)."""
    shell = either_shell
    shell.execute("execute", command=["git", "init", "-q"]).unwrap()
    config = tmp_path / ".git" / "config"
    config.write_text(
        config.read_text()
        + "[core]\n\tfsmonitor = touch pwned-fsmonitor\n\tpager = touch pwned-pager\n"
        + '\thooksPath = hooks\n[diff]\n\texternal = "touch pwned-diff"\n'
    )
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "pre-commit").write_text("#!/bin/sh\ntouch pwned-hook\n")
    (hooks / "pre-commit").chmod(0o755)
    for command in (
        ["git", "status"],
        ["git", "add", "a.txt"],
        ["git", "-c", "x=y", "log"],  # refused by the argument checks
        ["git", "diff", "--cached"],
        ["git", "-C", ".", "log", "-p"],
    ):
        shell.execute("execute", command=command)
    env = {"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a",
           "GIT_COMMITTER_EMAIL": "a@b"}  # fmt: skip
    committer = ShellTool(
        tmp_path, allowed_programs=["git"], env=env, kernel_sandbox=shell.kernel_sandbox
    )
    committed = committer.execute("execute", command=["git", "commit", "-qm", "x"]).unwrap()
    assert committed["exit_code"] == 0, committed
    assert sorted(p.name for p in tmp_path.glob("pwned*")) == []


RUNNERS = ["env", "xargs", "nice", "nohup", "timeout", "stdbuf", "setsid", "sudo", "busybox",
           "strace", "flock", "chroot", "/usr/bin/env", "ionice", "taskset"]  # fmt: skip


@pytest.mark.parametrize("runner", RUNNERS)
def test_a_runner_cannot_be_allowed(tmp_path: Path, runner: str) -> None:
    with pytest.raises(ValueError, match="would allow every program"):
        ShellTool(tmp_path, allowed_programs=["echo", runner], kernel_sandbox="off")
