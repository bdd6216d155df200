#!/usr/bin/env python3
"""Mutation score of the modules that carry promises, measured by mutmut, one module at a time.

For each module in :data:`MODULES` a scratch project is built under ``.mutation/<module>/``
(``src/``, ``tests/``, ``pyproject.toml`` and the files the tests read, plus a ``[tool.mutmut]``
section that mutates that module only and runs only the tests named for it), and ``mutmut run``
mutates it there: the working tree is never changed. The result of each module is cached in
``.mutation/scores.json`` under a hash of the module and its tests, so a module whose code and
tests did not change is not run again (the cached baseline); mutmut's own cache in the scratch
project re-runs only the functions that changed.

    .venv/bin/python scripts/mutation.py                 # every module (cached ones are reused)
    .venv/bin/python scripts/mutation.py --changed       # modules changed since origin/main
    .venv/bin/python scripts/mutation.py --changed main  # ... since the merge base with main
    .venv/bin/python scripts/mutation.py -m _claim       # modules whose path contains "_claim"
    .venv/bin/python scripts/mutation.py --survivors     # list the surviving mutants too
    .venv/bin/python scripts/mutation.py --fresh         # ignore the cache
    .venv/bin/python scripts/mutation.py --changed --list  # name the modules, run nothing

A mutant listed in :data:`EQUIVALENT` cannot change behaviour; it is counted apart and not held
against the score. Exit status 0 when every module run reaches :data:`TARGET`, 1 otherwise.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRATCH = ROOT / ".mutation"
CACHE = SCRATCH / "scores.json"
COPIED = ("src", "tests", "pyproject.toml", "README.md", "docs", "examples", "CHANGELOG.md")
TARGET = 0.90  # killed / (generated - equivalent), per module
RUN_LIMIT = 1500  # seconds for the mutmut run of one module
MAX_CHILDREN = 2  # test processes at a time, at nice 10: the two cores are shared

# The one place that says which tests cover which module: a module's mutants are run against
# these test files only (per-module selection keeps a module's run within minutes).
MODULES: dict[str, tuple[str, ...]] = {
    "src/toolrig/agent/_claim.py": (
        # Not the tests that decide in separate processes (30 s a run): those import the
        # unmutated package, so they cannot kill a mutant.
        "tests/agent/test_agent_approval_claims.py::test_threads_deciding_one_held_call_run_it_once",
        "tests/agent/test_agent_approval_claims.py::test_a_retried_decision_after_the_turn_finished_runs_nothing",
        "tests/agent/test_agent_approval_claims.py::test_a_claimed_turn_whose_run_stopped_is_not_decided_again",
        "tests/agent/test_agent_approval_claims.py::test_threads_claim_once_in_a_memory_session_store",
        "tests/agent/test_agent_claim_boundaries.py",
    ),
    "src/toolrig/agent/_session_policy.py": (
        "tests/agent/test_agent_approval_policy.py",
        "tests/agent/test_agent_claim_boundaries.py",
    ),
    "src/toolrig/tools/_sandbox.py": (
        "tests/tools/test_tools_sandbox.py",
        "tests/tools/test_adversarial_files.py",
        "tests/tools/test_tools_special_files.py",
        "tests/tools/test_tools_files.py",
        "tests/tools/test_tools_escapes.py",
        "tests/tools/test_sandbox_boundaries.py",
    ),
    "src/toolrig/tools/_shell_policy.py": (
        "tests/tools/test_shell_policy_boundaries.py",
        "tests/tools/test_adversarial_shell_options.py",
    ),
    "src/toolrig/tools/_sql_sqlite.py": (
        "tests/tools_web/test_sqlite_guard_boundaries.py",
        "tests/tools_web/test_db_layers.py",
    ),
    "src/toolrig/tools/_sql_postgres.py": (
        "tests/tools_web/test_postgres_guard_boundaries.py",
        "tests/tools_web/test_db_guard.py",
    ),
    "src/toolrig/core/schema/_validation.py": (
        "tests/core/test_validation_boundaries.py",
        "tests/core/test_core_validation.py",
        "tests/core/test_core_invalid_arguments_total.py",
        "tests/core/test_core_unknown_arguments.py",
        "tests/core/test_core_json_values.py",
    ),
    "src/toolrig/core/schema/_json_data.py": (
        "tests/core/test_json_data_boundaries.py",
        "tests/core/test_core_json_values.py",
        "tests/core/test_core_data_limit.py",
        "tests/core/test_core_invalid_arguments_total.py",
    ),
    "src/toolrig/tools/_netguard.py": (
        # test_web_fetch.py is left out: its slow-page and size-cap tests take seconds each,
        # and the audit tests send the same hops (redirects, pinning) to a local server.
        "tests/tools/test_adversarial_addresses.py",
        "tests/tools_web/test_web_audit_gaps.py",
        "tests/tools_web/test_netguard_boundaries.py",
    ),
}

# Mutants that cannot change behaviour, by mutmut's name, with the reason.
_NET = "toolrig.tools._netguard."
EQUIVALENT: dict[str, str] = {
    _NET + "x__parse_networks__mutmut_3": "strict=None is falsy: the same as strict=False",
    _NET + "x__pinned__mutmut_5": "httpx's URL.host has no brackets or spaces to strip",
    _NET + "x__pinned__mutmut_6": "URL.host is lower case and bracket-free: no X, [ or ] to strip",
    _NET + "x__resolve__mutmut_8": "without type=, getaddrinfo repeats each address per socket "
    "type; the list keeps each address once, in the same order",
    _NET + "x__resolve__mutmut_24": "split('%') or split('%', 2): the part before the first % is "
    "the same",
    _NET + "x__resolve__mutmut_25": "a zone index holds no %: rsplit and split cut at the same one",
    _NET + "x__resolve__mutmut_30": "maxsplit 2 instead of 1: the part before the first % is the "
    "same",
    _NET + "xǁNetPolicyǁreason__mutmut_41": "getattr default None is falsy like False",
    _NET + "x_resolve_checked__mutmut_36": "ip_address(None) raises ValueError, so a literal "
    "goes to getaddrinfo, which returns that same address without a lookup",
}
_SHELL = "toolrig.tools._shell_policy."
EQUIVALENT |= {
    _SHELL + "x__git__mutmut_28": "split('=') or split('=', 1): the part before the first = is "
    "the same",
    _SHELL + "x__git__mutmut_31": "maxsplit 2 instead of 1: the part before the first = is the "
    "same",
    _SHELL + "x__long__mutmut_5": "split('=') or split('=', 1): the part before the first = is "
    "the same",
    _SHELL + "x__long__mutmut_8": "maxsplit 2 instead of 1: the part before the first = is the "
    "same",
    _SHELL + "x__git__mutmut_79": "an argument that starts with -O cannot start with --, "
    "whatever the second test compares",
}
_SQLITE = "toolrig.tools._sql_sqlite."
EQUIVALENT |= {
    _SQLITE + "x_read_only_authorizer__mutmut_6": "a function event without a name: 'xxxx' is "
    "no more a denied function than '' is",
    _SQLITE + "x_read_only_authorizer__mutmut_14": "a pragma event without a name: 'xxxx' is on "
    "neither list, like ''",
    _SQLITE + "x_setup_read_only__mutmut_4": "SQLite reads pragma names and values in any case",
    _SQLITE + "x_setup_read_only__mutmut_5": "SQLite reads pragma names and values in any case",
}
_PG = "toolrig.tools._sql_postgres."
EQUIVALENT |= {
    _PG + f"x_narrow_role_sql__mutmut_{n}": "PostgreSQL reads keywords in any case and folds "
    "unquoted names to lower case: the same role and grants"
    for n in (3, 5, 7, 8, 11)
}
_VALIDATION = "toolrig.core.schema._validation.x"
_TRUTHY = "only whether data_problems found anything is read: any limit, and long integers "
_TRUTHY += "(which json.dumps then refuses, reaching the same strict Python validation), agree"
_PRESENT = "pydantic-core puts this key in every error: the default is never used"
_NO_FALLBACK = (
    "the path for errors() that cannot encode their inputs: pydantic-core 2.50 encodes lone "
    "surrogates without raising, so no error lacks its input (reached again if a version does)"
)
EQUIVALENT |= {
    _VALIDATION + "ǁArgumentsValidatorǁvalidate__mutmut_1": "a Protocol's method body never "
    "runs: the implementations' own defaults apply",
    **{
        _VALIDATION + f"ǁArgumentValidatorǁ_strict__mutmut_{n}": _TRUTHY
        for n in (12, 14, 15, 16, 17)
    },
    **{
        _VALIDATION + f"ǁArgumentValidatorǁ_strict__mutmut_{n}": "NaN and Infinity were refused "
        "by data_problems just before: json.dumps never meets one"
        for n in (25, 27, 28)
    },
    **{
        _VALIDATION + f"ǁArgumentValidatorǁ_problem__mutmut_{n}": _PRESENT
        for n in (4, 6, 12, 14, 17)
    },
    **{
        _VALIDATION + f"ǁOutputValidatorǁcheck__mutmut_{n}": _PRESENT
        for n in (6, 8, 14, 16, 19, 20)
    },
    **{
        _VALIDATION + f"ǁArgumentValidatorǁ_problem__mutmut_{n}": _PRESENT
        for n in (104, 106, 109, 110)
    },
    **{
        _VALIDATION + f"ǁArgumentValidatorǁ_problem__mutmut_{n}": _NO_FALLBACK
        for n in (22, 28, 29, 30, 31)
    },
    **{_VALIDATION + f"__error_list__mutmut_{n}": _NO_FALLBACK for n in range(3, 12)},
    _VALIDATION + "__error_list__mutmut_2": "an error's url is never read",
    _VALIDATION + "ǁArgumentValidatorǁerror_from__mutmut_9": "error_count() of pydantic-core "
    "equals the length of the full error list, the fallback's answer",
    _VALIDATION + "ǁArgumentValidatorǁerror_from__mutmut_10": "the listed count is only read "
    "when error_count() fails, which pydantic-core's does not",
    _VALIDATION + "__loads_container__mutmut_7": "the text's first character is [ or { or "
    "it is not JSON text of a container: an X first fails to decode all the same",
    _VALIDATION + "__loads_container__mutmut_11": "text that starts with [ or { decodes to an "
    "array or an object or not at all",
}
_JSON = "toolrig.core.schema._json_data."
_IN_RANGE = (
    "moving the 64-bit range's edge by one: an integer at the edge has fewer digits than "
    "Python's smallest int-to-text limit (640), so readable_int accepts it all the same"
)
EQUIVALENT |= {
    **{_JSON + f"x__plain__mutmut_{n}": _IN_RANGE for n in (22, 23)},
    **{_JSON + f"x__plain_scalar__mutmut_{n}": _IN_RANGE for n in (8, 9)},
    **{_JSON + f"x_plain__mutmut_{n}": _IN_RANGE for n in (21, 22)},
    **{
        _JSON + f"x_plain__mutmut_{n}": "the flat-object shortcut of plain gives up to the "
        "general walk, which answers the same; only the time differs"
        for n in (1, 11, 12, 17, 24, 30, 32)
    },
    **{
        _JSON + f"x__plain__mutmut_{n}": "without the exact type the item reaches the "
        "isinstance tests and _plain_scalar, which answer the same"
        for n in (12, 13)
    },
    _JSON + "x_plain__mutmut_42": "_plain stops at depth 257, far below Python's recursion "
    "limit: the RecursionError guard is a safety net no input reaches",
    _JSON + "x__plain__mutmut_33": "a bool or None that skips the shortcut reaches "
    "_plain_scalar, which accepts it too",
    _JSON + "x__plain__mutmut_38": "the isinstance test accepts every list the exact type "
    "tests would",
    _JSON + "x__plain__mutmut_39": "the isinstance test accepts every dict the exact type "
    "tests would",
}
_BOX = "toolrig.tools._sandbox.x"
_ROOT_SHORTCUT = (
    "the shortcut for the root's spellings: without it the path is joined, normalised and "
    "resolved to the root all the same"
)
EQUIVALENT |= {
    **{_BOX + f"ǁSandboxǁresolve__mutmut_{n}": _ROOT_SHORTCUT for n in (14, 15, 16)},
    _BOX + "ǁSandboxǁresolve__mutmut_60": "the root's parent joined with the root's name is "
    "the root: the second test only saves the work",
    _BOX + "ǁSandboxǁrelative__mutmut_4": "Path.relative_to gives '.' for the root, never '': "
    "the fallback is never taken",
    _BOX + "ǁSandboxǁread_bytes__mutmut_5": "the size only sets how much the first read asks "
    "for: the bytes returned are the same",
    _BOX + "ǁSandboxǁread_bytes__mutmut_8": "the size only sets how much the first read asks "
    "for: the bytes returned are the same",
    _BOX + "ǁSandboxǁlstat__mutmut_11": "follow_symlinks=None is falsy: the same as False",
    _BOX + "__existing_mode__mutmut_4": "follow_symlinks=None is falsy: the same as False",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Score:
    """One module's mutmut result."""

    module: str
    generated: int
    killed: int
    survived: int
    equivalent: int
    other: int  # timeouts, suspicious, no tests: counted as not killed
    survivors: tuple[str, ...]
    seconds: float

    @property
    def rate(self) -> float:
        counted = self.generated - self.equivalent
        return 1.0 if counted <= 0 else self.killed / counted


