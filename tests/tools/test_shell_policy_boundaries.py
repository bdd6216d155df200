"""The process guard's promises, boundary by boundary (`toolrig.tools._shell_policy`).

The promise: allowing a program does not allow another one. Runners cannot be allowed or run;
``find``, ``tar`` and ``git`` refuse every option that names a program, however it is spelled,
and nothing else; ``sed`` and ``awk`` run sandboxed; ``git`` runs with hooks, pager, fsmonitor
and outside configuration turned off.

| boundary                           | test                                                       |
|------------------------------------|------------------------------------------------------------|
| runners: every entry of the list,  | `test_every_runner_is_refused_when_allowed_and_when_run`   |
| by name and by path, at creation   |                                                            |
| and per call                       |                                                            |
| the error lists every runner       | `test_the_creation_error_names_every_runner_and_only_them` |
| allowed, sorted, and only those    |                                                            |
| find: each of the four options, at | `test_find_refuses_each_option_that_runs_a_program`        |
| any position after the program     |                                                            |
| everything else passes unchanged   | `test_what_each_guard_lets_through_is_unchanged`           |
| tar (and gtar): each long option:  | `test_tar_refuses_each_long_option_in_each_spelling`       |
| exact, ``=value``, shortest prefix |                                                            |
| (4 characters)                     |                                                            |
| a 3-character prefix is not read   | `test_tar_refuses_each_long_option_in_each_spelling`       |
| as an option                       |                                                            |
| ``-I`` and ``-F``: alone, in a     | `test_tar_short_options_in_clusters`                       |
| cluster, in a first argument       |                                                            |
| without a dash                     |                                                            |
| a later argument without a dash (a | `test_what_each_guard_lets_through_is_unchanged`           |
| file name) and anything after      |                                                            |
| ``--`` pass                        |                                                            |
| sed, gsed, awk, gawk: each runs    | `test_sed_and_awk_get_the_sandbox_option`                  |
| with ``--sandbox`` added right     |                                                            |
| after the program                  |                                                            |
| git global options: ``-c`` in both | `test_git_global_options_that_set_what_git_runs`           |
| spellings, ``--config-env``,       |                                                            |
| ``--exec-path`` (and prefixes)     |                                                            |
| the value of ``-C``, ``--git-      | `test_git_global_option_values_are_skipped`                |
| dir``, ``--work-tree``,            |                                                            |
| ``--namespace`` is not an option   |                                                            |
| git subcommand options: each long  | `test_git_subcommand_options_that_name_a_program`          |
| option (exact, ``=value``,         |                                                            |
| prefix), ``-x``, ``-O``            |                                                            |
| after ``--``, and ``--O...`` long  | `test_what_each_guard_lets_through_is_unchanged`           |
| options that are not ``-O``        |                                                            |
| git settings: every safe setting   | `test_git_runs_with_every_safe_setting`                    |
| is added, before the user's        |                                                            |
| arguments; the environment         |                                                            |
| the refusal: ``permission_denied`` | `test_the_refusal_names_program_and_option_only`           |
| naming the program and option      |                                                            |
| (never the option's value)         |                                                            |
| scope: a program without a guard   | `test_what_each_guard_lets_through_is_unchanged`           |
| is returned as it was given        |                                                            |
"""

from __future__ import annotations

import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolrig import ToolError
from toolrig.tools._shell_policy import GIT_ENV, check_allowed, vet

# Written out here, not imported: removing an entry from the module's list must fail a test.
RUNNER_NAMES = [
    "env", "xargs", "nice", "nohup", "timeout", "stdbuf", "setsid", "sudo", "doas", "su",
    "runuser", "chroot", "flock", "watch", "time", "strace", "ltrace", "busybox", "unshare",
    "nsenter", "parallel", "script", "ionice", "taskset", "chrt", "setpriv", "prlimit",
    "firejail", "bwrap", "systemd-run", "expect", "sg", "newgrp",
]  # fmt: skip
TAR_LONG = [
    "--to-command", "--use-compress-program", "--checkpoint-action", "--info-script",
    "--new-volume-script", "--rsh-command", "--rmt-command",
]  # fmt: skip
GIT_LONG = [
    "--upload-pack", "--receive-pack", "--exec", "--extcmd", "--open-files-in-pager",
    "--ext-diff", "--tool", "--config",
]  # fmt: skip
GIT_SAFE = [
    "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "core.pager=cat",
    "-c", "core.sshCommand=false", "-c", "diff.external=", "-c", "protocol.ext.allow=never",
]  # fmt: skip


