"""Each extra, installed alone in a fresh virtual environment, is enough for what it is for.

The development environment has every extra (and what they pull in) at once, so a package an
extra needs but does not declare goes unseen there: kombu's Redis transport imports
``packaging``, which ``celery`` alone does not bring. Here the wheel a release would publish is
installed with one extra (or none) into a venv of its own, from the package index as a user
would, and a probe uses that extra's entry point from there: a ``toolrig worker`` on a Redis
broker answering a ``toolrig call``, ``toolrig demo`` after the README's install, the console
the demo suggests, tool search with its models, and so on.

Building a venv takes seconds to a minute (the index, then pip's cache), so each is kept under
``~/.cache/toolrig-tests/extras`` and reused while its extra's requirements (and the base
dependencies) are unchanged; the wheel under test is reinstalled into it every run. Every
extra of ``pyproject.toml`` must have a probe here (a new extra fails until it has one).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import tomllib
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
EXTRAS: dict[str, list[str]] = PROJECT["optional-dependencies"]
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "toolrig-tests" / "extras"
REDIS = ("127.0.0.1", 6379)

pytest.importorskip("build")
pytest.importorskip("hatchling")

# What each extra is for, used from its own venv: Python run there (cwd: a scratch folder,
# EXAMPLES: this checkout's examples/), or a function of this module (see below).
PROBES: dict[str, str] = {
    "postgres": """
import pglast
from toolrig import open_log
assert pglast.parse_sql("select 1")
try:
    open_log("postgresql://toolrig@127.0.0.1:9/none?connect_timeout=2")
except ImportError:
    raise
except Exception as exc:  # no server there: the driver itself tried to connect
    print("driver ran:", type(exc).__name__)
""",
    "dbos": """
import dbos, psycopg
from toolrig.durable import DBOSEngine, DurableAgent, StepLedger
print("dbos", dbos.__name__, psycopg.__name__)
""",
    "db": """
import sqlite3
from toolrig.tools import DbTool
sqlite3.connect("probe.db").execute("create table kettles (colour text)")
tool = DbTool("probe.db")
result = tool.execute("query_db", {"sql": "select count(*) as n from kettles"})
assert result.success, result.error
print(result.output)
""",
    "web": """
from toolrig.tools._html import html_to_markdown, trafilatura_available
import ddgs, lxml_html_clean
assert trafilatura_available()
page = "<html><body><article><h1>Kettles</h1>" + "<p>A blue kettle boils fast.</p>" * 20
print(html_to_markdown(page + "</article></body></html>")[:60])
""",
    "openapi": """
from toolrig import ToolExecutor
from toolrig.tools import openapi_tool
doc = {"openapi": "3.1.0", "info": {"title": "Pets", "version": "1"},
       "servers": [{"url": "http://127.0.0.1:9"}],
       "paths": {"/pets/{id}": {"get": {"operationId": "get_pet", "parameters": [
           {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}],
           "responses": {"200": {"description": "a pet"}}}}}}
tool = openapi_tool(doc, name="pets")
assert "get_pet" in tool.get_action_names(), tool.get_action_names()
""",
    "openapi-test": "import fastapi",
    "browser": """
import keyring, playwright.async_api
from toolrig.tools import BrowserTool
print(BrowserTool().get_action_names()[:3])
""",
    "search": """
import warnings
from toolrig import tool
from toolrig.search import ToolIndex

@tool
def check_stock(item: str) -> int:
    \"\"\"How many of an item are left in the warehouse.\"\"\"
    return 3

@tool
def send_email(to: str, body: str) -> None:
    \"\"\"Send an email message.\"\"\"

with warnings.catch_warnings():
    warnings.simplefilter("error")  # words only would warn
    index = ToolIndex([check_stock.spec, send_email.spec])
    hits = index.search("how many blue kettles do we still have?", k=1)
assert hits[0].name == "check_stock", hits
""",
    "search-accurate": """
from toolrig import tool
from toolrig.search import SearchConfig, ToolIndex

@tool
def check_stock(item: str) -> int:
    \"\"\"How many of an item are left in the warehouse.\"\"\"
    return 3

@tool
def send_email(to: str, body: str) -> None:
    \"\"\"Send an email message.\"\"\"

index = ToolIndex([check_stock.spec, send_email.spec], config=SearchConfig.accurate())
assert index.search("how many kettles are left?", k=1)[0].name == "check_stock"
""",
    "search-int8": "import onnx, onnxruntime, numpy",
    "docs": """
