"""``--broker`` and ``--backend``: the options of commands whose calls may run on workers.

A command that runs calls (``call``, ``serve``) adds them with :func:`add_broker_options` and
hands its executor to :func:`attach_remote`, which sends the calls of tools with ``runs_on``
to ``toolrig worker`` processes through that broker.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from toolrig.cli._output import CliError

__all__ = ["add_broker_options", "attach_remote"]


def add_broker_options(parser: argparse.ArgumentParser) -> None:
    """Declare ``--broker URL`` and ``--backend URL``."""
    parser.add_argument(
        "--broker",
        metavar="URL",
        help="send calls of tools with runs_on to workers through this Celery broker "
        "(amqp:// or redis://; or TOOLRIG_BROKER); see `toolrig worker`",
    )
    parser.add_argument(
        "--backend",
        metavar="URL",
        help="with --broker: the redis:// result backend (default: the broker, when Redis)",
    )


def attach_remote(executor: Any, args: argparse.Namespace) -> bool:
    """Send ``executor``'s remote calls to workers when a broker is given; whether one is."""
    broker = getattr(args, "broker", None) or os.environ.get("TOOLRIG_BROKER")
    if not broker:
        return False
    from toolrig.distributed._celery import CeleryEngine
    from toolrig.distributed._dispatch import RemoteDispatch

    try:
        engine = CeleryEngine(broker, getattr(args, "backend", None))
    except (ImportError, ValueError) as exc:
        raise CliError(f"--broker: {exc}") from None
    executor.dispatch_with(RemoteDispatch(engine))
    return True
