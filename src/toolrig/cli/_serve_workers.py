"""``toolrig serve --transport http --workers N``: N processes answering on one port.

The parent binds the socket once (so a port that cannot be bound fails before anything
starts) and hands it to uvicorn's own worker supervisor, which spawns N processes, restarts one
that dies or hangs, and stops them all on SIGINT/SIGTERM. Each worker builds its own registry,
executor and ``--log`` connection from the same command line (passed in an environment
variable, as the spawned process starts afresh; see ``_serve_worker_app``) and serves
statelessly, so any worker can answer any request; each closes its log when it shuts down, so
no record is lost.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import secrets
import socket
from typing import Final

from toolrig.cli._output import EXIT_OK, CliError

__all__ = ["ENV", "run_workers"]

ENV: Final = "TOOLRIG_SERVE_WORKER_ARGS"
"""Where the parent leaves the parsed command line for its workers (JSON)."""


def run_workers(args: argparse.Namespace, token: str | None) -> int:
    """Serve ``args`` from ``args.workers`` processes until interrupted."""
    from uvicorn.supervisors import Multiprocess

    from toolrig.mcp._limits import ServeConfig
    from toolrig.mcp._rounds import KEY_ENV
    from toolrig.mcp._transports import UnsafeBindError, announce, check_bind

    try:
        guarded = args.auth_issuer is not None
        check_bind(args.host, token=token, allow_remote=args.allow_remote, auth=guarded)
    except UnsafeBindError as exc:
        raise CliError(str(exc)) from None
    sock = _bind(args.host, args.port)
    shown = f"[{args.host.strip('[]')}]" if sock.family == socket.AF_INET6 else args.host
    url = f"http://{shown}:{sock.getsockname()[1]}{args.path}"
    given = {k: v for k, v in vars(args).items() if k != "handler"}
    # A token read from a variable stays there (the workers read the same variable), so the
    # secret is not copied into another one.
    if args.auth_issuer is not None:  # each worker names the URL the parent listens at
        given["auth_resource"] = args.auth_resource or url
    os.environ[ENV] = json.dumps({**given, "stateless": True})
    os.environ.setdefault(KEY_ENV, secrets.token_hex(32))  # one requestState key for all
    config = ServeConfig(
        "toolrig.cli._serve_worker_app:worker_app",
        head_timeout=args.head_timeout,
        max_connections=args.max_connections,
        factory=True,
        workers=args.workers,
        log_level="warning",
        access_log=False,
        lifespan="on",
    )
    announce(url)
    try:
        Multiprocess(config, sockets=[sock]).run()
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    return EXIT_OK


def _bind(host: str, port: int) -> socket.socket:
    from toolrig.runtime._sockets import listening_socket

    try:
        sock = listening_socket(host, port)
    except OSError as exc:
        if exc.errno in (errno.EADDRINUSE, errno.EACCES, errno.EADDRNOTAVAIL):
            raise CliError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
        raise
    sock.set_inheritable(True)
    return sock
