"""What an allowed program may be asked to do, for ``shell`` with ``allowed_programs`` when the
kernel sandbox is not there (no Landlock, or ``kernel_sandbox="off"``): the fallback. Under the
kernel sandbox only `harden` applies, and the kernel decides what runs (see ``_confine``).

Allowing a program must not allow every program, yet several common ones run others through
their own options. This module narrows that for the programs people allow most (lists cannot
be complete: other runners and options exist):

* **Runners** (``env``, ``xargs``, ``nice``, ``timeout``, ``sudo``, …) exist to run the
  program named in their arguments: allowing one would allow all, so ``allowed_programs``
  refuses them when the tool is created.
* **find** runs no program: ``-exec``, ``-execdir``, ``-ok`` and ``-okdir`` are refused.
* **tar** runs no program: the options that name one (``--to-command``,
  ``--use-compress-program``/``-I``, ``--checkpoint-action``, ``--info-script``/``-F``,
  ``--new-volume-script``, ``--rsh-command``, ``--rmt-command``) are refused.
* **sed** and **awk** run with ``--sandbox`` (GNU sed and gawk: no ``e`` command or ``s///e``,
  no ``system()``, no pipes or file redirection); an implementation without it fails to
  start, so nothing runs unsandboxed.
* **git** refuses ``-c``, ``--config-env``, ``--exec-path`` and the options that name a program
  (``--upload-pack``, ``--receive-pack``, ``--exec``, ``-x``/``--extcmd``, ``-O``/
  ``--open-files-in-pager``, ``--ext-diff``), and runs with hooks, fsmonitor, pager and the
  global and system configuration turned off. A repository's own ``.git/config`` and
  ``.gitattributes`` can still name filters and aliases git runs: see docs/tools.md.

Options are matched the way each program reads them: long options also with ``=value`` and
as unambiguous prefixes (``--to-com``), short ones also inside clusters (``-xIf``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Final

from toolrig.core.model._errors import ErrorCode, ToolError

__all__ = ["GIT_ENV", "RUNNERS", "check_allowed", "harden", "vet"]

RUNNERS: Final = frozenset(
    {
        "env", "xargs", "nice", "nohup", "timeout", "stdbuf", "setsid", "sudo", "doas", "su",
        "runuser", "chroot", "flock", "watch", "time", "strace", "ltrace", "busybox", "unshare",
        "nsenter", "parallel", "script", "ionice", "taskset", "chrt", "setpriv", "prlimit",
        "firejail", "bwrap", "systemd-run", "expect", "sg", "newgrp",
    }
)  # fmt: skip
"""Programs whose job is to run the program named in their arguments."""

_FIND: Final = ("-exec", "-execdir", "-ok", "-okdir")
_TAR_LONG: Final = (
    "--to-command", "--use-compress-program", "--checkpoint-action", "--info-script",
    "--new-volume-script", "--rsh-command", "--rmt-command",
)  # fmt: skip
_TAR_SHORT: Final = "IF"
_GIT_GLOBAL: Final = ("--config-env", "--exec-path")
_GIT_LONG: Final = (
    "--upload-pack", "--receive-pack", "--exec", "--extcmd", "--open-files-in-pager",
    "--ext-diff", "--tool", "--config",
)  # fmt: skip
_GIT_SAFE: Final = (
    "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "core.pager=cat",
    "-c", "core.sshCommand=false", "-c", "diff.external=", "-c", "protocol.ext.allow=never",
)  # fmt: skip
_GIT_QUIET: Final = (
    "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "core.pager=cat",
)  # fmt: skip
GIT_ENV: Final = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_PAGER": "cat",
    "GIT_TERMINAL_PROMPT": "0",
}
"""Set for every git command: no system or global configuration, no pager, no prompts."""


def check_allowed(programs: Iterable[str]) -> None:
    """Refuse, when the tool is created, an allow-list holding a runner."""
    runners = sorted({p for p in programs if os.path.basename(p) in RUNNERS})
    if runners:
        raise ValueError(
            f"allowed_programs holds {', '.join(runners)}, which run(s) any program given as an "
            "argument: allowing it would allow every program. Remove it, or allow the "
            "programs it would run instead."
        )


def _refused(program: str, option: str, why: str) -> ToolError:
    return ToolError(
        f"`{program} {option}` is not allowed: {why}",
        code=ErrorCode.PERMISSION_DENIED,
        hint="Only the allowed programs may run; do the work without this option (one program "
        "per call, e.g. list the files with find, then run an allowed program on them).",
    )


def _long(arg: str, options: Iterable[str]) -> str | None:
    """The option of ``options`` that ``arg`` spells (exactly, with ``=value``, or as a
    prefix of at least 4 characters, as getopt_long accepts)."""
    name = arg.split("=", 1)[0]
    for option in options:
        if name == option or (len(name) >= 4 and option.startswith(name)):
            return option
    return None


def _find(argv: list[str]) -> list[str]:
    for arg in argv[1:]:
        if arg in _FIND:
            raise _refused("find", arg, "it runs another program for each file")
    return argv


def _tar(argv: list[str]) -> list[str]:
    for index, arg in enumerate(argv[1:], start=1):
        if arg == "--":
            break
        if arg.startswith("--"):
            if (hit := _long(arg, _TAR_LONG)) is not None:
                raise _refused("tar", hit, "it names a program for tar to run")
        elif (arg.startswith("-") or index == 1) and any(ch in arg for ch in _TAR_SHORT):
            # the first argument may be a cluster without a dash ("xIf")
            flag = next(ch for ch in arg if ch in _TAR_SHORT)
            raise _refused("tar", f"-{flag}", "it names a program for tar to run")
    return argv


def _sandboxed(argv: list[str]) -> list[str]:
    return [argv[0], "--sandbox", *argv[1:]]


def _git(argv: list[str]) -> list[str]:
    args = iter(argv[1:])
    for arg in args:  # global options, before the subcommand
        if not arg.startswith("-"):
            break
        if arg.startswith("-c") or _long(arg, _GIT_GLOBAL) is not None:
            raise _refused("git", arg.split("=", 1)[0][:14], "it sets what git runs")
        if arg in ("-C", "--git-dir", "--work-tree", "--namespace"):
            next(args, None)
    for arg in args:  # the subcommand's options
        if arg == "--":
            break
        if arg.startswith("--") and (hit := _long(arg, _GIT_LONG)) is not None:
            raise _refused("git", hit, "it names a program for git to run")
        if arg == "-x" or (arg.startswith("-O") and not arg.startswith("--")):
            raise _refused("git", arg[:2], "it names a program for git to run")
    return [argv[0], *_GIT_SAFE, *argv[1:]]


_POLICIES: Final[dict[str, Callable[[list[str]], list[str]]]] = {
    "find": _find,
    "tar": _tar,
    "gtar": _tar,
    "sed": _sandboxed,
    "gsed": _sandboxed,
    "awk": _sandboxed,
    "gawk": _sandboxed,
    "git": _git,
}


def vet(argv: list[str]) -> list[str]:
    """``argv`` as it may run (with the options that keep it to itself added), or a
    ``permission_denied`` error naming the option that would run another program."""
    name = os.path.basename(argv[0])
    if name in RUNNERS:
        raise _refused(name, "", "it runs the program given as its argument")
    policy = _POLICIES.get(name)
    return argv if policy is None else policy(argv)


def harden(argv: list[str]) -> list[str]:
    """``argv`` with git's hooks, fsmonitor and pager turned off, refusing nothing: under the
    kernel sandbox, which decides what runs and where it writes, this only keeps git from
    failing on a repository's hooks and fsmonitor (programs under the root, which the sandbox
    does not let it execute). The caller's own ``-c`` options come after, and win."""
    return [argv[0], *_GIT_QUIET, *argv[1:]] if os.path.basename(argv[0]) == "git" else argv
