"""The app of one ``toolrig serve --workers N`` process, built from the parent's command line.

uvicorn imports this module in each spawned worker and calls `worker_app`; the worker
builds its registry, executor and ``--log`` connection as ``toolrig serve`` would, serves them
statelessly, and closes them when it shuts down (so every record reaches the log).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from toolrig.cli._serve_workers import ENV

__all__ = ["worker_app"]


def worker_app() -> ASGIApp:
    """The app of one worker process (uvicorn calls it in each spawned worker)."""
    from toolrig.cli._serve import http_limits, open_server
    from toolrig.cli._serve_auth import auth_from_args
    from toolrig.mcp._transports import http_app

    args = argparse.Namespace(**json.loads(os.environ[ENV]))
    stack = contextlib.ExitStack()
    try:
        server = open_server(args, stack)
        token = os.environ.get(args.token_env) if args.token_env else args.token
        if args.token_env and not token:  # never serve open what the parent meant to guard
            raise RuntimeError(f"${args.token_env} is empty or unset in a worker")
        limits = http_limits(args)
        app = http_app(
            server,
            token=token,
            host=args.host,
            path=args.path,
            stateless=True,
            allowed_hosts=limits["allowed_hosts"],
            allowed_origins=limits["allowed_origins"],
            auth=auth_from_args(args, token),
        )
    except BaseException:
        stack.close()
        raise
    return _ClosedAtShutdown(app, stack)


class _ClosedAtShutdown:
    """Closes ``stack`` (the registry, the executor, the log) when the server shuts down."""

    def __init__(self, app: ASGIApp, stack: contextlib.ExitStack) -> None:
        self.app = app
        self.stack = stack

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            await self.app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] in ("lifespan.shutdown.complete", "lifespan.shutdown.failed"):
                self.stack.close()
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            self.stack.close()  # idempotent; also when the lifespan ends abnormally
