"""Every command that takes a catalogue reads the same sources — a YAML folder or file, a
Python file defining ``tools``, a module — and a definition that cannot be read exits 2;
through the real command in subprocesses."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest
from cli_runner import one_line_error, toolrig

TOOLS_PY = '''
from toolrig import tool


@tool
def double(n: int) -> int:
    """Double a number."""
    return n * 2


tools = [double]
'''

BROKEN_YAML = "name: greet\ndescription: [unclosed\n"


@pytest.fixture
def tools_py(tmp_path: Path) -> Path:
    path = tmp_path / "mytools.py"
    path.write_text(TOOLS_PY, encoding="utf-8")
    return path


def test_list_show_call_and_schema_read_a_python_file(tools_py: Path) -> None:
    listed = toolrig("list", "--catalog", tools_py, "--json")
    assert listed.returncode == 0, listed.stderr
    assert [t["name"] for t in json.loads(listed.stdout)] == ["double"]
    assert "warning" not in listed.stderr.lower()
    shown = toolrig("show", "double", "--catalog", tools_py)
    assert shown.returncode == 0 and "Double a number" in shown.stdout, shown.stderr
    called = toolrig("call", "double", "n:=21", "--catalog", tools_py, "--json")
    assert called.returncode == 0, called.stderr
    assert json.loads(called.stdout)["output"] == 42
    schema = toolrig("schema", "--catalog", tools_py)
    assert schema.returncode == 0, schema.stderr
    assert json.loads(schema.stdout)[0]["function"]["name"] == "double"


def test_a_module_is_a_catalogue_too(tools_py: Path) -> None:
    done = toolrig(
        "call", "double", "n:=4", "--module", "mytools", "--import-path", tools_py.parent,
        "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["output"] == 8
    missing = toolrig("list", "--module", "no_such_module_here")
    assert missing.returncode == 2
    assert "--module no_such_module_here" in one_line_error(missing, "list")


def test_broken_yaml_exits_2_in_every_command(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(BROKEN_YAML, encoding="utf-8")
    for command in (
        ("list",),
        ("show", "greet"),
        ("call", "greet"),
        ("schema",),
        ("search", "greet"),
    ):
        done = toolrig(*command, "--catalog", bad)
        assert done.returncode == 2, (command, done.stdout, done.stderr)
        assert f"{bad}:" in done.stderr, command  # the problem, with its file and line
        assert "definition problem(s)" in done.stderr.splitlines()[-1], command
        assert "Traceback" not in done.stderr
    served = toolrig("serve", bad)
    assert served.returncode == 2, served.stderr
    assert "definition problem(s)" in served.stderr


def test_validate_reads_a_python_file_and_a_module(tools_py: Path) -> None:
    done = toolrig("validate", tools_py, "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] is True and report["tools"] == ["double"]
    module = toolrig("validate", "--module", "mytools", "--import-path", tools_py.parent, tools_py)
    assert module.returncode == 0, module.stdout + module.stderr
    assert "ok: 1 tool, 0 plans, no problems" in module.stdout
    broken = tools_py.with_name("broken.py")
    broken.write_text("raise RuntimeError('no config')\n", encoding="utf-8")
    failed = toolrig("validate", broken)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert f"{broken}: importing it failed: RuntimeError: no config" in failed.stdout
    assert "1 problem (0 tools, 0 plans)" in failed.stdout


NOTES_PY = '''
from toolrig import BaseTool, action


class Notes(BaseTool):
    """Keep notes."""

    name = "notes"

    @action
    def add(self, text: str) -> str:
        """Add a note."""
        return f"added {text}"

    @action
    def count(self) -> int:
        """How many notes there are."""
        return 0


tools = [Notes()]
'''


async def test_serve_takes_catalog_and_runs_only_the_listed_names(tmp_path: Path) -> None:
    """``toolrig serve --catalog notes.py`` serves what ``toolrig list --catalog notes.py``
    lists; MCP clients call `notes__add` (listed), and `notes.add` is an error naming it."""
    mcp = pytest.importorskip("mcp")
    from cli_runner import env
    from mcp import ClientSession, StdioServerParameters, stdio_client
    from mcp.shared.exceptions import MCPError

    notes = tmp_path / "notes.py"
    notes.write_text(NOTES_PY, encoding="utf-8")
    listed = toolrig("list", "--catalog", notes, "--json")
    assert [t["name"] for t in json.loads(listed.stdout)] == ["notes.add", "notes.count"]
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolrig.cli.main", "serve", "--catalog", str(notes)],
        env=env(),
    )
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write) as client,
    ):
        await asyncio.wait_for(client.initialize(), 30)
        names = [t.name for t in (await asyncio.wait_for(client.list_tools(), 30)).tools]
        assert names == ["notes__add", "notes__count"]
        done = await asyncio.wait_for(client.call_tool("notes__add", {"text": "milk"}), 30)
        assert not done.is_error and done.structured_content == {"result": "added milk"}
        with pytest.raises(MCPError) as info:
            await asyncio.wait_for(client.call_tool("notes.add", {"text": "milk"}), 30)
        assert info.value.code == mcp.types.INVALID_PARAMS
        assert "call it by its listed name 'notes__add'" in info.value.message
