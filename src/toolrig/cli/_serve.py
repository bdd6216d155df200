"""``toolrig serve``: load a catalogue (or the demo tools) into a registry and serve it over MCP."""

from __future__ import annotations

import argparse
import contextlib
import errno
import os
import time
from typing import TYPE_CHECKING, Any

from toolrig.cli._catalog import add_catalog_options
from toolrig.cli._numbers import at_least, port, seconds
from toolrig.cli._output import EXIT_OK, CliError, add_json_option
from toolrig.cli._remote_opts import add_broker_options, attach_remote
from toolrig.cli._serve_auth import add_auth_options, auth_from_args

if TYPE_CHECKING:
    from toolrig.registry._registry import Registry

__all__ = [
    "add_serve_parser",
    "build_registry",
    "catalog_sources",
    "http_limits",
    "open_server",
    "run_serve",
]


def add_serve_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Declare ``serve`` and its options."""
    serve = commands.add_parser(
        "serve",
        help="serve tools over MCP (stdio or streamable HTTP)",
        description="Serve tools over MCP: YAML definitions (files or folders) and Python "
        "files defining `tools`, given as paths or with --catalog, and --module modules; "
        "without any, or with --demo, the built-in demo tools. Each call is printed on "
        "stderr (the access log; JSON lines with --json), and so is each hot reload with "
        "--watch. A path that does not exist, or a port that cannot be bound, exits 2.",
    )
    serve.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="YAML tool files or folders, or Python files defining `tools` (as --catalog)",
    )
    add_catalog_options(serve, demo_default=True)
    serve.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    serve.add_argument("--host", default="127.0.0.1", help="HTTP bind address (127.0.0.1)")
    serve.add_argument("--port", type=port, default=8000, help="HTTP port (0: any free port)")
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
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME[:PORT]",
        help="HTTP: also answer this Host (e.g. a reverse proxy's public name); repeatable. "
        "The bind address and loopback names are always answered, any other Host gets 421",
    )
    serve.add_argument(
        "--allowed-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="HTTP: let browser pages from this origin call (https://app.example); "
        "repeatable. Loopback origins are allowed, any other Origin gets 403",
    )
    serve.add_argument(
        "--head-timeout",
        type=seconds,
        default=10.0,
        metavar="SECONDS",
        help="HTTP: close a connection whose request head has not arrived in time (10)",
    )
    serve.add_argument(
        "--max-connections",
        type=at_least(1),
        default=1000,
        metavar="N",
        help="HTTP: open connections at most; past it the oldest idle one is closed (1000)",
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
        "--log",
        metavar="URL",
        help="record every call in this execution log (SQLite path or postgresql:// URL)",
    )
    serve.add_argument(
        "--stateless",
        action="store_true",
        help="HTTP: no sessions, one JSON answer per request, so several processes or hosts "
        "can serve behind one address (no progress, logs or change notices reach clients)",
    )
    serve.add_argument(
        "--workers",
        type=at_least(1),
        default=1,
        metavar="N",
        help="HTTP: serve from N processes sharing the port (implies --stateless)",
    )
    add_auth_options(serve)
    add_broker_options(serve)
    add_json_option(serve)
    serve.set_defaults(handler=run_serve)


def catalog_sources(args: argparse.Namespace) -> list[str]:
    """The catalogue paths ``serve`` was given: its positional paths, then ``--catalog``."""
    return [*args.paths, *args.catalog]


def build_registry(args: argparse.Namespace) -> Registry:
    """A registry holding the tools of the paths, ``--catalog`` and ``--module`` (read as
    every command reads a catalogue: ``load_registry``), plus the demo tools when asked or
    when none is given; folders are watched with ``--watch``, and each reload is printed."""
    from toolrig.cli._catalog import add_demo_tools, load_registry
    from toolrig.cli._serve_report import ReloadReport

    paths = catalog_sources(args)
    registry = load_registry(
        paths, args.import_path, modules=args.module, command="serve", what="path",
        watch=args.watch,
    )  # fmt: skip
    if args.demo or not (paths or args.module):
        add_demo_tools(registry)
    if args.watch:  # after the first load, so only reloads are reported
        registry.add_change_listener(ReloadReport(as_json=args.json))
    return registry


def run_serve(args: argparse.Namespace) -> int:
    """Run ``toolrig serve`` with parsed ``args``; returns the exit code."""
    try:
        from toolrig.mcp._serve import serve
        from toolrig.mcp._transports import UnsafeBindError, announce
    except ImportError as exc:
        raise CliError(f"{exc} (install the extra: pip install 'toolrig[mcp]')") from None
    if args.usage_log and not args.meta_tools:
        raise CliError("--usage-log ranks search results: add --meta-tools")
    token = args.token
    if args.token_env:
        token = os.environ.get(args.token_env)
        if not token:
            raise CliError(f"${args.token_env} is empty or unset")
    if (args.stateless or args.workers != 1) and args.transport != "http":
        raise CliError("--stateless and --workers serve over HTTP: add --transport http")
    auth = auth_from_args(args, token)
    if args.workers > 1:
        from toolrig.cli._serve_workers import run_workers

        return run_workers(args, token)
    registry = build_registry(args)
    with contextlib.ExitStack() as stack:
        stack.callback(registry.close)
        server = _server(registry, args, stack)
        try:
            serve(
                server,
                transport=args.transport,
                host=args.host,
                port=args.port,
                token=token,
                auth=auth,
                allow_remote=args.allow_remote,
                path=args.path,
                name=args.name,
                on_ready=announce,
                stateless=args.stateless,
                **http_limits(args),
            )
        except UnsafeBindError as exc:
            raise CliError(str(exc)) from None
        except OSError as exc:
            if exc.errno in (errno.EADDRINUSE, errno.EACCES, errno.EADDRNOTAVAIL):
                reason = exc.strerror or str(exc)
                raise CliError(f"cannot listen on {args.host}:{args.port}: {reason}") from None
            raise
        except KeyboardInterrupt:
            pass
    return EXIT_OK


def http_limits(args: argparse.Namespace) -> dict[str, Any]:
    """The Host/Origin allow-lists and connection limits given on the command line."""
    return {
        "allowed_hosts": tuple(args.allowed_host),
        "allowed_origins": tuple(args.allowed_origin),
        "head_timeout": args.head_timeout,
        "max_connections": args.max_connections,
    }


def _server(registry: Registry, args: argparse.Namespace, stack: contextlib.ExitStack) -> Any:
    """The MCP server over ``registry`` (or over its two meta-tools), its calls printed to the
    access log and recorded in ``--log`` when given."""
    from toolrig.cli._serve_report import AccessLog
    from toolrig.mcp._server import ToolServer
    from toolrig.runtime._executor import ToolExecutor

    calls = stack.enter_context(ToolExecutor(registry))
    attach_remote(calls, args)  # --broker: calls of tools with runs_on go to workers
    calls.add_listener(AccessLog(as_json=args.json))
    scope = None
    if args.log:
        from toolrig.cli._log_cmd import open_log_for_writing
        from toolrig.storage._runs import RunStatus

        log = stack.enter_context(open_log_for_writing(args.log))
        run_id = f"serve-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
        scope = log.start_run(run_id, "serve", name=args.name)
        stack.callback(log.finish_run, run_id, RunStatus.SUCCEEDED, stop_reason="stopped")
    if not args.meta_tools:
        from toolrig.cli._python_tools import python_server_options

        options = python_server_options(catalog_sources(args))
        server = ToolServer(registry, calls, name=args.name, **options)
        server.recording = scope
        if args.log:  # tasks and spent round states in the log, shared by every worker
            server.tasks.keep_in(log)
            server.input_rounds.keep_in(log)
        return stack.enter_context(contextlib.closing(server))
    from toolrig.cli._catalog import load_usage
    from toolrig.registry._catalog import Catalog
    from toolrig.search._index import ToolIndex
    from toolrig.search._meta_tools import meta_tools

    index = ToolIndex.follow(registry)
    problem = load_usage(index, args.usage_log) if args.usage_log else None
    if problem:
        raise CliError(f"cannot read tool usage: {problem}")
    front = Catalog(meta_tools(index, calls))
    server = ToolServer(front, name=args.name)
    server.recording = scope  # the meta-tool calls and the calls they make
    return stack.enter_context(contextlib.closing(server))


def open_server(args: argparse.Namespace, stack: contextlib.ExitStack) -> Any:
    """The MCP server that ``toolrig serve`` with ``args`` runs, its registry and log closed
    with ``stack`` (what each ``--workers`` process builds for itself)."""
    registry = build_registry(args)
    stack.callback(registry.close)
    return _server(registry, args, stack)
