"""What ``db_tool`` lets run on PostgreSQL, decided by PostgreSQL's own parser (``pglast``).

A hand-written scanner is right only for the cases its author thought of: one that ended a
``/* ... */`` comment at the first ``*/`` let ``/* /* */ SELECT */ COPY ... TO PROGRAM`` through,
because PostgreSQL nests comments. ``pglast`` embeds the server's parser, so the tree checked here
is the tree the server will build.

A query is allowed when it is one statement, a plain ``SELECT`` (``WITH ... SELECT``, ``VALUES``,
``TABLE``) or an ``EXPLAIN`` of one without ``ANALYZE``, with no nested statement that changes
data (``WITH x AS (DELETE ...)``), no ``SELECT ... INTO``, no row locks, and no call to a function
that reaches outside the query: server files and programs, large objects, other connections,
backends, settings, locks, sequences, replication, notifications. Functions a user created are
not known here; the role the tool connects as is what limits those (see :func:`role_problem`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from toolrig.core._errors import ErrorCode, ToolError

__all__ = [
    "DENIED_FUNCTIONS",
    "DENIED_PREFIXES",
    "INSTALL",
    "MAX_SQL_CHARS",
    "ROLE_QUERY",
    "check_postgres_query",
    "narrow_role_sql",
    "require_pglast",
    "role_problem",
]

INSTALL: Final = "pip install 'toolrig[postgres]'"
MAX_SQL_CHARS: Final = 100_000
_MAX_NODES: Final = 200_000

DENIED_PREFIXES: Final = (
    "lo_",  # large objects: lo_import / lo_export read and write server files
    "pg_read_",  # pg_read_file, pg_read_binary_file
    "pg_ls_",  # pg_ls_dir, pg_ls_logdir, pg_ls_waldir, ...
    "pg_file_",  # adminpack: pg_file_write, pg_file_rename, ...
    "dblink",  # connections to other servers, run as the server
    "pg_advisory",  # session-wide locks that outlive the query
    "pg_try_advisory",
    "pg_logical_",  # logical decoding and messages
    "pg_replication_",  # replication origins
    "pg_create_",  # replication slots, restore points
    "pg_drop_",
    "pg_copy_",
    "pg_stat_reset",  # statistics resets
    "pg_wal_replay_",
    "pg_backup_",
    "query_to_xml",  # runs a query given as text, which this check never saw
    "cursor_to_xml",
)
"""Function-name prefixes refused in a query (the name's last part, as the server folds it)."""

DENIED_FUNCTIONS: Final = frozenset(
    {
        "loread",
        "lowrite",
        "pg_stat_file",
        "pg_logdir_ls",
        "pg_current_logfile",
        "pg_terminate_backend",
        "pg_cancel_backend",
        "pg_signal_backend",
        "pg_reload_conf",
        "pg_rotate_logfile",
        "pg_rotate_logfile_old",
        "pg_promote",
        "pg_switch_wal",
        "pg_start_backup",
        "pg_stop_backup",
        "pg_export_snapshot",
        "pg_import_system_collations",
        "pg_log_backend_memory_contexts",
        "pg_sync_replication_slots",
        "pg_notify",
        "set_config",
        "nextval",
        "setval",
        "txid_current",
        "pg_current_xact_id",
        "query_to_xmlschema",
        "query_to_xml_and_xmlschema",
    }
)
"""Function names refused in a query, beside :data:`DENIED_PREFIXES`."""

ROLE_QUERY: Final = """
SELECT r.rolname,
       r.rolsuper,
       pg_has_role(r.oid, 'pg_execute_server_program', 'MEMBER'),
       pg_has_role(r.oid, 'pg_write_server_files', 'MEMBER'),
       pg_has_role(r.oid, 'pg_read_server_files', 'MEMBER')
FROM pg_roles AS r
WHERE r.rolname IN (current_user, session_user)
"""
"""One row per role the session acts as: its name, superuser flag and the three server roles."""

_POWERS: Final = (
    "is a superuser",
    "may run programs on the server (pg_execute_server_program)",
    "may write files on the server (pg_write_server_files)",
    "may read files on the server (pg_read_server_files)",
)
_READ_ONLY_HINT: Final = (
    "query_db only reads: use one SELECT (or WITH ... SELECT, VALUES, EXPLAIN)."
)


def require_pglast() -> Any:
    """The ``pglast`` module; an ``ImportError`` naming the extra when it is missing."""
    try:
        import pglast
    except ImportError as missing:
        raise ImportError(
            "db_tool needs pglast (PostgreSQL's own parser) to check queries on PostgreSQL: "
            f"{INSTALL}"
        ) from missing
    return pglast


def _refused(what: str) -> ToolError:
    return ToolError(
        f"query_db is read-only: {what} is refused.",
        code=ErrorCode.PERMISSION_DENIED,
        hint=_READ_ONLY_HINT,
    )


def _nodes(root: Any) -> Iterator[Any]:
    """Every ``pglast.ast.Node`` under ``root`` (itself included), at most ``_MAX_NODES``."""
    from pglast import ast

    stack: list[Any] = [root]
    seen = 0
    while stack:
        value = stack.pop()
        if isinstance(value, tuple | list):
            stack.extend(value)
        elif isinstance(value, ast.Node):
            seen += 1
            if seen > _MAX_NODES:
                raise ToolError(
                    "The query is too large to check.",
                    code=ErrorCode.INVALID_ARGUMENTS,
                    hint="Send a smaller query.",
                )
            yield value
            stack.extend(getattr(value, name) for name in value)


def _function_name(node: Any) -> str:
    parts = [getattr(p, "sval", "") for p in node.funcname or ()]
    return str(parts[-1]) if parts else ""


def _denied_function(name: str) -> bool:
    return name in DENIED_FUNCTIONS or name.startswith(DENIED_PREFIXES)


def check_postgres_query(sql: str) -> None:
    """Refuse ``sql`` unless it is one read-only query (see the module's docstring).

    ``sql`` is the text the server will receive, with ``$n`` placeholders. Raises
    ``invalid_arguments`` for text that does not parse or holds several statements, and
    ``permission_denied`` for anything but a plain query.
    """
    pglast = require_pglast()
    from pglast import ast

    if len(sql) > MAX_SQL_CHARS:
        raise ToolError(
            f"The query is {len(sql):,} characters long, over the {MAX_SQL_CHARS:,} limit.",
            code=ErrorCode.INVALID_ARGUMENTS,
            hint="Send a shorter query.",
        )
    try:
        statements = pglast.parse_sql(sql)
    except pglast.parser.ParseError as exc:
        raise ToolError(
            f"The SQL does not parse: {exc}",
            code=ErrorCode.INVALID_ARGUMENTS,
            hint="Fix the SQL; describe_db lists tables and columns.",
        ) from None
    if len(statements) != 1:
        raise ToolError(
            "Only one SQL statement can be run per call."
            if statements
            else "The SQL holds no statement.",
            code=ErrorCode.INVALID_ARGUMENTS,
            hint="Send each statement in its own call.",
        )
    top = statements[0].stmt
    if isinstance(top, ast.ExplainStmt):
        options = [o.defname.lower() for o in top.options or () if o.defname]
        if "analyze" in options:
            raise _refused("EXPLAIN ANALYZE (it runs the statement)")
        top = top.query
    if not isinstance(top, ast.SelectStmt):
        raise _refused(f"a {_statement_word(top)} statement")
    for node in _nodes(top):
        if isinstance(node, ast.FuncCall):
            name = _function_name(node)
            if _denied_function(name):
                raise _refused(f"the function {name}()")
        elif isinstance(node, ast.IntoClause):
            raise _refused("SELECT ... INTO (it creates a table)")
        elif isinstance(node, ast.LockingClause):
            raise _refused("SELECT ... FOR UPDATE / SHARE (it locks rows)")
        elif type(node).__name__.endswith("Stmt") and not isinstance(node, ast.SelectStmt):
            raise _refused(f"a nested {_statement_word(node)} statement")


def _statement_word(node: Any) -> str:
    """``DeleteStmt`` → ``DELETE``, ``CopyStmt`` → ``COPY``, ``DoStmt`` → ``DO``."""
    name = type(node).__name__
    return (name[: -len("Stmt")] if name.endswith("Stmt") else name).upper() or "empty"


def role_problem(rows: list[tuple[Any, ...]]) -> str | None:
    """Why the roles of :data:`ROLE_QUERY`'s ``rows`` are too strong for read-only queries, or
    ``None`` when they are narrow enough."""
    reasons: list[str] = []
    for name, *flags in rows:
        powers = [words for words, flag in zip(_POWERS, flags, strict=True) if flag]
        if powers:
            reasons.append(f"the role {name!s} {' and '.join(powers)}")
    return "; ".join(reasons) or None


def narrow_role_sql(database: str) -> str:
    """SQL an administrator runs to create a role that may only read ``database``."""
    return (
        "CREATE ROLE toolrig_reader LOGIN PASSWORD '...' "
        "NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION;\n"
        f'GRANT CONNECT ON DATABASE "{database}" TO toolrig_reader;\n'
        "GRANT USAGE ON SCHEMA public TO toolrig_reader;\n"
        "GRANT SELECT ON ALL TABLES IN SCHEMA public TO toolrig_reader;"
    )
