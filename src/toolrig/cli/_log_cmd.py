"""``toolrig log query|tail|summary``: read an execution log, SQLite or PostgreSQL.

``query`` filters records (tool, status, run, time), ``tail`` shows the newest and can follow
new ones as they are written, ``summary`` counts calls, failures and time per tool, or prints
the bounded text of one run that an LLM would be given. Reading never creates a log: a SQLite
path that does not exist is an input error (exit 2).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolrig.cli._numbers import at_least, seconds
from toolrig.cli._output import EXIT_OK, CliError, add_json_option
from toolrig.core.model._names import ActionRef

if TYPE_CHECKING:
    from toolrig.storage._log import ExecutionLog
    from toolrig.storage._record import ExecutionRecord

__all__ = [
    "add_log_parser",
    "last_records",
    "open_existing_log",
    "open_log_for_writing",
    "parse_since",
    "records_after",
]

_DURATION = re.compile(r"^(\d+(?:\.\d+)?)([smhd])$")
_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_COLOURS = {
    "succeeded": "green",
    "failed": "red",
    "skipped": "yellow",
    "denied": "magenta",
    "answered": "blue",
}
"""The colour of each record status in the tables (every `RecordStatus` has one)."""


def add_log_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Declare ``log`` and its three subcommands."""
    log = commands.add_parser(
        "log",
        help="query, tail or summarise an execution log (SQLite or PostgreSQL)",
        description="Read an execution log: a SQLite file or a postgresql:// URL (--log; "
        "default $TOOLRIG_LOG, else the user data folder's executions.sqlite3).",
    )
    actions = log.add_subparsers(dest="log_command", metavar="ACTION", required=True)
    query = actions.add_parser("query", help="records matching filters, oldest first")
    query.add_argument("--tool", help="only this tool, or this action (tool.action)")
    query.add_argument(
        "--status", help="only this status: succeeded, failed, skipped, denied or answered"
    )
    query.add_argument(
        "--run", dest="run_id", metavar="RUN_ID", help="only this run (plan id, serve session)"
    )
    query.add_argument("--since", metavar="WHEN", help="30m, 2h, 7d, an ISO time or epoch")
    query.add_argument("--limit", type=at_least(1), default=100, help="at most this many (100)")
    tail = actions.add_parser("tail", help="the newest records; --follow for new ones")
    tail.add_argument("-n", type=at_least(0), default=20, dest="count", help="how many (20)")
    tail.add_argument("--follow", "-f", action="store_true", help="keep printing new records")
    tail.add_argument("--interval", type=seconds, default=1.0, help="seconds between polls (1)")
    summary = actions.add_parser(
        "summary", help="calls, failures and time per tool; or one run as an LLM reads it"
    )
    summary.add_argument("run_id", nargs="?", metavar="RUN_ID", help="summarise this run")
    summary.add_argument("--since", metavar="WHEN", help="30m, 2h, 7d, an ISO time or epoch")
    summary.add_argument("--max-chars", type=at_least(80), default=4000, help="for RUN_ID (4000)")
    for sub in (query, tail, summary):
        sub.add_argument(
            "--log", metavar="URL", help="SQLite path or postgresql:// URL (default $TOOLRIG_LOG)"
        )
        add_json_option(sub)
    query.set_defaults(handler=_run_query)
    tail.set_defaults(handler=_run_tail)
    summary.set_defaults(handler=_run_summary)


def parse_since(text: str | None) -> float | None:
    """Epoch seconds from ``30s`` / ``15m`` / ``2h`` / ``7d`` (ago), an ISO date or time, or
    epoch seconds; `CliError` otherwise."""
    if text is None:
        return None
    match = _DURATION.match(text.strip())
    if match:
        return time.time() - float(match.group(1)) * _SECONDS[match.group(2)]
    try:
        return float(text)
    except ValueError:
        pass
    try:
        return datetime.fromisoformat(text).timestamp()
    except ValueError:
        raise CliError(f"--since {text!r}: use 30m, 2h, 7d, an ISO time or epoch seconds") from None


