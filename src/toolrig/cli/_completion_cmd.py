"""``toolrig completion SHELL``: print a shell completion script for every command and option.

The script is generated from the same argparse parser the command runs (``shtab``), so it
cannot drift from the real options. Arguments named ``PATH`` complete files and folders,
``DIR`` folders. Install, e.g. for bash::

    toolrig completion bash > ~/.local/share/bash-completion/completions/toolrig
"""

from __future__ import annotations

import argparse

from toolrig.cli._output import EXIT_OK, CliError

__all__ = ["SHELLS", "add_completion_parser", "completion_script"]

SHELLS = ("bash", "zsh", "tcsh", "fish")
"""The shells a script can be printed for."""


def add_completion_parser(
    commands: argparse._SubParsersAction[argparse.ArgumentParser], root: argparse.ArgumentParser
) -> None:
    """Declare ``completion``; its scripts complete the commands of ``root``."""
    completion = commands.add_parser(
        "completion",
        help="print a shell completion script (bash, zsh, tcsh, fish)",
        description="Print a completion script for SHELL on stdout. bash: toolrig completion "
        "bash > ~/.local/share/bash-completion/completions/toolrig; zsh: toolrig completion "
        'zsh > "${fpath[1]}/_toolrig".',
    )
    completion.add_argument("shell", choices=SHELLS)
    completion.set_defaults(handler=run_completion, root_parser=root)


def completion_script(parser: argparse.ArgumentParser, shell: str) -> str:
    """The completion script of ``parser`` (the ``toolrig`` parser) for ``shell``."""
    try:
        import shtab
    except ImportError:
        raise CliError("shell completion needs the package 'shtab': pip install shtab") from None
    _mark_paths(parser, files=shtab.FILE, folders=shtab.DIRECTORY)
    script: str = shtab.complete(parser, shell=shell)
    return script


def _mark_paths(parser: argparse.ArgumentParser, *, files: object, folders: object) -> None:
    """Complete ``PATH`` arguments with files and folders, ``DIR`` with folders (shtab reads
    an action's ``complete`` attribute)."""
    for action in parser._actions:
        if action.metavar in ("PATH", "PLAN", "DIR"):
            action.complete = folders if action.metavar == "DIR" else files  # type: ignore[attr-defined]
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                _mark_paths(sub, files=files, folders=folders)


def run_completion(args: argparse.Namespace) -> int:
    """Print the script."""
    print(completion_script(args.root_parser, args.shell))
    return EXIT_OK
