"""``toolrig serve``: load YAML tools (or the demo tools) into a registry and serve it over MCP."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolrig.registry._registry import Registry

__all__ = ["add_serve_parser", "build_registry", "run_serve"]


def add_serve_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Declare ``serve`` and its options."""
    serve = commands.add_parser(
        "serve",
        help="serve tools over MCP (stdio or streamable HTTP)",
        description="Serve YAML tools (files or folders) over MCP; without paths, or with "
        "--demo, serve the built-in demo tools.",
    )
    serve.add_argument("paths", nargs="*", metavar="PATH", help="YAML tool files or folders")
    serve.add_argument("--demo", action="store_true", help="also serve the built-in demo tools")
    serve.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    serve.add_argument("--host", default="127.0.0.1", help="HTTP bind address (127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="HTTP port (0: any free port)")
    serve.add_argument("--path", default="/mcp", help="HTTP endpoint path (/mcp)")
    token = serve.add_mutually_exclusive_group()
    token.add_argument("--token", help="require 'Authorization: Bearer TOKEN' over HTTP")
    token.add_argument("--token-env", metavar="VAR", help="read the token from variable VAR")
    serve.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a non-loopback bind address without a token",
    )
    serve.add_argument(
        "--watch", action="store_true", help="reload folders when files change (hot reload)"
    )
    serve.add_argument("--name", default="toolrig", help="server name shown to clients")
    serve.add_argument(
        "--meta-tools",
        action="store_true",
        help="expose only search_tools and call_tool (for catalogues too big for one prompt)",
    )
    serve.add_argument(
        "--usage-log",
        metavar="URL",
        help="with --meta-tools: rank tools called often in this execution log a little higher "
        "(a SQLite file or a postgresql:// URL)",
    )
    serve.add_argument(
        "--import-path",
        action="append",
        default=[],
        metavar="DIR",
        help="folder to import executors from (like PYTHONPATH); repeatable",
    )


def build_registry(paths: Sequence[str], *, demo: bool, watch: bool) -> Registry:
    """A registry holding the demo tools (when asked, or when no path is given) and the tools
    of ``paths``; folders are watched when ``watch``. Load problems go to stderr."""
    from toolrig.registry._registry import Registry

    registry = Registry()
    if demo or not paths:
        from toolrig.cli._demo import demo_tools

        for tool in demo_tools():
            registry.add(tool)
    for raw in paths:
        path = Path(raw)
        report = registry.watch(path).report if watch and path.is_dir() else registry.load(path)
        for error in getattr(report, "errors", ()):
            print(f"toolrig serve: {error}", file=sys.stderr)
    return registry


def run_serve(args: argparse.Namespace) -> int:
    """Run ``toolrig serve`` with parsed ``args``; returns the exit code."""
    try:
        from toolrig.mcp._serve import serve
        from toolrig.mcp._transports import UnsafeBindError, announce
    except ImportError as exc:
        print(f"toolrig serve: {exc}", file=sys.stderr)
        return 1
    if args.usage_log and not args.meta_tools:
        print("toolrig serve: --usage-log ranks search results: add --meta-tools", file=sys.stderr)
        return 2
    token = args.token
    if args.token_env:
        token = os.environ.get(args.token_env)
        if not token:
            print(f"toolrig serve: ${args.token_env} is empty or unset", file=sys.stderr)
            return 2
    from toolrig.cli._catalog import add_import_paths

    add_import_paths(args.import_path)
    registry = build_registry(args.paths, demo=args.demo, watch=args.watch)
    source: Any = registry
    if args.meta_tools:
        from toolrig.cli._catalog import load_usage
        from toolrig.registry._catalog import Catalog
        from toolrig.runtime._executor import ToolExecutor
        from toolrig.search._index import ToolIndex
        from toolrig.search._meta_tools import meta_tools

        index = ToolIndex.follow(registry)
        problem = load_usage(index, args.usage_log) if args.usage_log else None
        if problem:
            print(f"toolrig serve: cannot read tool usage: {problem}", file=sys.stderr)
            registry.close()
            return 2
        calls = ToolExecutor(registry)
        registry.own(calls.close)
        source = Catalog(meta_tools(index, calls))
    try:
        serve(
            source,
            transport=args.transport,
            host=args.host,
            port=args.port,
            token=token,
            allow_remote=args.allow_remote,
            path=args.path,
            name=args.name,
            on_ready=announce,
        )
    except UnsafeBindError as exc:
        print(f"toolrig serve: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        pass
    finally:
        with contextlib.suppress(Exception):
            registry.close()
    return 0
