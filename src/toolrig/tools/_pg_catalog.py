"""Which functions, operators and types a read-only query may use on PostgreSQL, decided from the
server's own catalogue (``pg_proc``), never from a list of names known to be bad.

A list of dangerous names is only as complete as its author's memory: the text-search functions
``ts_stat`` and ``ts_rewrite`` run SQL given as text and were missing from one, and every
extension adds more (``dblink``, ``crosstab``). Here the server says what each function is:

- a function marked ``VOLATILE`` may change something or reach outside the query (files, locks,
  other sessions, sequences), so it is refused, unless it is one of
  :data:`HARMLESS_VOLATILE` (built in or in C, and only reads a clock, a random generator or
  a size);
- a function marked ``IMMUTABLE`` or ``STABLE`` may run, unless it is one of
  :data:`REACHING_STABLE`: stable functions that run SQL they are given or build themselves
  (``*_to_xml``, ``crosstab``, ``connectby``, ``xpath_table``) or take a transaction id;
- a function that is not built in (an extension's or a user's) must also be written in C or be
  internal: a body in SQL or a procedural language may call anything, whatever it is marked.

``row.f`` (or ``(expression).f``) calls ``f(row)`` when ``row`` has no column ``f``, so a name
after a dot is refused when it is a refused function that takes one argument. An aggregate,
an operator or a type is refused when a function it calls is refused: the aggregate's
transition and final functions (the server marks every user aggregate ``IMMUTABLE``, whatever
they do), the operator's code, the type's input function and the casts to it. ``trusted``
names lift the rule for the functions the operator of the tool vouches for. The catalogue is
read once per database connection (:data:`CATALOGUE_QUERY`, about 5,000 rows) and kept with it;
a function name the catalogue does not hold is refused.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final

__all__ = [
    "CATALOGUE_QUERY",
    "HARMLESS_VOLATILE",
    "REACHING_STABLE",
    "Catalogue",
    "QueryNames",
    "function_refusal",
]

HARMLESS_VOLATILE: Final = frozenset(
    {
        "random",  # a random number (setseed, which changes the session, is refused)
        "random_normal",
        "gen_random_uuid",  # also pgcrypto's, in C
        "uuid_generate_v4",  # uuid-ossp, in C
        "clock_timestamp",  # the time now (now() and statement_timestamp() are stable)
        "timeofday",
        "pg_relation_size",  # sizes of what the role may see
        "pg_table_size",
        "pg_indexes_size",
        "pg_total_relation_size",
        "pg_database_size",
        "pg_is_in_recovery",
    }
)
"""Volatile functions allowed all the same, when built in or written in C (only a superuser can
add a C function): each only reads a clock, a random generator, a size or the server's state,
and changes nothing."""

REACHING_STABLE: Final = frozenset(
    {
        # built in: run a query (given as text, or one per table) and buffer its whole result
        "table_to_xml",
        "table_to_xmlschema",
        "table_to_xml_and_xmlschema",
        "schema_to_xml",
        "schema_to_xmlschema",
        "schema_to_xml_and_xmlschema",
        "database_to_xml",
        "database_to_xmlschema",
        "database_to_xml_and_xmlschema",
        # built in: give the transaction an id (each call uses up one of the server's ids)
        "txid_current",
        "pg_current_xact_id",
        # extensions: run SQL given as text (tablefunc, xml2), which this check never sees
        "crosstab",
        "crosstab2",
        "crosstab3",
        "crosstab4",
        "connectby",
        "xpath_table",
    }
)
"""Functions marked ``STABLE`` (or volatile ones, for completeness) that still reach outside
the query; refused whatever their schema."""

BUILTIN_OID_LIMIT: Final = 16384
"""PostgreSQL's ``FirstNormalObjectId``: objects below it come with the server."""
CODE_LANGUAGES: Final = frozenset({"internal", "c"})