def _refused(argv: list[str]) -> ToolError:
    with pytest.raises(ToolError) as caught:
        vet(argv)
    assert caught.value.code == "permission_denied", argv
    return caught.value


@pytest.mark.parametrize("runner", RUNNER_NAMES)
def test_every_runner_is_refused_when_allowed_and_when_run(runner: str) -> None:
    for spelled in (runner, f"/usr/bin/{runner}"):
        with pytest.raises(ValueError, match=runner):
            check_allowed(["ls", spelled])
        error = _refused([spelled, "ls"])
        assert error.message == (
            f"`{runner} ` is not allowed: it runs the program given as its argument"
        )


def test_the_creation_error_names_every_runner_and_only_them() -> None:
    check_allowed(["ls", "cat", "/bin/echo", "environment", "nicer"])  # no runner: no error
    check_allowed([])
    with pytest.raises(ValueError, match="allowed_programs holds") as caught:
        check_allowed(["xargs", "ls", "env", "cat", "sudo"])
    message = str(caught.value)
    assert message == (
        "allowed_programs holds env, sudo, xargs, which run(s) any program given as an "
        "argument: allowing it would allow every program. Remove it, or allow the programs it "
        "would run instead."
    )
    assert "ls" not in message.split(", which")[0] and "cat" not in message


@pytest.mark.parametrize("option", ["-exec", "-execdir", "-ok", "-okdir"])
def test_find_refuses_each_option_that_runs_a_program(option: str) -> None:
    for argv in (["find", option, "rm", ";"], ["find", ".", "-name", "x", option, "rm", "+"]):
        error = _refused(argv)
        assert error.message == (
            f"`find {option}` is not allowed: it runs another program for each file"
        )


@pytest.mark.parametrize("option", TAR_LONG)
@pytest.mark.parametrize("program", ["tar", "gtar"])
def test_tar_refuses_each_long_option_in_each_spelling(program: str, option: str) -> None:
    for spelled in (option, f"{option}=touch pwned", option[:4], f"{option[:5]}=x"):
        error = _refused([program, "-cf", "out.tar", spelled, "a"])
        assert f"`tar {option}` is not allowed" in error.message, spelled
    # "--t" is shorter than getopt_long's shortest accepted prefix: not read as an option.
    assert vet([program, "-cf", "out.tar", option[:3], "a"]) == [
        program, "-cf", "out.tar", option[:3], "a",
    ]  # fmt: skip


@pytest.mark.parametrize("flag", ["I", "F"])
def test_tar_short_options_in_clusters(flag: str) -> None:
    for argv in (
        ["tar", "-cf", "out.tar", f"-{flag}", "touch pwned"],
        ["tar", f"-c{flag}f", "touch pwned", "out.tar"],
        ["tar", f"c{flag}f", "touch pwned", "out.tar"],  # the first argument: no dash needed
        ["gtar", f"-{flag}x"],
    ):
        error = _refused(argv)
        assert error.message == f"`tar -{flag}` is not allowed: it names a program for tar to run"


@pytest.mark.parametrize("program", ["sed", "gsed", "awk", "gawk"])
def test_sed_and_awk_get_the_sandbox_option(program: str) -> None:
    assert vet([program, "-n", "p", "f"]) == [program, "--sandbox", "-n", "p", "f"]
    assert vet([program]) == [program, "--sandbox"]
    assert vet([f"/usr/bin/{program}", "x"]) == [f"/usr/bin/{program}", "--sandbox", "x"]


@pytest.mark.parametrize(
    ("argument", "named"),
    [
        ("-c", "-c"),
        ("-ccore.pager=touch pwned", "-ccore.pager"),
        ("-ccore.fsmonitor=x", "-ccore.fsmonit"),  # at most 14 characters: never the value
        ("--config-env=core.pager=X", "--config-env"),
        ("--config-e", "--config-e"),
        ("--exec-path", "--exec-path"),
        ("--exec-path=.", "--exec-path"),
        ("--exec-p", "--exec-p"),
    ],
)
def test_git_global_options_that_set_what_git_runs(argument: str, named: str) -> None:
    error = _refused(["git", "--no-pager", argument, "log"])
    assert f"`git {named}` is not allowed: it sets what git runs" in error.message