def _slug(module: str) -> str:
    return module.removeprefix("src/").removesuffix(".py").replace("/", ".")


def _fingerprint(module: str) -> str:
    """Hash of what decides a module's score: its code, its tests, the tool's settings."""
    digest = hashlib.sha256()
    for name in (module, *MODULES[module], "scripts/mutation.py"):
        path = ROOT / name.partition("::")[0]
        digest.update(name.encode())
        digest.update(path.read_bytes() if path.exists() else b"<missing>")
    return digest.hexdigest()


def _load_cache() -> dict[str, dict[str, object]]:
    if not CACHE.exists():
        return {}
    data: dict[str, dict[str, object]] = json.loads(CACHE.read_text())
    return data


def _save_cache(cache: dict[str, dict[str, object]]) -> None:
    SCRATCH.mkdir(exist_ok=True)
    CACHE.write_text(json.dumps(cache, indent=1, sort_keys=True))


def _mutmut_section(module: str) -> str:
    tests = ", ".join(
        json.dumps(t) for t in MODULES[module] if (ROOT / t.partition("::")[0]).exists()
    )
    return (
        "\n[tool.mutmut]\n"
        'source_paths = ["src"]\n'
        f"only_mutate = [{json.dumps(module)}]\n"
        f"pytest_add_cli_args_test_selection = [{tests}]\n"
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-x", "-q"]\n'
        "use_setproctitle = false\n"
        # Forked from a fresh server process: a test process that already ran async work holds
        # a background event-loop thread that a plain fork would not carry over (the child hangs).
        'process_isolation = "forkserver"\n'
    )


