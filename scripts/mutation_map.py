#!/usr/bin/env python3
"""Which tests cover which module, from coverage's per-test contexts: the mapping behind
``MODULES`` in ``scripts/mutation.py``.

Runs the given test files once under coverage with ``dynamic_context = test_function`` and
prints, for every module under ``--source``, the test files whose tests executed a line of it
(with the number of such tests), most first. A module's mutants are run against those files
only, so a score stays affordable.

    .venv/bin/python scripts/mutation_map.py --source src/toolrig/agent \\
        tests/agent/test_agent_limits.py tests/agent/test_agent_fallback.py
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _test_file(context: str, files: list[str]) -> str | None:
    """The test file of a context such as ``tests.agent.test_x.test_y`` (or ``...Class.test``)."""
    for name in files:
        dotted = name.removesuffix(".py").replace("/", ".")
        # pytest imports a test file of a folder without __init__.py by its bare name
        for prefix in (dotted, dotted.rpartition(".")[2]):
            if context == prefix or context.startswith(prefix + "."):
                return name
    return None


def covering(source: str, tests: list[str]) -> dict[str, Counter[str]]:
    """Module path -> test file -> how many of its tests executed the module."""
    with tempfile.TemporaryDirectory() as tmp:
        rc = Path(tmp) / "coveragerc"
        data = Path(tmp) / "coverage"
        rc.write_text(f"[run]\ndynamic_context = test_function\nsource = {source}\n")
        subprocess.run(
            [
                sys.executable,
                "-m",
                "coverage",
                "run",
                f"--rcfile={rc}",
                f"--data-file={data}",
                "-m",
                "pytest",
                "-p",
                "no:cacheprovider",
                "-q",
                *tests,
            ],
            cwd=ROOT,
            check=False,
        )
        report = Path(tmp) / "report.json"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "coverage",
                "json",
                f"--rcfile={rc}",
                f"--data-file={data}",
                "--show-contexts",
                "-o",
                str(report),
                "-q",
            ],
            cwd=ROOT,
            check=True,
        )
        files = json.loads(report.read_text())["files"]
    found: dict[str, Counter[str]] = defaultdict(Counter)
    for path, info in files.items():
        module = str(Path(path).resolve().relative_to(ROOT))
        seen: dict[str, set[str]] = defaultdict(set)
        for contexts in info.get("contexts", {}).values():
            for context in contexts:
                test = _test_file(context, tests)
                if test is not None:
                    seen[test].add(context)
        for test, names in seen.items():
            found[module][test] = len(names)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", required=True, help="directory or module to measure")
    parser.add_argument("tests", nargs="+", help="test files to run")
    args = parser.parse_args(argv)
    found = covering(args.source, args.tests)
    for module in sorted(found):
        print(f"{module}:")
        for test, count in found[module].most_common():
            print(f"    {test}  ({count} tests)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
