"""What ``db_tool`` lets run on PostgreSQL, decided by PostgreSQL's own parser (``pglast``).

A hand-written scanner is right only for the cases its author thought of: one that ended a
``/* ... */`` comment at the first ``*/`` let ``/* /* */ SELECT */ COPY ... TO PROGRAM`` through,
because PostgreSQL nests comments. ``pglast`` embeds the server's parser, so the tree checked here
is the tree the server will build.

A query is allowed when it is one statement, a plain ``SELECT`` (``WITH ... SELECT``, ``VALUES``,
``TABLE``) or an ``EXPLAIN`` of one without ``ANALYZE``, with no nested statement that changes
data (``WITH x AS (DELETE ...)``), no ``SELECT ... INTO`` and no row locks. The functions,
operators and types it names are collected here and judged against the server's own catalogue
by ``_pg_catalog`` (a function must be ``IMMUTABLE`` or ``STABLE``), never against a list of
names known to be bad.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from toolrig.core.model._errors import ErrorCode, ToolError
from toolrig.tools._pg_catalog import QueryNames

__all__ = [
    "INSTALL",
    "MAX_SQL_CHARS",
    "ROLE_QUERY",
    "check_postgres_query",
    "narrow_role_sql",
    "refused",
    "require_pglast",
    "role_problem",
]

INSTALL: Final = "pip install 'toolrig[postgres]'"
MAX_SQL_CHARS: Final = 100_000
_MAX_NODES: Final = 200_000

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


def refused(what: str) -> ToolError:
    """The error for a query refused because of ``what`` it holds."""
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


def _name(parts: Any) -> str:
    """``name`` or ``schema.name`` from a tuple of ``String`` nodes, as the server folded it."""
    words = [str(getattr(p, "sval", "")) for p in parts or ()]
    return ".".join(words[-2:])


_RANGE_OPERATORS: Final = (">=", "<=")
"""What ``BETWEEN`` calls (the parser names it ``BETWEEN``, not by its operators)."""


def _operator_names(node: Any) -> tuple[str, ...]:
    from pglast.enums import A_Expr_Kind

    if node.kind in (
        A_Expr_Kind.AEXPR_BETWEEN,
        A_Expr_Kind.AEXPR_NOT_BETWEEN,
        A_Expr_Kind.AEXPR_BETWEEN_SYM,
        A_Expr_Kind.AEXPR_NOT_BETWEEN_SYM,
    ):
        return _RANGE_OPERATORS
    return (_name(node.name),)


def check_postgres_query(sql: str) -> tuple[QueryNames, bool]:
    """Refuse ``sql`` unless it is shaped as one read-only query (see the module's docstring);
    the functions, operators and types it names, for the catalogue to judge, and whether it is
    an ``EXPLAIN``.

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
    explain = isinstance(top, ast.ExplainStmt)
    if isinstance(top, ast.ExplainStmt):
        options = [o.defname.lower() for o in top.options or () if o.defname]
        if "analyze" in options:
            raise refused("EXPLAIN ANALYZE (it runs the statement)")
        top = top.query
    if not isinstance(top, ast.SelectStmt):
        raise refused(f"a {_statement_word(top)} statement")
    functions: set[str] = set()
    fields: set[str] = set()
    operators: set[str] = set()
    types: set[str] = set()
    for node in _nodes(top):
        if isinstance(node, ast.FuncCall):
            functions.add(_name(node.funcname))
        elif isinstance(node, ast.ColumnRef) and len(node.fields or ()) >= 2:
            fields.add(_name((node.fields or ())[-1:]))
        elif isinstance(node, ast.A_Indirection):
            fields.update(_name((item,)) for item in node.indirection or ())
        elif isinstance(node, ast.A_Expr):
            operators.update(_operator_names(node))
        elif isinstance(node, ast.TypeName):
            types.add(_name(node.names))
        elif isinstance(node, ast.IntoClause):
            raise refused("SELECT ... INTO (it creates a table)")
        elif isinstance(node, ast.LockingClause):
            raise refused("SELECT ... FOR UPDATE / SHARE (it locks rows)")
        elif type(node).__name__.endswith("Stmt") and not isinstance(node, ast.SelectStmt):
            raise refused(f"a nested {_statement_word(node)} statement")
    names = QueryNames(
        functions=frozenset(functions),
        fields=frozenset(fields) - {""},
        operators=frozenset(operators),
        types=frozenset(types),
    )
    return names, explain


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
