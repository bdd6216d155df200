#!/usr/bin/env python3
"""Break the promises the tests keep, one at a time, and check that a test notices.

Each mutation replaces one exact piece of text in one file of a scratch copy of the project
(``src/``, ``tests/`` and the files the tests read; the working tree is never touched, and
every copy is made from one snapshot taken at the start), then runs the tests named for it
against that copy (``PYTHONPATH=<copy>/src``). A mutation is
*killed* when at least one of those tests fails; the table names the tests that did. When the
text to replace is no longer in the file (the code changed), the row says ``stale``: rewrite the
mutation against the current code. The tests are first run on an unmutated copy: a test that
already fails there proves nothing, and the run stops.

    .venv/bin/python scripts/mutants.py            # every mutation
    .venv/bin/python scripts/mutants.py -k sql     # those whose name contains "sql"
    .venv/bin/python scripts/mutants.py --list     # names only

Exit status 0 when every selected mutation is killed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COPIED = ("src", "tests", "pyproject.toml", "README.md", "docs", "examples", "CHANGELOG.md")
RUN_LIMIT = 420  # seconds for one pytest run of a mutation's tests


@dataclass(frozen=True, slots=True)
class Mutation:
    name: str
    """What the breakage does, in a few words."""
    file: str
    """The file changed, relative to the project root."""
    old: str
    """Text that must occur exactly once in the file."""
    new: str
    tests: tuple[str, ...]
    """Test files or node ids (relative to the project root) expected to catch it."""


CORE = "src/toolrig/core"
RUNTIME = "src/toolrig/runtime"
TOOLS = "src/toolrig/tools"
UNKNOWN_ARGS = "tests/core/test_core_unknown_arguments.py"
JSON_VALUES = "tests/core/test_core_json_values.py"
TIMEOUTS = "tests/runtime/test_runtime_timeouts_concurrency.py"
AUDIT_WEB = "tests/tools_web/test_web_audit_gaps.py"
AUDIT_TOOLS = "tests/tools/test_tools_audit_gaps.py"

MUTATIONS: tuple[Mutation, ...] = (
    # -- unknown arguments, for every way of defining a tool -------------------------------
    Mutation(
        "unknown args ignored: @tool / @action signatures",
        f"{CORE}/_type_schema.py",
        '        "extra_behavior": "forbid",\n',
        '        "extra_behavior": "ignore",\n',
        (UNKNOWN_ARGS,),
    ),
    Mutation(
        "unknown args ignored: signatures built by pydantic",
        f"{CORE}/_signature.py",
        'typed_dict.__pydantic_config__ = ConfigDict(extra="forbid")',
        'typed_dict.__pydantic_config__ = ConfigDict(extra="ignore")',
        (UNKNOWN_ARGS,),
    ),
    Mutation(
        "unknown args ignored: declared parameters, JSON Schema, YAML, imports",
        f"{CORE}/_action.py",
        "        validator = compile_json_schema(params, forbid_extra=True)\n",
        "        validator = compile_json_schema(params, forbid_extra=False)\n",
        (UNKNOWN_ARGS,),
    ),
    # -- time limits ---------------------------------------------------------------------
    Mutation(
        "tool's own timeout ignored",
        f"{RUNTIME}/_steps.py",
        "        return own if own is not None else self._default_timeout\n",
        "        return self._default_timeout\n",
        (TIMEOUTS,),
    ),
    Mutation(
        "per-call timeout ignored when the tool has its own",
        f"{RUNTIME}/_steps.py",
        "        if not isinstance(timeout, Unset):\n            return timeout\n"
        "        own = tool.spec.timeout\n",
        "        own = tool.spec.timeout\n"
        "        if not isinstance(timeout, Unset) and own is None:\n            return timeout\n",
        (TIMEOUTS,),
    ),
    Mutation(
        "executor default timeout overrides the tool's own",
        f"{RUNTIME}/_steps.py",
        "        return own if own is not None else self._default_timeout\n",
        "        return self._default_timeout if self._default_timeout is not None else own\n",
        (TIMEOUTS,),
    ),
    # -- concurrency ---------------------------------------------------------------------
    Mutation(
        "execute_many runs calls one after another",
        f"{RUNTIME}/_executor.py",
        "        return list(await asyncio.gather(*jobs))\n",
        "        return [await job for job in jobs]\n",
        (TIMEOUTS, "tests/runtime/test_runtime_executor.py"),
    ),
    # -- registry ------------------------------------------------------------------------
    Mutation(
        "hot reload drops the last good version of a broken file",
        "src/toolrig/registry/_batch.py",
        "        if errors:\n            self.errors.extend(errors)\n",
        "        if errors:\n            self.remove.update(old)\n"
        "            self.errors.extend(errors)\n",
        ("tests/registry/test_registry_watch.py",),
    ),
    # -- strict export -------------------------------------------------------------------
    Mutation(
        "strict export leaves objects open",
        "src/toolrig/providers/_strict.py",
        '        out["additionalProperties"] = False\n',
        "",
        ("tests/providers/test_prov_export.py",),
    ),
    Mutation(
        "strict export: optional parameters not made nullable",
        "src/toolrig/providers/_strict.py",
        "converted[name] = new if name in required else _nullable(new)",
        "converted[name] = new",
        ("tests/providers/test_prov_export.py", "tests/providers/test_prov_bfcl_corpus.py"),
    ),
    Mutation(
        "strict export accepts an open top level",
        "src/toolrig/providers/_strict.py",
        '    if extra not in (None, False) or "patternProperties" in schema:\n',
        "    if False:\n",
        ("tests/providers/test_prov_export.py",),
    ),
    # -- execution log durability --------------------------------------------------------
    Mutation(
        "SQLite log: writes left in an open transaction",
        "src/toolrig/storage/_sqlite.py",
        "timeout=self._busy_timeout, isolation_level=None,",
        'timeout=self._busy_timeout, isolation_level="DEFERRED",',
        ("tests/storage/test_storage_log.py",),
    ),
    Mutation(
        "SQLite log: no write-ahead log",
        "src/toolrig/storage/_sqlite.py",
        '        conn.execute("PRAGMA journal_mode=WAL")\n',
        '        conn.execute("PRAGMA journal_mode=DELETE")\n',
        ("tests/storage/test_storage_log.py",),
    ),
    Mutation(
        "SQLite log: synchronous=OFF",
        "src/toolrig/storage/_sqlite.py",
        '        conn.execute(f"PRAGMA synchronous={self._synchronous}")\n',
        '        conn.execute("PRAGMA synchronous=OFF")\n',
        ("tests/storage/test_storage_log.py", "tests/storage/test_storage_durability.py"),
    ),
    Mutation(
        "PostgreSQL log: writes left in an open transaction",
        "src/toolrig/storage/_postgres.py",
        "self.dsn, autocommit=True,",
        "self.dsn, autocommit=False,",
        ("tests/storage/test_storage_log.py",),
    ),
    # -- MCP bearer token ----------------------------------------------------------------
    Mutation(
        "bearer token not checked",
        "src/toolrig/mcp/_transports.py",
        "        if hmac.compare_digest(given, self._expected):\n",
        "        if True:\n",
        ("tests/mcp_server/test_mcp_transports.py::test_http_bearer_token_is_required",),
    ),
    Mutation(
        "bearer token: any token accepted",
        "src/toolrig/mcp/_transports.py",
        "        if hmac.compare_digest(given, self._expected):\n",
        '        if given.startswith(b"Bearer "):\n',
        ("tests/mcp_server/test_mcp_transports.py::test_http_bearer_token_is_required",),
    ),
    # -- only JSON data, read as JSON reads it ---------------------------------------------
    Mutation(
        "NaN and Infinity accepted by float parameters",
        f"{CORE}/_core_tighten.py",
        '        return node if "allow_inf_nan" in node else {**node, "allow_inf_nan": False}\n',
        "        return node\n",
        (JSON_VALUES,),
    ),
    Mutation(
        "lone surrogates accepted by str parameters",
        f"{CORE}/_core_tighten.py",
        '        return node if _TEXT_CHECKED & node.keys() else {**node, "min_length": 0}\n',
        "        return node\n",
        (JSON_VALUES,),
    ),
    Mutation(
        "Any parameters accept any Python object",
        f"{CORE}/_core_tighten.py",
        '        return _wrap(node, _json_data, "function-after")\n',
        "        return node\n",
        (JSON_VALUES,),
    ),
    Mutation(
        "integers past the int-to-text limit pass JSON Schema bounds",
        f"{CORE}/_json_data.py",
        "                if _LOW <= item < _HIGH or readable_int(item):\n",
        "                if True:\n",
        (JSON_VALUES,),
    ),
    Mutation(
        "strict calls refuse the whole arguments as JSON text",
        f"{CORE}/_validation.py",
        '        if isinstance(arguments, str) and arguments.strip()[:1] == "{":\n',
        "        if False:\n",
        (JSON_VALUES,),
    ),
    Mutation(
        "unknown-parameter message without its separator",
        f"{CORE}/_argument_errors.py",
        "        text += f\"{'' if close else '.'} Valid names here: {listed}{more}.\"\n",
        '        text += f" Valid names here: {listed}{more}."\n',
        (UNKNOWN_ARGS,),
    ),
    Mutation(
        "plan check without a did-you-mean for unknown parameters",
        f"{RUNTIME}/_plan_check.py",
        '                text = "unknown parameter" + _did_you_mean(detail)\n',
        '                text = "unknown parameter"\n',
        ("tests/runtime/test_runtime_plans.py::test_check_reports_every_problem_at_once",),
    ),
)
"""Mutations of the core, in code that the tools' rewrite does not touch."""