CATALOGUE_QUERY: Final = f"""
SELECT 'f', p.proname, n.nspname, n.nspname, p.proname, p.provolatile, l.lanname,
       p.oid < {BUILTIN_OID_LIMIT}
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
JOIN pg_language l ON l.oid = p.prolang
UNION ALL
SELECT 'a', p.proname, n.nspname, fn.nspname, f.proname, f.provolatile, l.lanname,
       f.oid < {BUILTIN_OID_LIMIT}
FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
JOIN pg_namespace n ON n.oid = p.pronamespace
JOIN pg_proc f ON f.oid IN (a.aggtransfn, a.aggfinalfn, a.aggcombinefn, a.aggserialfn,
                            a.aggdeserialfn, a.aggmtransfn, a.aggminvtransfn, a.aggmfinalfn)
JOIN pg_namespace fn ON fn.oid = f.pronamespace JOIN pg_language l ON l.oid = f.prolang
UNION ALL
SELECT 'c', p.proname, n.nspname, n.nspname, p.proname, p.provolatile, l.lanname,
       p.oid < {BUILTIN_OID_LIMIT}
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
JOIN pg_language l ON l.oid = p.prolang
WHERE p.pronargs >= 1 AND p.pronargs - p.pronargdefaults <= 1
  AND NOT 'internal'::regtype = ANY (p.proargtypes)  -- never callable from SQL
UNION ALL
SELECT 'o', o.oprname, on_.nspname, n.nspname, p.proname, p.provolatile, l.lanname,
       p.oid < {BUILTIN_OID_LIMIT}
FROM pg_operator o JOIN pg_namespace on_ ON on_.oid = o.oprnamespace
JOIN pg_proc p ON p.oid = o.oprcode JOIN pg_namespace n ON n.oid = p.pronamespace
JOIN pg_language l ON l.oid = p.prolang
UNION ALL
SELECT 't', t.typname, tn.nspname, n.nspname, p.proname, p.provolatile, l.lanname,
       p.oid < {BUILTIN_OID_LIMIT}
FROM pg_type t JOIN pg_namespace tn ON tn.oid = t.typnamespace
JOIN pg_cast c ON c.casttarget = t.oid JOIN pg_proc p ON p.oid = c.castfunc
JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_language l ON l.oid = p.prolang
UNION ALL
SELECT 't', t.typname, tn.nspname, n.nspname, p.proname, p.provolatile, l.lanname,
       p.oid < {BUILTIN_OID_LIMIT}
FROM pg_type t JOIN pg_namespace tn ON tn.oid = t.typnamespace
JOIN pg_proc p ON p.oid = t.typinput
JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_language l ON l.oid = p.prolang
"""
"""One row per function, aggregate support function (an aggregate is marked ``IMMUTABLE``
whatever its transition function does), function callable with one argument (``row.f`` means
``f(row)``), operator and type, with the function it calls: ``(kind, name, schema, function schema,
function name, volatility, language, built in)``."""


def function_refusal(
    schema: str, name: str, volatility: str, language: str, builtin: bool
) -> str | None:
    """Why a function may not run in a read-only query, or ``None`` when it may."""
    if name in REACHING_STABLE:
        return "it runs SQL of its own or reaches outside the query"
    if volatility == "v":
        if name in HARMLESS_VOLATILE and (builtin or language in CODE_LANGUAGES):
            return None
        return "it is volatile: it may change something or reach outside the query"
    if not builtin and language not in CODE_LANGUAGES:
        return f"it is written in {language}, and its body may call anything"
    return None


@dataclass(frozen=True, kw_only=True)
class QueryNames:
    """The functions, operators and types a query names, as written (``name`` or
    ``schema.name``)."""

    functions: frozenset[str] = frozenset()
    fields: frozenset[str] = frozenset()
    """Names after a dot (``t.name``, ``(row).name``): a column, or a function of the row."""
    operators: frozenset[str] = frozenset()
    types: frozenset[str] = frozenset()


@dataclass(kw_only=True)
class Catalogue:
    """What one server allows, by name: ``None`` for allowed, else why it is refused."""

    functions: dict[str, str | None] = field(default_factory=dict)
    fields: dict[str, str | None] = field(default_factory=dict)
    operators: dict[str, str | None] = field(default_factory=dict)
    types: dict[str, str | None] = field(default_factory=dict)

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[Any, ...]], trusted: Iterable[str] = ()) -> Catalogue:
        """The catalogue of :data:`CATALOGUE_QUERY`'s rows; functions named in ``trusted``
        (``name`` or ``schema.name``) are allowed whatever they are."""
        trust = frozenset(trusted)
        made = cls()
        tables = {
            "f": made.functions,
            "a": made.functions,
            "c": made.fields,
            "o": made.operators,
            "t": made.types,
        }
        for kind, name, schema, fn_schema, fn_name, volatility, language, builtin in rows:
            reason = None
            if fn_name not in trust and f"{fn_schema}.{fn_name}" not in trust:
                reason = function_refusal(fn_schema, fn_name, volatility, language, builtin)
            if reason is not None and kind in "aot":
                reason = f"it calls {fn_schema}.{fn_name}(), and {reason}"
            table = tables[kind]
            for key in (name, f"{schema}.{name}"):
                if table.get(key) is None:
                    table[key] = reason
        return made

    def refusal(self, names: QueryNames) -> str | None:
        """Why a query naming ``names`` is refused (the first reason, in name order), or
        ``None``."""
        for name in sorted(names.functions):
            if name not in self.functions:
                return f"the function {name}() (the server has no function of that name)"
            reason = self.functions[name]
            if reason is not None:
                return f"the function {name}() ({reason})"
        for name in sorted(names.fields):
            reason = self.fields.get(name)
            if reason is not None:
                return f"the function {name}(), called as {name!r} after a dot ({reason})"
        for name in sorted(names.operators):
            reason = self.operators.get(name)
            if reason is not None:
                return f"the operator {name} ({reason})"
        for name in sorted(names.types):
            reason = self.types.get(name)
            if reason is not None:
                return f"the type {name} ({reason})"
        return None
