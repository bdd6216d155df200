"""Every Python code block of the README and the docs runs, so none can go stale.

The blocks of one page run in order, in one fresh interpreter, sharing their names (a page
reads as one session). No block may use top-level ``await`` or ``async for``: pasted into a
script, it would be a syntax error (async code goes in a function run by ``asyncio.run``).
The page runs in an empty folder holding a link to ``examples/`` and the empty folders the
built-in tools' pages name (``workspace/``, ``docs/``), with ``examples/`` on the import path
and its own execution log.

Two HTML comments, on the line before a fence, change what happens to a block:

* ``<!-- file: PATH -->`` before any block writes its text to ``PATH`` first (so a YAML
  definition shown on a page is the file the next Python block loads);
* ``<!-- skip: REASON -->`` before a Python block only compiles it: for the few that need an
  LLM's API key or serve until stopped. Their number is bounded by :data:`MAX_SKIPPED`.

Blocks of the pages other people write that cannot run as they are (a fragment in the middle
of an explanation) are listed in :data:`FRAGMENTS`, with the reason, and counted as skipped.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
MAX_SKIPPED = 12
"""Blocks that only compile, in all pages together: kept few on purpose."""
FRAGMENTS = {
    ("docs/architecture.md", "async def audit(call: Call, call_next: CallNext)"): (
        "a fragment: its names come from the surrounding explanation"
    ),
}
"""Blocks of pages edited elsewhere that are compiled only: (page, first line) -> reason."""

_FENCE = re.compile(r"^(`{3,})\s*([\w+-]*)")
_MARK = re.compile(r"^<!--\s*(skip|file):\s*(.+?)\s*-->$")

RUNNER = r"""
import ast, asyncio, inspect, json, sys, traceback
from pathlib import Path

blocks = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
scope = {"__name__": "__main__"}
loop = asyncio.new_event_loop()
for block in blocks:
    where = f"{block['page']}:{block['line']}"
    if block["file"]:
        target = Path(block["file"])
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(block["text"], encoding="utf-8")
        continue
    try:
        code = compile(block["text"], where, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        if code.co_flags & inspect.CO_COROUTINE:
            loop.run_until_complete(eval(code, scope))
        else:
            exec(code, scope)
    except BaseException:
        print(f"the block at {where} failed:", file=sys.stderr)
        traceback.print_exc()
        sys.exit(1)
"""


@dataclass(frozen=True, slots=True)
class Block:
    """One fenced block of a page."""

    page: str
    line: int
    """The 1-based line of its first line of code."""
    lang: str
    text: str
    skip: str | None = None
    """Why it is only compiled (``None``: it runs)."""
    file: str | None = None
    """Where its text is written before the next blocks run."""


def blocks_of(page: Path) -> list[Block]:
    """The fenced blocks of ``page`` with the marks before them."""
    name = page.relative_to(ROOT).as_posix()
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    index = 0
    while index < len(lines):
        fence = _FENCE.match(lines[index])
        if not fence:
            index += 1
            continue
        before = next((t.strip() for t in reversed(lines[:index]) if t.strip()), "")
        mark = _MARK.match(before)
        end = index + 1
        while end < len(lines) and not lines[end].startswith(fence.group(1)):
            end += 1
        text = "\n".join(lines[index + 1 : end]) + "\n"
        skip = mark.group(2) if mark and mark.group(1) == "skip" else None
        first = text.lstrip().splitlines()[0] if text.strip() else ""
        for (page_name, start), reason in FRAGMENTS.items():
            if page_name == name and first.startswith(start):
                skip = reason
        found.append(
            Block(
                page=name,
                line=index + 2,
                lang=fence.group(2).lower(),
                text=text,
                skip=skip,
                file=mark.group(2) if mark and mark.group(1) == "file" else None,
            )
        )
        index = end + 1
    return found


def _python(block: Block) -> bool:
    return block.lang in ("python", "py", "python3")


def _page_id(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


PAGES_WITH_CODE = [p for p in PAGES if any(_python(b) for b in blocks_of(p))]


@pytest.mark.parametrize("page", PAGES_WITH_CODE, ids=_page_id)
def test_the_python_blocks_of_a_page_run(page: Path, tmp_path: Path) -> None:
    blocks = blocks_of(page)
    for block in blocks:
        if _python(block):  # every block compiles, skipped ones included
            ast.parse(block.text, filename=f"{block.page}:{block.line}")
    runnable = [b for b in blocks if b.file or (_python(b) and b.skip is None)]
    spec = tmp_path / "blocks.json"
    spec.write_text(json.dumps([vars_of(b) for b in runnable]), encoding="utf-8")
    work = tmp_path / "work"
    for folder in ("workspace", "docs"):  # the folders the built-in tools' pages name
        (work / folder).mkdir(parents=True)
    (work / "examples").symlink_to(ROOT / "examples")
    env = {
        **os.environ,
        "TOOLRIG_LOG": str(tmp_path / "log.sqlite3"),
        "TOOLRIG_CONFIG": str(tmp_path / "no-config.toml"),
        "PYTHONPATH": os.pathsep.join([str(work), str(ROOT / "examples")]),
    }
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "TOOLRIG_LLM_PROVIDER", "OPENAI_BASE_URL"):
        env.pop(name, None)
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, str(spec)],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr[-4000:]


def vars_of(block: Block) -> dict[str, object]:
    return {"page": block.page, "line": block.line, "text": block.text, "file": block.file}


def test_skipped_blocks_are_few_and_say_why() -> None:
    skipped = [b for p in PAGES for b in blocks_of(p) if _python(b) and b.skip is not None]
    assert all(b.skip.strip() for b in skipped)
    listed = "\n".join(f"  {b.page}:{b.line}: {b.skip}" for b in skipped)
    assert len(skipped) <= MAX_SKIPPED, f"{len(skipped)} blocks only compile:\n{listed}"


def test_every_block_runs_as_pasted_into_a_file() -> None:
    """Top-level ``await`` works in a notebook and not in a script: every block compiles as a
    module would."""
    awaited = []
    for page in PAGES:
        for block in blocks_of(page):
            if not _python(block):
                continue
            try:
                compile(block.text, f"{block.page}:{block.line}", "exec")
            except SyntaxError as exc:
                awaited.append(f"{block.page}:{block.line}: {exc.msg}")
    assert not awaited, "blocks that fail when pasted into a file:\n" + "\n".join(awaited)


def test_marks_are_understood() -> None:
    """A mistyped mark would silently run (or skip) a block: every mark must parse."""
    for page in PAGES:
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            text = line.strip()
            if text.startswith("<!--") and ("skip" in text or "file:" in text):
                assert _MARK.match(text), f"{_page_id(page)}:{number}: cannot read {text!r}"