def _prepare(module: str, *, fresh: bool) -> Path:
    """The scratch project for ``module``, refreshed from the working tree (``fresh``: without
    mutmut's results of earlier runs)."""
    work = SCRATCH / _slug(module)
    if fresh:
        shutil.rmtree(work / "mutants", ignore_errors=True)
    work.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, work / name, dirs_exist_ok=True, ignore=ignore)
        elif source.exists():
            shutil.copy2(source, work / name)
    pyproject = (ROOT / "pyproject.toml").read_text()
    (work / "pyproject.toml").write_text(pyproject + _mutmut_section(module))
    return work


def _mutmut(work: Path, *args: str, limit: float | None = None) -> str:
    command = ["nice", "-n", "10", sys.executable, "-m", "mutmut", *args]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(
        command, cwd=work, env=env, capture_output=True, text=True, timeout=limit, check=False
    )
    return done.stdout + done.stderr


def _statuses(work: Path) -> dict[str, str]:
    """Every mutant's status, by name (``mutmut results --all true``)."""
    out: dict[str, str] = {}
    for line in _mutmut(work, "results", "--all", "true").splitlines():
        name, sep, status = line.strip().rpartition(": ")
        if sep and "__mutmut_" in name:
            out[name] = status
    return out


def run_module(module: str, *, fresh: bool = False) -> Score:
    """Run mutmut over ``module`` against its tests and count the results."""
    started = time.monotonic()
    work = _prepare(module, fresh=fresh)
    earlier = (work / "mutants").exists()
    output = _mutmut(work, "run", "--max-children", str(MAX_CHILDREN), limit=RUN_LIMIT)
    statuses = _statuses(work)
    retry = [n for n, s in statuses.items() if s != "killed"]
    if earlier and retry:
        # mutmut keeps a result while its function is unchanged; a killed mutant stays killed
        # when tests are added, but an earlier survivor must meet the current tests again.
        _mutmut(work, "run", "--max-children", str(MAX_CHILDREN), *retry, limit=RUN_LIMIT)
        statuses = _statuses(work)
    if not statuses:
        raise SystemExit(f"mutmut produced no mutants for {module}:\n{output[-3000:]}")
    equivalent = [n for n in statuses if n in EQUIVALENT]
    killed = [n for n, s in statuses.items() if s == "killed" and n not in EQUIVALENT]
    survived = [n for n, s in statuses.items() if s == "survived" and n not in EQUIVALENT]
    return Score(
        module=module,
        generated=len(statuses),
        killed=len(killed),
        survived=len(survived),
        equivalent=len(equivalent),
        other=len(statuses) - len(killed) - len(survived) - len(equivalent),
        survivors=tuple(
            sorted(n for n, s in statuses.items() if s != "killed" and n not in EQUIVALENT)
        ),
        seconds=round(time.monotonic() - started, 1),
    )


