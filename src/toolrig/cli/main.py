"""The ``toolrig`` command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    from toolrig import __version__

    parser = argparse.ArgumentParser(prog="toolrig", description="The tool layer for LLM agents.")
    parser.add_argument("--version", action="version", version=f"toolrig {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo = commands.add_parser(
        "demo",
        help="tools defined three ways, good and bad calls, a plan over the example catalogue",
    )
    demo.add_argument("--no-prompt", action="store_true", help="do not print the tools' prompt")
    from toolrig.cli._serve import add_serve_parser

    add_serve_parser(commands)
    from toolrig.cli._plan_cmd import add_plan_parser

    add_plan_parser(commands)
    from toolrig.cli._search_cmd import add_search_parser

    add_search_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "demo":
        from toolrig.cli._demo import run_demo

        return run_demo(show_prompt=not args.no_prompt)
    if args.command == "serve":
        from toolrig.cli._serve import run_serve

        return run_serve(args)
    if args.command == "plan":
        from toolrig.cli._plan_cmd import run_plan_command

        return run_plan_command(args)
    if args.command == "search":
        from toolrig.cli._search_cmd import run_search_command

        return run_search_command(args)
    parser.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