SANDBOX = f"{TOOLS}/_sandbox.py"
NETGUARD = f"{TOOLS}/_netguard.py"
SEARCH = f"{TOOLS}/_web_search.py"
PG = f"{TOOLS}/_sql_postgres.py"
LITE = f"{TOOLS}/_sql_sqlite.py"
DB = f"{TOOLS}/_db.py"
SANDBOX_TESTS = "tests/tools/test_tools_sandbox.py"
DB_LAYERS = "tests/tools_web/test_db_layers.py"
DB_GUARD = "tests/tools_web/test_db_guard.py"
DB_TOOL = "tests/tools_web/test_db_tool.py"
PG_CATALOGUE = "tests/tools_web/test_pg_catalogue.py"
DB_BOUNDS = "tests/tools_web/test_db_bounds.py"
WEB_FETCH = "tests/tools_web/test_web_fetch.py"
WEB_SEARCH = "tests/tools_web/test_web_search.py"
ADDRESSES = "tests/tools/test_adversarial_addresses.py"

TOOL_MUTATIONS: tuple[Mutation, ...] = (
    # -- the sandbox ---------------------------------------------------------------------
    Mutation(
        "sandbox: NUL in a path not refused",
        SANDBOX,
        '        if "\\x00" in path:\n',
        "        if False:\n",
        (AUDIT_TOOLS,),
    ),
    Mutation(
        "sandbox root: nothing is outside",
        SANDBOX,
        "    return Path(path).is_relative_to(root)\n",
        "    return True\n",
        (SANDBOX_TESTS, AUDIT_TOOLS),
    ),
    Mutation(
        "sandbox root: absolute paths not refused as such",
        SANDBOX,
        '        if os.path.isabs(path) or path.startswith("~"):\n',
        '        if path.startswith("~"):\n',
        (SANDBOX_TESTS, AUDIT_TOOLS),
    ),
    Mutation(
        "sandbox root: `..` not refused as such",
        SANDBOX,
        "        if not _inside(lexical, self.root):\n",
        "        if False:\n",
        (SANDBOX_TESTS, AUDIT_TOOLS),
    ),
    Mutation(
        "sandbox: symlinks pointing outside followed",
        SANDBOX,
        "        if not _inside(real, self.root):\n",
        "        if False:\n",
        (SANDBOX_TESTS, AUDIT_TOOLS),
    ),
    Mutation(
        "symlink race: folders opened following symlinks",
        f"{TOOLS}/_fd.py",
        "DIR_FLAGS: Final = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW |",
        "DIR_FLAGS: Final = os.O_RDONLY | os.O_DIRECTORY |",
        (SANDBOX_TESTS, "tests/tools/test_tools_search.py", AUDIT_TOOLS),
    ),
    Mutation(
        "symlink race: files opened following symlinks",
        f"{TOOLS}/_fd.py",
        "FILE_FLAGS: Final = os.O_RDONLY | os.O_NOFOLLOW |",
        "FILE_FLAGS: Final = os.O_RDONLY |",
        (SANDBOX_TESTS, "tests/tools/test_tools_search.py", AUDIT_TOOLS),
    ),
    # -- the address policy --------------------------------------------------------------
    Mutation(
        "SSRF: only the first resolved address checked",
        NETGUARD,
        "    for address in addresses:\n",
        "    for address in addresses[:1]:\n",
        (AUDIT_WEB, WEB_FETCH),
    ),
    Mutation(
        "SSRF: connects by name, not to the checked address",
        NETGUARD,
        "        target, extra, extensions = _pinned(httpx.URL(current), address)\n",
        "        target, extra, extensions = httpx.URL(current), {}, {}\n",
        (AUDIT_WEB, WEB_FETCH),
    ),
    Mutation(
        "SSRF: IPv6 spellings of IPv4 addresses not unwrapped",
        NETGUARD,
        "            form = embedding(address)\n            if form is not None:\n"
        "                if not form.inner:  # the IPv4 address cannot be located: refuse\n",
        "            form = None\n            if form is not None:\n"
        "                if not form.inner:  # the IPv4 address cannot be located: refuse\n",
        (AUDIT_WEB, WEB_FETCH, ADDRESSES),
    ),
    Mutation(
        "SSRF: metadata addresses open with allow_private",
        NETGUARD,
        "        if address in METADATA_ADDRESSES or address.is_multicast",
        "        if address.is_multicast",
        (AUDIT_WEB, WEB_FETCH, ADDRESSES),
    ),
    Mutation(
        "redirects: hops after the first not checked",
        NETGUARD,
        "        address = await resolve_checked(current, policy)\n",
        "        address = await resolve_checked(\n"
        '            current, policy if hop == 0 else NetPolicy(allow=("0.0.0.0/0", "::/0"))\n'
        "        )\n",
        (AUDIT_WEB, WEB_FETCH),
    ),
    # -- read-only SQL, each layer on its own --------------------------------------------
    Mutation(
        "SQL (PostgreSQL parser): any top-level statement allowed",
        PG,
        "    if not isinstance(top, ast.SelectStmt):\n",
        "    if False:\n",
        (DB_LAYERS, DB_GUARD, DB_TOOL),
    ),
    Mutation(
        "SQL (PostgreSQL parser): nested statements allowed",
        PG,
        'elif type(node).__name__.endswith("Stmt") and not isinstance(node, ast.SelectStmt):',
        "elif False:",
        (DB_LAYERS, DB_GUARD, DB_TOOL),
    ),
    Mutation(
        "SQL (PostgreSQL catalogue): refused functions allowed",
        DB,
        "        if reason is not None:\n            raise refused(reason)\n",
        "        if False:\n            raise refused(reason)\n",
        (PG_CATALOGUE,),
    ),
    Mutation(
        "SQL (PostgreSQL catalogue): volatile functions allowed",
        f"{TOOLS}/_pg_catalog.py",
        '    if volatility == "v":\n',
        '    if volatility == "x":\n',
        (PG_CATALOGUE,),
    ),
    Mutation(
        "SQL (PostgreSQL): rows not read through a server-side cursor",
        DB,
        'options = {"stream_results": True, "max_row_buffer": cap + 1} if stream else {}',
        "options: dict[str, object] = {}",
        (DB_BOUNDS,),
    ),
    Mutation(
        "SQL (SQLite): queries run in the caller's process",
        DB,
        "        if self._workers is not None:\n            answer",
        "        if False:\n            answer",
        (DB_BOUNDS,),
    ),
    Mutation(
        "SQL (PostgreSQL): no READ ONLY transaction",
        DB,
        'conn.exec_driver_sql("SET TRANSACTION READ ONLY")',
        'conn.exec_driver_sql("SELECT 1")',
        (DB_LAYERS, DB_TOOL),
    ),
    Mutation(
        "SQL (PostgreSQL): session not read-only by default",
        DB,
        '                flags += " -c default_transaction_read_only=on"\n',
        '                flags += ""\n',
        (DB_LAYERS, DB_TOOL),
    ),
    Mutation(
        "SQL (PostgreSQL): privileged roles not refused",
        PG,
        '    return "; ".join(reasons) or None\n',
        "    return None\n",
        (DB_GUARD,),
    ),
    Mutation(
        "SQL (SQLite): no authorizer",
        LITE,
        "    dbapi_connection.set_authorizer(read_only_authorizer)\n",
        "",
        (DB_LAYERS, DB_GUARD, DB_TOOL),
    ),
    Mutation(
        "SQL (SQLite): authorizer allows every action",
        LITE,
        "    return sqlite3.SQLITE_DENY\n\n\ndef setup_read_only",
        "    return sqlite3.SQLITE_OK\n\n\ndef setup_read_only",
        (DB_LAYERS, DB_GUARD, DB_TOOL),
    ),
    Mutation(
        "SQL (SQLite): query_only off",
        LITE,
        'cursor.execute("PRAGMA query_only = ON")',
        'cursor.execute("PRAGMA query_only = OFF")',
        (DB_LAYERS, DB_TOOL),
    ),
    Mutation(
        "SQL (SQLite): file opened read-write",
        DB,
        '?mode=ro", query={"uri": "true"})',
        '?mode=rw", query={"uri": "true"})',
        (DB_LAYERS, DB_TOOL),
    ),
    # -- the shell's allow-list ----------------------------------------------------------
    Mutation(
        "shell: allow-list not enforced",
        f"{TOOLS}/_shell.py",
        "        if self.allowed_programs is not None and not self._allowed(command[0]):\n",
        "        if False:\n",
        ("tests/tools/test_tools_shell.py",),
    ),
    Mutation(
        "shell: a path to a program outside the list allowed",
        f"{TOOLS}/_shell.py",
        "        if os.sep in program:\n            return False\n",
        "        if os.sep in program:\n            return True\n",
        ("tests/tools/test_tools_shell.py",),
    ),
    Mutation(
        "shell: any program found on PATH allowed",
        f"{TOOLS}/_shell.py",
        "        return found is not None and found in self.allowed_programs\n",
        "        return found is not None\n",
        ("tests/tools/test_tools_shell.py",),
    ),
    # -- web search parsing --------------------------------------------------------------
    Mutation(
        "Brave: results read from the wrong key",
        SEARCH,
        '(data.get("web") or {}).get("results", [])',
        'data.get("results", [])',
        (AUDIT_WEB, WEB_SEARCH),
    ),
    Mutation(
        "Brave: snippet read from the wrong key",
        SEARCH,
        'return _hits(results, max_results, snippet="description")',
        'return _hits(results, max_results, snippet="snippet")',
        (AUDIT_WEB, WEB_SEARCH),
    ),
    Mutation(
        "Brave: count not capped at 20",
        SEARCH,
        '"count": min(max_results, 20)',
        '"count": max_results',
        (AUDIT_WEB, WEB_SEARCH),
    ),
    Mutation(
        "Tavily: snippet read from the wrong key",
        SEARCH,
        'data.get("results", []) if isinstance(data, dict) else []\n'
        '        return _hits(results, max_results, snippet="content")\n\n\nclass DuckDuckGo',
        'data.get("results", []) if isinstance(data, dict) else []\n'
        '        return _hits(results, max_results, snippet="snippet")\n\n\nclass DuckDuckGo',
        (AUDIT_WEB, WEB_SEARCH),
    ),
    Mutation(
        "Tavily: bearer token not sent",
        SEARCH,
        'headers={"Authorization": f"Bearer {self.api_key}"},',
        "headers={},",
        (AUDIT_WEB, WEB_SEARCH),
    ),
    Mutation(
        "SearXNG: snippet read from the wrong key",
        SEARCH,
        '        results = data.get("results", []) if isinstance(data, dict) else []\n'
        '        return _hits(results, max_results, snippet="content")\n\n\nclass BraveBackend',
        '        results = data.get("results", []) if isinstance(data, dict) else []\n'
        '        return _hits(results, max_results, snippet="title")\n\n\nclass BraveBackend',
        (AUDIT_WEB, WEB_SEARCH),
    ),
    # -- tool search follows every change of its catalogue ---------------------------------
    Mutation(
        "BM25F: remembered term scores outlive an added tool",
        "src/toolrig/search/_bm25f.py",
        "            self._arrays.pop(term, None)\n        self._gains.clear()\n",
        "            self._arrays.pop(term, None)\n",
        ("tests/search/test_search_text.py",),
    ),
    Mutation(
        "BM25F: remembered term scores outlive a removed tool",
        "src/toolrig/search/_bm25f.py",
        "            self._totals[i] -= length\n        self._gains.clear()\n",
        "            self._totals[i] -= length\n",
        ("tests/search/test_search_text.py",),
    ),
)
"""Mutations of the guarantees: arguments, timeouts, the built-in tools' security (sandbox, address
policy, SQL, shell, web search) and the search index following its catalogue."""


