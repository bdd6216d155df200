"""The ``toolrig`` command: one subcommand per module, one way to fail.

Each command module declares its parser (``add_*_parser``) and names the function that runs
it (``set_defaults(handler=...)``); modules are imported only to build the parser, and what a
command needs beyond that is imported when it runs. Exit codes: 0 ok, 1 a tool call, plan or check
failed, 2 the command was used wrongly or its input cannot be read.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

__all__ = ["build_parser", "main", "parse_command"]


def build_parser() -> argparse.ArgumentParser:
    """The ``toolrig`` argument parser with every subcommand (shell completion reads it too)."""
    from toolrig import __version__
    from toolrig.cli._agent_cmd import add_agent_parser
    from toolrig.cli._call_cmd import add_call_parser
    from toolrig.cli._completion_cmd import add_completion_parser
    from toolrig.cli._console_cmd import add_console_parser
    from toolrig.cli._demo import add_demo_parser
    from toolrig.cli._log_cmd import add_log_parser
    from toolrig.cli._plan_cmd import add_plan_parser
    from toolrig.cli._schema_cmd import add_schema_parser
    from toolrig.cli._search_cmd import add_search_parser
    from toolrig.cli._serve import add_serve_parser
    from toolrig.cli._tools_cmd import add_tools_parsers
    from toolrig.cli._validate_cmd import add_validate_parser
    from toolrig.cli._worker_cmd import add_worker_parser

    parser: argparse.ArgumentParser = _Parser(
        prog="toolrig",
        description="The tool layer for LLM agents. Exit codes: 0 ok, 1 a tool call, plan or "
        "check failed, 2 usage or input error.",
    )
    parser.add_argument("--version", action="version", version=f"toolrig {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    add_demo_parser(commands)
    add_tools_parsers(commands)
    add_call_parser(commands)
    add_schema_parser(commands)
    add_validate_parser(commands)
    add_plan_parser(commands)
    add_log_parser(commands)
    add_search_parser(commands)
    add_agent_parser(commands)
    add_serve_parser(commands)
    add_console_parser(commands)
    add_worker_parser(commands)
    add_completion_parser(commands, parser)
    return parser


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose usage errors are one line on stderr like every other error
    (``toolrig log query: argument --limit: ...``), exit 2; every subcommand's parser is one
    too (argparse makes subparsers of the parent's class)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def parse_command(
    parser: argparse.ArgumentParser, argv: Sequence[str] | None
) -> argparse.Namespace:
    """``argv`` parsed as ``toolrig`` reads it (a usage error exits 2, as argparse does)."""
    args, extra = parser.parse_known_args(argv)
    # argparse stops filling `call`'s key=value list at the first option; the rest come here
    if extra and getattr(args, "pairs", None) is not None and not extra[0].startswith("-"):
        args.pairs += extra
        extra = []
    if extra:
        prog = " ".join(filter(None, (parser.prog, getattr(args, "command", None))))
        parser.exit(2, f"{prog}: unrecognized arguments: {' '.join(extra)} (see {prog} --help)\n")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    from toolrig.cli._output import EXIT_FAILED, EXIT_USAGE, CliError

    parser = build_parser()
    args = parse_command(parser, argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        code: int = handler(args)
    except CliError as exc:  # one line, whatever the text it quotes (a driver's message...)
        print(f"toolrig {args.command}: {' '.join(exc.message.split())}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader left (`toolrig list | head`): stop quietly
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAILED
    return code


if __name__ == "__main__":
    sys.exit(main())