@pytest.mark.parametrize("option", ["-C", "--git-dir", "--work-tree", "--namespace"])
def test_git_global_option_values_are_skipped(option: str) -> None:
    argv = ["git", option, "-cdir", "log", "-n1"]
    assert vet(argv) == ["git", *GIT_SAFE, *argv[1:]]
    assert vet(["git", option]) == ["git", *GIT_SAFE, option]  # the value may be missing
    # ... and only the one value: the option after it is read again.
    _refused(["git", option, "dir", "-c", "x=y", "log"])


@pytest.mark.parametrize("option", GIT_LONG)
def test_git_subcommand_options_that_name_a_program(option: str) -> None:
    for spelled in (option, f"{option}=touch pwned", f"{option[:6]}=x"):
        error = _refused(["git", "sub", "--quiet", spelled])
        assert f"`git {option}` is not allowed: it names a program for git" in error.message


def test_git_short_options_that_name_a_program() -> None:
    why = "is not allowed: it names a program for git to run"
    assert _refused(["git", "rebase", "-x", "touch pwned"]).message == f"`git -x` {why}"
    assert _refused(["git", "grep", "-Otouch pwned", "x"]).message == f"`git -O` {why}"
    assert _refused(["git", "grep", "-O", "x"]).message == f"`git -O` {why}"


def test_git_runs_with_every_safe_setting() -> None:
    assert vet(["git", "status", "-s"]) == ["git", *GIT_SAFE, "status", "-s"]
    assert vet(["/usr/bin/git"]) == ["/usr/bin/git", *GIT_SAFE]
    expected_env = {
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_PAGER": "cat",
        "GIT_TERMINAL_PROMPT": "0",
    }
    assert dict(GIT_ENV) == expected_env


def test_the_refusal_names_program_and_option_only() -> None:
    error = _refused(["tar", "-cf", "o.tar", "--to-command=touch SECRET", "a"])
    assert error.message.startswith("`tar --to-command` is not allowed: it names a program")
    assert "SECRET" not in error.message
    assert error.hint == (
        "Only the allowed programs may run; do the work without this option (one program per "
        "call, e.g. list the files with find, then run an allowed program on them)."
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["find", ".", "-name", "*.py", "-print"],
        ["find", ".", "-execute"],  # not one of the four
        ["tar", "-cf", "Info.tar", "FILE"],  # I and F in later file names
        ["tar", "-cf", "x.tar", "--", "-I", "--to-command=x"],  # after --: file names
        ["tar", "-tvf", "x.tar", "--totals", "--use"],  # "--use" is 5 long: see below
        ["git", "log", "--", "--exec=x", "-x", "-Ox"],
        ["git", "grep", "--Ox", "x"],
        ["git", "log", "--oneline", "--format=%x"],
        ["git", "-p", "log"],
        ["ls", "-la", "--exec=x", "-x"],
        ["python3", "-c", "print(1)"],
    ],
)
def test_what_each_guard_lets_through_is_unchanged(argv: list[str]) -> None:
    if argv[:2] == ["tar", "-tvf"]:  # "--use" is a prefix of --use-compress-program
        _refused(argv)
        return
    out = vet(argv)
    if argv[0] == "git":
        assert out == ["git", *GIT_SAFE, *argv[1:]]
    else:
        assert out == argv


@given(
    name=st.text(alphabet="abcdefghijklmnopqrstuvwxyz-", min_size=1, max_size=12),
    args=st.lists(st.text(min_size=0, max_size=8), max_size=4),
)
def test_a_program_without_a_guard_is_returned_as_given(name: str, args: list[str]) -> None:
    guarded = {"find", "tar", "gtar", "sed", "gsed", "awk", "gawk", "git", *RUNNER_NAMES}
    if name in guarded:
        return
    argv = [name, *args]
    assert vet(argv) is argv
