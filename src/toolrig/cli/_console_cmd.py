"""``toolrig console``: serve the web console over an execution log and a catalogue.

Binds 127.0.0.1 by default; any other address needs ``--token``, and with a token every
request must carry it (the address printed at start sets it once as a cookie).
"""

from __future__ import annotations

import argparse
import sqlite3

from toolrig.cli._catalog import add_catalog_options
from toolrig.cli._numbers import port
from toolrig.cli._output import EXIT_OK, CliError

__all__ = ["add_console_parser", "run_console"]


def add_console_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Declare ``console`` and its options."""
    console = commands.add_parser(
        "console",
        help="a local web console: runs, approvals, the catalogue, health",
        description="Serve a web console over the execution log and the catalogue: runs and "
        "their timelines (live), the approvals inbox, the catalogue with a try-it form, and "
        "the log's health. Binds 127.0.0.1; another address needs --token.",
    )
    console.add_argument(
        "--log",
        metavar="URL",
        help="execution log (SQLite path or postgresql:// URL; default: the user log)",
    )
    add_catalog_options(console, demo_default=True)
    console.add_argument("--host", default="127.0.0.1", help="bind address (127.0.0.1)")
    console.add_argument("--port", type=port, default=8765, help="port (8765; 0 picks a free one)")
    console.add_argument("--token", metavar="T", help="required on every request when given")
    console.add_argument(
        "--read-only", action="store_true", help="look only: no decisions, no try-it calls"
    )
    console.set_defaults(handler=run_console)


def run_console(args: argparse.Namespace) -> int:
    """Serve until interrupted."""
    try:
        import uvicorn

        from toolrig.console import UnsafeConsoleBind, app
    except ImportError as exc:
        raise CliError(f"the console needs {exc.name}: pip install 'toolrig[console]'") from None

    from toolrig.cli._catalog import add_demo_tools, load_registry
    from toolrig.runtime._sockets import listening_socket
    from toolrig.storage._open import open_log

    try:  # first: a log that cannot be read is said in one line, before anything loads
        log = open_log(args.log)
    except sqlite3.DatabaseError as exc:
        raise CliError(f"the log {args.log or 'file'} cannot be read: {exc}") from None
    # YAML folders are watched: edits show on the catalogue page as they are reloaded
    try:
        registry = load_registry(
            args.catalog, args.import_path, modules=args.module, command="console", watch=True
        )
    except BaseException:
        log.close()
        raise
    if args.demo or not (args.catalog or args.module):
        add_demo_tools(registry)
    try:
        try:
            asgi = app(
                log=log,
                catalog=registry,
                host=args.host,
                token=args.token,
                read_only=args.read_only,
            )
        except UnsafeConsoleBind as exc:
            raise CliError(str(exc)) from None
        try:
            sock = listening_socket(args.host, args.port)
        except OSError as exc:
            raise CliError(
                f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}"
            ) from None
        port = sock.getsockname()[1]
        shown = f"[{args.host.strip('[]')}]" if ":" in args.host else args.host
        address = f"http://{shown}:{port}/"
        if args.token:
            address += "?token=…"  # the token is the user's own: not printed back
        print(f"toolrig console on {address} over {log!r} (Ctrl-C stops it)", flush=True)
        config = uvicorn.Config(asgi, log_level="warning", timeout_graceful_shutdown=1)
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        log.close()
        registry.close()
    return EXIT_OK