def changed_modules(ref: str) -> list[str]:
    """Modules whose code or mapped tests differ from the merge base with ``ref`` (committed
    or not)."""
    found = subprocess.run(
        ["git", "rev-parse", "--verify", "--quiet", ref], cwd=ROOT, capture_output=True, check=False
    )
    if found.returncode != 0 and ref == "origin/main":
        ref = "main"  # a clone without that remote: compare with the local main branch
    base = subprocess.run(
        ["git", "merge-base", ref, "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    names = subprocess.run(
        ["git", "diff", "--name-only", base], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    touched = set(names)
    return [m for m, tests in MODULES.items() if m in touched or touched & set(tests)]


def _table(scores: list[Score]) -> str:
    lines = [
        "| module | generated | killed | survived | equivalent | other | score |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for s in scores:
        lines.append(
            f"| `{_slug(s.module)}` | {s.generated} | {s.killed} | {s.survived} | "
            f"{s.equivalent} | {s.other} | {s.rate:.0%} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--changed", nargs="?", const="origin/main", metavar="REF")
    parser.add_argument("-m", "--module", action="append", default=[])
    parser.add_argument("--fresh", action="store_true", help="ignore the cached scores")
    parser.add_argument("--survivors", action="store_true", help="list the surviving mutants")
    parser.add_argument("--list", action="store_true", help="name the selected modules only")
    args = parser.parse_args(argv)

    selected = list(MODULES)
    if args.changed:
        selected = changed_modules(args.changed)
    if args.module:
        selected = [m for m in selected if any(k in m for k in args.module)]
    if not selected:
        print("no module to mutate")
        return 0
    if args.list:
        print("\n".join(selected))
        return 0
    cache = _load_cache()
    scores: list[Score] = []
    for module in selected:
        key = _fingerprint(module)
        hit = cache.get(module)
        if hit is not None and hit.get("fingerprint") == key and not args.fresh:
            data = {k: v for k, v in hit.items() if k != "fingerprint"}
            data["survivors"] = tuple(data["survivors"])  # type: ignore[arg-type]
            score = Score(**data)  # type: ignore[arg-type]
            print(f"{module}: cached ({score.rate:.0%})", flush=True)
        else:
            print(
                f"{module}: running mutmut against {len(MODULES[module])} test selection(s)",
                flush=True,
            )
            score = run_module(module, fresh=args.fresh)
            cache = {**_load_cache(), module: {**asdict(score), "fingerprint": key}}
            _save_cache(cache)  # read again first: another run may have saved other modules
            print(f"{module}: {score.rate:.0%} in {score.seconds:.0f} s", flush=True)
        scores.append(score)
    print(_table(scores))
    if args.survivors:
        for s in scores:
            for name in s.survivors:
                print(f"  not killed: {name}  (mutmut show {name}, in .mutation/{_slug(s.module)})")
    return 0 if all(s.rate >= TARGET for s in scores) else 1


if __name__ == "__main__":
    sys.exit(main())