import docx
from toolrig.tools import DocumentTool
document = docx.Document()
document.add_paragraph("A blue kettle.")
document.save("kettle.docx")
result = DocumentTool(root=".").execute("convert_to_md", {"path": "kettle.docx"})
assert result.success and "blue kettle" in str(result.output), result
""",
    "docs-site": "import mkdocs, material, mkdocstrings_handlers.python",
    "otel": """
from toolrig import ToolExecutor, tool
from toolrig.runtime import enable_tracing
enable_tracing()

@tool
def add(a: int, b: int) -> int:
    \"\"\"Add.\"\"\"
    return a + b

assert ToolExecutor([add]).execute_sync("add", {"a": 2, "b": 40}).output == 42
""",
    "otel-test": "import opentelemetry.sdk.trace.export.in_memory_span_exporter",
    "release": "import build, twine, hatchling",
    "langchain": """
from toolrig import ToolExecutor, tool
from toolrig.providers import to_langchain_tools

@tool
def add(a: int, b: int) -> int:
    \"\"\"Add.\"\"\"
    return a + b

(converted,) = to_langchain_tools(ToolExecutor([add]))
assert converted.invoke({"a": 2, "b": 40}) == 42
""",
    "mcp": """
from toolrig import tool
from toolrig.mcp import ToolServer
from toolrig.registry import Catalog

@tool
def add(a: int, b: int) -> int:
    \"\"\"Add.\"\"\"
    return a + b

server = ToolServer(Catalog([add]))
assert [t.name for t in server.list_tools()] == ["add"]
server.close()
""",
    "llm": """
from toolrig.agent import make_client
for provider in ("openai", "openai-responses", "anthropic"):
    make_client(provider=provider, model="m", api_key="k", base_url="http://127.0.0.1:9/v1")