@contextmanager
def open_existing_log(url: str | None) -> Iterator[ExecutionLog]:
    """The log at ``url`` (default ``$TOOLRIG_LOG``, else the default file), closed after use.
    A SQLite file that does not exist, or a database that cannot be reached, is a
    `CliError`: reading must not create an empty log and report nothing."""
    from toolrig.storage._open import open_log
    from toolrig.storage._sqlite import default_log_path

    url = url or os.environ.get("TOOLRIG_LOG") or str(default_log_path())
    if not url.startswith(("postgresql://", "postgres://")):
        path = Path(url.removeprefix("sqlite:///"))
        if not path.is_file():
            raise CliError(f"no execution log at {str(path)!r}")
    try:
        log = open_log(url)
        log.query(limit=1)  # connect now, so an unreachable server is one clear line
    except Exception as exc:  # a driver's own error types: say what failed, do not trace
        raise CliError(f"cannot read the execution log {url!r}: {exc}") from None
    try:
        yield log
    finally:
        log.close()


@contextmanager
def open_log_for_writing(url: str) -> Iterator[ExecutionLog]:
    """The log at ``url`` (a SQLite file is created when missing), connected now so that a
    database that cannot be reached is a `CliError` before anything starts."""
    from toolrig.storage._open import open_log

    try:
        log = open_log(url)
        log.query(limit=1)
    except Exception as exc:  # a driver's own error types: say what failed, do not trace
        raise CliError(f"cannot open the execution log {url!r}: {exc}") from None
    try:
        yield log
    finally:
        log.close()


def _run_query(args: argparse.Namespace) -> int:
    from toolrig.storage._record import status_of

    ref = None if args.tool is None else ActionRef.parse(args.tool)
    try:
        status = None if args.status is None else status_of(args.status).value
    except ValueError as exc:
        raise CliError(f"--status: {exc}") from None
    with open_existing_log(args.log) as log:
        records = log.query(
            tool=None if ref is None else ref.tool,
            action=ref.action if ref is not None and ref.multi else None,
            status=status,
            run_id=args.run_id,
            since=parse_since(args.since),
            limit=args.limit,
        )
    _show(records, args.json, title=f"{len(records)} records")
    return EXIT_OK


def _run_tail(args: argparse.Namespace) -> int:
    with open_existing_log(args.log) as log:
        records, newest = last_records(log, args.count)
        _show(records, args.json, title=f"last {len(records)} records")
        if not args.follow:
            return EXIT_OK
        sys.stdout.flush()  # each batch is seen as it comes, even through a pipe
        for fresh in records_after(log, newest, interval=args.interval):  # until Ctrl-C (130)
            _show(fresh, args.json, title=None)
            sys.stdout.flush()
    return EXIT_OK  # not reached: the batches end only with Ctrl-C


def last_records(log: ExecutionLog, count: int) -> tuple[list[ExecutionRecord], int]:
    """The newest ``count`` records, oldest first, and the id of the newest record of the log
    (0 when it has none): the one to follow from, even when ``count`` is 0."""
    newest = log.query(limit=max(count, 1), newest_first=True)
    return list(reversed(newest[:count])), (newest[0].id or 0) if newest else 0


def records_after(
    log: ExecutionLog, after_id: int, *, interval: float
) -> Iterator[list[ExecutionRecord]]:
    """Each batch of records written after ``after_id``, looking every ``interval`` seconds.

    By id, not by time: a record is written when its call ends, so a call that started before
    the last one shown can be written after it."""
    while True:
        time.sleep(interval)
        fresh = log.query(after_id=after_id)
        if fresh:
            after_id = max(r.id or 0 for r in fresh)
            yield fresh


