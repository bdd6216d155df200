"""``toolrig worker``: run a Celery worker that hosts a catalogue's tools for remote calls."""

from __future__ import annotations

import argparse
import os
import sys

from toolrig.cli._catalog import load_registry
from toolrig.cli._numbers import at_least
from toolrig.cli._output import EXIT_OK, CliError

__all__ = ["add_worker_parser", "run_worker"]


def add_worker_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Declare ``worker`` and its options."""
    worker = commands.add_parser(
        "worker",
        help="run a Celery worker hosting a catalogue's tools",
        description="Run a Celery worker that runs the remote calls of a catalogue's tools "
        "(tools with runs_on). It refuses to start when the catalogue's version is not the "
        "one callers expect (--expect-version, or TOOLRIG_CATALOG_VERSION).",
    )
    worker.add_argument(
        "--catalog",
        action="append",
        default=[],
        metavar="PATH",
        help="YAML tool definitions (file or folder), or a Python file defining `tools`; "
        "repeatable",
    )
    worker.add_argument(
        "--module",
        action="append",
        default=[],
        metavar="NAME",
        help="Python module whose tools (@tool, Tool, BaseTool objects) to host; repeatable",
    )
    worker.add_argument(
        "--import-path",
        action="append",
        default=[],
        metavar="DIR",
        help="folder to import executors and modules from (like PYTHONPATH); repeatable",
    )
    worker.add_argument("--broker", help="amqp:// (RabbitMQ) or redis:// URL (or TOOLRIG_BROKER)")
    worker.add_argument(
        "--backend", help="redis:// URL for results (default: the broker when it is Redis)"
    )
    worker.add_argument(
        "--queues", help="comma-separated queues (default: the tools' runs_on queues)"
    )
    worker.add_argument("--concurrency", type=at_least(1), default=1, help="calls at once (1)")
    worker.add_argument(
        "--pool",
        choices=("prefork", "threads", "solo"),
        default="prefork",
        help="prefork (default: time limits and revocation kill the process), threads or solo",
    )
    worker.add_argument("--hostname", help="worker name (default: Celery's)")
    worker.add_argument("--expect-version", metavar="VERSION", help="refuse another catalogue")
    worker.add_argument(
        "--print-version", action="store_true", help="print the catalogue's version and exit"
    )
    worker.add_argument("--loglevel", default="WARNING", help="Celery's log level (WARNING)")
    worker.set_defaults(handler=run_worker)


def run_worker(args: argparse.Namespace) -> int:
    """Load the catalogue, check its version, and run the worker until it is stopped."""
    from toolrig.distributed._version import catalog_version
    from toolrig.distributed._worker import worker_app

    if not args.catalog and not args.module:
        raise CliError("give the tools to host: --catalog PATH or --module NAME")
    registry = load_registry(args.catalog, args.import_path, modules=args.module, command="worker")
    version = catalog_version(registry.tools())
    if args.print_version:
        print(version)
        return EXIT_OK
    expected = args.expect_version or os.environ.get("TOOLRIG_CATALOG_VERSION")
    if expected and expected != version:
        raise CliError(
            f"the catalogue's version is {version} but callers expect {expected}: its tools' "
            "names or schemas differ from the callers'. Deploy the same catalogue to workers "
            "and callers (`toolrig worker --print-version` shows a catalogue's version)."
        )
    broker = args.broker or os.environ.get("TOOLRIG_BROKER")
    if not broker:
        raise CliError("give the broker: --broker URL (or TOOLRIG_BROKER)")
    queues = args.queues or ",".join(
        sorted({t.spec.runs_on for t in registry.tools() if t.spec.runs_on}) or ["toolrig"]
    )
    try:
        app = worker_app(registry, broker, args.backend, pool=args.pool)
    except (ImportError, ValueError) as exc:
        raise CliError(str(exc)) from None
    argv = [
        "worker",
        f"--queues={queues}",
        f"--concurrency={max(1, args.concurrency)}",
        f"--pool={args.pool}",
        f"--loglevel={args.loglevel}",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
    ]
    if args.hostname:
        argv.append(f"--hostname={args.hostname}")
    print(
        f"toolrig worker: catalogue {version} ({len(registry)} tool"
        f"{'' if len(registry) == 1 else 's'}) on queues {queues}",
        file=sys.stderr,
        flush=True,
    )
    app.worker_main(argv)
    return EXIT_OK