""",
    "providers-test": "import openai, anthropic, agents, google.genai, mcp, langchain_core",
}
FUNCTION_PROBES = {"", "celery", "console"}
"""Probed by ``_probe_<name>`` below: no extra (the README's install), celery, console."""


def _key(extra: str) -> str:
    """What a venv for ``extra`` was built from: its requirements, transitively within this
    project's extras, the base dependencies and the Python version."""
    seen: set[str] = set()
    todo = [extra] if extra else []
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for req in EXTRAS[name]:
            inner = re.fullmatch(r"toolrig\[([\w,-]+)\]", req)
            if inner:
                todo.extend(inner[1].split(","))
    data = {
        "python": sys.version_info[:2],
        "base": PROJECT["dependencies"],
        "extras": {name: EXTRAS[name] for name in sorted(seen)},
    }
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


def _pip(*args: str | Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=900,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, f"pip {args}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


def _venv(extra: str, wheel: Path) -> Path:
    """The venv of ``extra`` with ``wheel`` installed: reused when built from the same
    requirements, else built afresh (a failed build leaves nothing to reuse)."""
    folder = CACHE / f"{extra or 'base'}-{_key(extra)}"
    python = folder / "bin" / "python"
    if (folder / "complete").is_file():
        _pip("--python", python, "install", "-q", "--no-deps", "--force-reinstall", wheel)
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    CACHE.mkdir(parents=True, exist_ok=True)
    for stale in CACHE.iterdir():  # built from requirements since changed
        if stale.name.rpartition("-")[0] == (extra or "base"):
            shutil.rmtree(stale, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", folder], check=True)
    _pip("--python", python, "install", "-q", f"{wheel}[{extra}]" if extra else wheel)
    (folder / "complete").write_text(wheel.name)
    return folder


def _run(venv: Path, *argv: str | Path, cwd: Path, timeout: float = 120, code: int = 0) -> str:
    done = subprocess.run(
        [str(a) for a in argv],
        cwd=cwd,
        env=_env(venv),
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == code, f"{argv}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout + done.stderr


def _env(venv: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "TOOLRIG_LLM_PROVIDER", "OPENAI_BASE_URL"):
        env.pop(name, None)
    env.update(
        PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
        VIRTUAL_ENV=str(venv),
        TOOLRIG_CONFIG=str(venv / "no-config.toml"),
        EXAMPLES=str(ROOT / "examples"),
        COLUMNS="200",
        NO_COLOR="1",
    )
    return env


@pytest.fixture(scope="module")
def venvs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A venv per extra (and one with none), built three at a time."""
    dist = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", dist, ROOT],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    (wheel,) = dist.glob("toolrig-*.whl")
    names = ["", *EXTRAS]
    with ThreadPoolExecutor(3) as pool:
        built = dict(zip(names, pool.map(lambda e: _venv(e, wheel), names), strict=True))
    return built


def test_every_extra_has_a_probe() -> None:
    assert set(EXTRAS) | {""} == set(PROBES) | FUNCTION_PROBES


@pytest.mark.parametrize("extra", ["", *EXTRAS])
def test_an_extra_alone_is_enough(extra: str, venvs: dict[str, Path], tmp_path: Path) -> None:
    venv = venvs[extra]
    if extra in PROBES:
        print(_run(venv, venv / "bin" / "python", "-c", PROBES[extra], cwd=tmp_path))
        return
    globals()[f"_probe_{extra or 'base'}"](venv, tmp_path)


def _probe_base(venv: Path, cwd: Path) -> None:
    """The README's install runs the demo, and the demo says how to add the console it
    suggests (its extra is not installed)."""
    where = _run(
        venv, venv / "bin" / "python", "-c", "import toolrig; print(toolrig.__file__)", cwd=cwd
    )
    assert where.startswith(str(venv)), where  # the wheel's, not this checkout's
    out = _run(venv, venv / "bin" / "toolrig", "demo", cwd=cwd)
    assert "nothing raised" in out and "5. The agent loop" in out
    assert f"{venv / 'bin' / 'python'} -m pip install 'toolrig[console]'" in out, out[-800:]
    console = _run(venv, venv / "bin" / "toolrig", "console", cwd=cwd, timeout=30, code=2)
    assert "pip install 'toolrig[console]'" in console  # one line, exit 2


def _probe_console(venv: Path, cwd: Path) -> None:
    """With the extra, the demo suggests the console command alone, and that command serves
    the console (over the log the demo wrote)."""
    out = _run(venv, venv / "bin" / "toolrig", "demo", cwd=cwd)
    (command,) = [line.strip() for line in out.splitlines() if "toolrig console" in line]
    assert "pip install" not in out
    argv = [*command.split(), "--port", "0"]
    proc = subprocess.Popen(
        [venv / "bin" / argv[0], *argv[1:]],
        cwd=cwd,
        env=_env(venv),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        address = re.search(r"on (http://\S+)", line)
        assert address, line + (proc.stdout.read() if proc.poll() is not None else "")
        import httpx

        page = httpx.get(address[1], timeout=30, follow_redirects=True)  # ends in /
        assert page.status_code == 200 and "toolrig" in page.text
    finally:
        proc.terminate()
        proc.wait(10)


def _probe_celery(venv: Path, cwd: Path) -> None:
    """The README's scaling example from a venv with only the extra: a ``toolrig worker`` on
    a Redis broker answers a ``toolrig call``, and logs no warning about the calls it runs."""
    with socket.socket() as probe:
        if probe.connect_ex(REDIS) != 0:
            pytest.fail("no Redis on 127.0.0.1:6379 (scripts/ensure-brokers.sh starts one)")
    queue = f"extras-{uuid.uuid4().hex[:8]}"
    catalog = cwd / "remote"
    catalog.mkdir()
    text = (ROOT / "examples" / "remote" / "keyword_extractor.yaml").read_text()
    (catalog / "keyword_extractor.yaml").write_text(
        text.replace("runs_on: analysis", f"runs_on: {queue}")
    )
    broker = "redis://127.0.0.1:6379/12"
    common = [
        "--catalog",
        str(catalog),
        "--import-path",
        str(ROOT / "examples"),
        "--broker",
        broker,
    ]
    log = cwd / "worker.log"
    with log.open("w") as out:
        worker = subprocess.Popen(
            [venv / "bin" / "toolrig", "worker", *common, "--pool", "solo", "--loglevel", "INFO"],
            cwd=cwd,
            env=_env(venv),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 60
        while " ready." not in log.read_text(errors="replace"):
            assert worker.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        out = _run(
            venv, venv / "bin" / "toolrig", "call", "keyword_extractor",
            'text_data:=["blue kettle", "a blue kettle"]', *common, "--json",
            cwd=cwd, timeout=60,
        )  # fmt: skip
        result = json.loads(out[out.index("{") :])
        assert result["success"] is True, result
        assert result["output"]["keywords"][0] == {"keyword": "blue", "count": 2}, result
    finally:
        worker.terminate()
        worker.wait(20)
    logged = log.read_text(errors="replace")
    assert "Traceback" not in logged and "no dispatcher" not in logged, logged