def _run_summary(args: argparse.Namespace) -> int:
    with open_existing_log(args.log) as log:
        if args.run_id:
            records = log.get_run(args.run_id)
            if not records:
                raise CliError(f"no run {args.run_id!r} in this log")
            if args.json:
                _show(records, True, title=None)
            else:
                print(log.get_summary(args.run_id, max_chars=args.max_chars))
            return EXIT_OK
        records = log.query(since=parse_since(args.since))
    rows = _per_tool(records)
    if args.json:
        from toolrig.cli._output import print_json

        print_json(rows)
        return EXIT_OK
    from rich.markup import escape
    from rich.table import Column, Table

    from toolrig.cli._output import out_console
    from toolrig.storage._record import RecordStatus

    table = Table(
        Column("tool", style="bold cyan"),
        Column("calls", justify="right"),
        *(Column(s.value, justify="right", style=_COLOURS[s.value]) for s in RecordStatus),
        Column("mean ms", justify="right"),
        Column("max ms", justify="right"),
        "last error",
        title=f"{len(records)} records, {len(rows)} tools",
        title_justify="left",
    )
    for row in rows:
        table.add_row(
            escape(row["tool"]),
            str(row["calls"]),
            *(str(row[s.value]) for s in RecordStatus),
            f"{row['mean_ms']:.1f}",
            f"{row['max_ms']:.1f}",
            escape(_short(row["last_error"] or "", 60)),
        )
    out_console().print(table)
    return EXIT_OK


def _per_tool(records: list[ExecutionRecord]) -> list[dict[str, Any]]:
    """Counts (of each status) and times per tool (``tool.action`` for multi-action tools),
    busiest first."""
    from toolrig.storage._record import RecordStatus

    by_tool: dict[str, list[ExecutionRecord]] = {}
    for record in records:
        by_tool.setdefault(_name(record), []).append(record)
    rows = []
    for name, group in by_tool.items():
        durations = [r.duration_ms for r in group]
        errors = [r for r in group if r.error_message]
        rows.append(
            {
                "tool": name,
                "calls": len(group),
                **{s.value: sum(r.status == s for r in group) for s in RecordStatus},
                "mean_ms": sum(durations) / len(durations),
                "max_ms": max(durations),
                "last_error": errors[-1].error_message if errors else None,
            }
        )
    return sorted(rows, key=lambda row: (-row["calls"], row["tool"]))


def _name(record: ExecutionRecord) -> str:
    return ActionRef.of_record(record.executor, record.action).call_name


def _show(records: list[ExecutionRecord], as_json: bool, *, title: str | None) -> None:
    """Records as JSON lines, or as a table for people."""
    if as_json:
        import dataclasses
        import json

        from toolrig.core.result._result import to_jsonable

        for record in records:
            print(json.dumps(to_jsonable(dataclasses.asdict(record)), ensure_ascii=False))
        return
    from rich.markup import escape
    from rich.table import Column, Table

    from toolrig.cli._output import out_console

    table = Table(
        Column("id", justify="right", style="dim"),
        "time",
        Column("tool", style="bold cyan"),
        "status",
        Column("ms", justify="right"),
        "run",
        Column("output or error", overflow="fold"),
        title=title,
        title_justify="left",
    )
    for r in records:
        colour = _COLOURS.get(r.status, "white")
        shown = f"[{r.error_code}] {r.error_message}" if r.error_message else _text(r.output)
        table.add_row(
            str(r.id),
            datetime.fromtimestamp(r.started_at).strftime("%Y-%m-%d %H:%M:%S"),
            escape(_name(r)),
            f"[{colour}]{r.status}[/]",
            f"{r.duration_ms:.1f}",
            escape(r.run_id),
            escape(_short(shown, 80)),
        )
    out_console().print(table)


def _text(value: Any) -> str:
    if value is None or isinstance(value, str):
        return value or ""
    import json

    return json.dumps(value, ensure_ascii=False, default=str)


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