@dataclass(slots=True)
class Outcome:
    mutation: Mutation
    status: str
    """``killed``, ``survived``, ``stale``, ``error`` or ``timeout``."""
    killers: list[str]
    seconds: float
    detail: str = ""


def _copy_tree(dest: Path, source: Path = ROOT) -> Path:
    """A copy of ``source``'s files that the tests need, at ``dest/main`` (``dest/shared``
    points at the project's ``../shared``, which the tests read)."""
    main = dest / "main"
    main.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", ".mypy_cache")
    for name in COPIED:
        item = source / name
        if item.is_dir():
            shutil.copytree(item, main / name, ignore=ignore, symlinks=True)
        elif item.is_file():
            shutil.copy2(item, main / name)
    shared = ROOT.parent / "shared"
    if shared.is_dir():
        (dest / "shared").symlink_to(shared)
    return main


def _python() -> str:
    venv = ROOT / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def _run_tests(copy: Path, tests: tuple[str, ...], report: Path) -> tuple[int | None, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(copy / "src")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    argv = [
        _python(),
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        f"--junitxml={report}",
        "--rootdir",
        str(copy),
        *tests,
    ]
    try:
        done = subprocess.run(
            argv,
            cwd=copy,
            env=env,
            capture_output=True,
            text=True,
            timeout=RUN_LIMIT,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return None, ""
    return done.returncode, done.stdout[-3000:] + done.stderr[-2000:]


def _failed(report: Path) -> list[str]:
    if not report.exists():
        return []
    out = []
    for case in ET.parse(report).getroot().iter("testcase"):
        if any(child.tag in ("failure", "error") for child in case):
            out.append(f"{case.attrib.get('classname', '')}::{case.attrib['name']}")
    return out


def _short(test_id: str) -> str:
    """``tests.core.test_x::test_y[a]`` -> ``test_x::test_y[a]``."""
    module, _, name = test_id.partition("::")
    return f"{module.rsplit('.', 1)[-1]}::{name}"


def run_one(mutation: Mutation, scratch: Path, snapshot: Path) -> Outcome:
    t0 = time.monotonic()
    copy = _copy_tree(scratch, snapshot)
    target = copy / mutation.file
    text = target.read_text(encoding="utf-8") if target.exists() else ""
    count = text.count(mutation.old)
    if count != 1:
        why = "file missing" if not target.exists() else f"text found {count} times"
        return Outcome(mutation, "stale", [], time.monotonic() - t0, why)
    target.write_text(text.replace(mutation.old, mutation.new), encoding="utf-8")
    report = scratch / "report.xml"
    code, output = _run_tests(copy, mutation.tests, report)
    seconds = time.monotonic() - t0
    if code is None:
        return Outcome(mutation, "timeout", [], seconds, f"no answer in {RUN_LIMIT} s")
    failed = _failed(report)
    if code == 1 and failed:
        return Outcome(mutation, "killed", failed, seconds)
    if code == 0:
        return Outcome(mutation, "survived", [], seconds)
    return Outcome(mutation, "error", failed, seconds, f"pytest exit {code}: {output[-600:]}")


def baseline(mutations: list[Mutation], scratch: Path, snapshot: Path) -> list[str]:
    """Tests of ``mutations`` that fail on the unmutated code (they would prove nothing)."""
    copy = _copy_tree(scratch, snapshot)
    tests = tuple(dict.fromkeys(t for m in mutations for t in m.tests))
    report = scratch / "report.xml"
    code, output = _run_tests(copy, tests, report)
    if code is None:
        return [f"(the unmutated run took more than {RUN_LIMIT} s)"]
    if code != 0:
        return _failed(report) or [f"(pytest exit {code}) {output[-1500:]}"]
    return []


def table(outcomes: list[Outcome]) -> str:
    rows = [("mutation", "killing test(s)", "killed")]
    for o in outcomes:
        killers = ", ".join(_short(k) for k in o.killers[:2])
        if len(o.killers) > 2:
            killers += f" (+{len(o.killers) - 2} more)"
        if o.status == "killed":
            rows.append((o.mutation.name, killers, "yes"))
        else:
            rows.append((o.mutation.name, killers or o.detail[:80], f"no ({o.status})"))
    widths = [max(len(r[i]) for r in rows) for i in range(2)]
    lines = [f"| {r[0]:<{widths[0]}} | {r[1]:<{widths[1]}} | {r[2]} |" for r in rows]
    lines.insert(1, f"|{'-' * (widths[0] + 2)}|{'-' * (widths[1] + 2)}|--------|")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-k", dest="pattern", default="", help="only names containing this")
    parser.add_argument("--list", action="store_true", help="list the mutations and stop")
    parser.add_argument("--no-baseline", action="store_true", help="skip the unmutated run")
    parser.add_argument("-v", "--verbose", action="store_true", help="show errors in full")
    args = parser.parse_args(argv)
    chosen = [m for m in (*MUTATIONS, *TOOL_MUTATIONS) if args.pattern.lower() in m.name.lower()]
    if args.list:
        for m in chosen:
            print(f"{m.name}  [{m.file}]  -> {' '.join(m.tests)}")
        return 0
    if not chosen:
        print("no mutation matches", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="toolrig-mutants-") as tmp:
        # Every run starts from this one snapshot, so all of them see the same code even when
        # the working tree changes meanwhile.
        snapshot = _copy_tree(Path(tmp) / "snapshot")
        if not args.no_baseline:
            broken = baseline(chosen, Path(tmp) / "baseline", snapshot)
            if broken:
                print("These tests fail without any mutation; fix them first:", file=sys.stderr)
                for name in broken:
                    print(f"  {name}", file=sys.stderr)
                return 1
        outcomes = []
        for i, mutation in enumerate(chosen):
            outcome = run_one(mutation, Path(tmp) / f"m{i}", snapshot)
            outcomes.append(outcome)
            shutil.rmtree(Path(tmp) / f"m{i}", ignore_errors=True)
            print(f"[{i + 1}/{len(chosen)}] {outcome.status:<8} {mutation.name}", flush=True)
            if args.verbose and outcome.detail:
                print(outcome.detail, flush=True)
    print()
    print(table(outcomes))
    killed = sum(o.status == "killed" for o in outcomes)
    print(f"\n{killed} of {len(outcomes)} mutations killed")
    return 0 if killed == len(outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
