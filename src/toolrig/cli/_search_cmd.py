"""``toolrig search``: the tools of a catalogue that fit a request, ranked, in a table or JSON."""

from __future__ import annotations

import argparse
import json
from typing import Any

from toolrig.cli._numbers import at_least
from toolrig.cli._output import add_json_option

__all__ = ["add_search_parser", "run_search_command"]


def add_search_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``search`` and its options on the CLI's subcommands."""
    search = commands.add_parser(
        "search", help="find the tools of a catalogue that fit a request (tool search)"
    )
    search.add_argument("query", help="the request, in a few words or a sentence")
    search.add_argument(
        "--catalog",
        action="append",
        default=[],
        metavar="PATH",
        help="YAML tool definitions (file or folder), or a Python file defining `tools`; "
        "repeatable",
    )
    search.add_argument("-k", type=at_least(1), default=5, help="how many results (default 5)")
    search.add_argument("--type", help="only tools of this type")
    search.add_argument("--layer", help="only tools of this layer")
    search.add_argument(
        "--tag", action="append", default=[], help="only tools with this tag; repeatable"
    )
    search.add_argument(
        "--mode",
        choices=["auto", "lexical", "dense", "fused"],
        default="auto",
        help="ranking (auto: fused when the extra 'search' is installed, else lexical)",
    )
    search.add_argument(
        "--accurate",
        action="store_true",
        help="re-score the best candidates with a reranker (slower, more precise; needs the "
        "extra 'search-accurate')",
    )
    search.add_argument(
        "--usage-log",
        metavar="URL",
        help="rank tools called often in this execution log a little higher "
        "(a SQLite file or a postgresql:// URL)",
    )
    search.add_argument(
        "--learn-from",
        metavar="URL",
        help="rank higher the tools that requests like this one led to, as stored in this "
        "execution log's request pairs (a SQLite file or a postgresql:// URL)",
    )
    search.add_argument("--tools", action="store_true", help="one result per tool, not action")
    add_json_option(search)
    search.set_defaults(handler=run_search_command)


def run_search_command(args: argparse.Namespace) -> int:
    """Run ``toolrig search``; 0 with results, 1 with none, 2 for a bad request."""
    from rich.markup import escape
    from rich.table import Column, Table

    from toolrig.cli._build_progress import BuildProgress
    from toolrig.cli._catalog import load_learned, load_registry, load_usage
    from toolrig.cli._output import CliError, out_console
    from toolrig.search._index import ToolIndex
    from toolrig.search._packaged import ModelFilesMissing

    console = out_console()
    if not args.catalog:
        raise CliError("give at least one --catalog folder or file to search")
    registry = load_registry(args.catalog, command="search")
    progress = BuildProgress()
    try:
        index = ToolIndex.follow(registry, accurate=args.accurate, progress=progress)
    except ModelFilesMissing as exc:
        raise CliError(f"cannot search --accurate: {exc}") from None
    filters: dict[str, Any] = {}
    if args.type:
        filters["type"] = args.type
    if args.layer:
        filters["layer"] = args.layer
    if args.tag:
        filters["tags"] = args.tag
    if args.usage_log:
        problem = load_usage(index, args.usage_log)
        if problem:
            raise CliError(f"cannot read tool usage: {problem}")
    if args.learn_from:
        problem = load_learned(index, args.learn_from)
        if problem:
            raise CliError(f"cannot read request pairs: {problem}")
    try:
        hits = index.search(
            args.query,
            k=args.k,
            filters=filters or None,
            mode=args.mode,
            group="tool" if args.tools else "action",
        )
    except ValueError as exc:
        raise CliError(f"cannot search: {exc}") from None
    finally:
        progress.close()
    if args.json:
        print(json.dumps([{"name": h.name, "score": h.score} for h in hits], indent=2))
        return 0 if hits else 1
    if not hits:
        console.print("no tool fits this request")
        return 1
    table = Table("#", Column("tool", no_wrap=True), "score", "description")
    for rank, hit in enumerate(hits, 1):
        spec = registry.get(hit.tool).spec
        action = spec.actions.get(hit.action)
        text = action.description if spec.is_multi_action and action else spec.description
        table.add_row(str(rank), escape(hit.name), f"{hit.score:.2f}", escape(text.strip()))
    console.print(table)
    return 0
