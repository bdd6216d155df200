"""docs/cli-help.md is every command's ``--help``, exactly as the program prints it.

The page is made from the parser (``python tests/cli/test_cli_reference.py --write``), so
what users read there is what ``toolrig COMMAND --help`` says; this test fails when one of
them changes without the other — an option renamed, its help or metavar reworded, a
subcommand added or dropped. It renders at a fixed width (``COLUMNS=100``) so the page does
not depend on the terminal, and with the Python it was written with (argparse words its
headings differently across versions: another Python skips, saying so).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolrig.cli.main import build_parser

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "cli-help.md"
WIDTH = "100"
PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"
_HEAD = """# Every command's help

What `toolrig COMMAND --help` prints, for every command and subcommand, at a width of
{width} columns; [the CLI reference](cli.md) says what each one is for. Made from the parser
with Python {python} (`python tests/cli/test_cli_reference.py --write`); a test checks that
the two agree.
"""


def _commands(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Each parser under ``parser`` (itself first), with the words that reach it; an alias
    names the same parser, so each appears once, under its first name."""
    yield path, parser
    seen: set[int] = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                if id(sub) not in seen:
                    seen.add(id(sub))
                    yield from _commands(sub, (*path, name))


def render() -> str:
    """The page, as the parser would print each command's help at ``WIDTH`` columns."""
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        sections = [_HEAD.format(width=WIDTH, python=PYTHON)]
        for path, parser in _commands(build_parser()):
            title = " ".join(("toolrig", *path))
            sections.append(f"## `{title}`\n\n```text\n{parser.format_help().rstrip()}\n```\n")
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before
    return "\n".join(sections)


def _written_with() -> str | None:
    """The Python version the page says it was made with."""
    marker = "with Python "
    text = PAGE.read_text(encoding="utf-8")
    start = text.find(marker)
    return None if start < 0 else text[start + len(marker) :].split(" ", 1)[0]


def test_the_help_page_is_what_every_command_prints() -> None:
    written = _written_with()
    if written != PYTHON:
        pytest.skip(f"docs/cli-help.md was made with Python {written}, this is {PYTHON}")
    expected = PAGE.read_text(encoding="utf-8")
    actual = render()
    if actual != expected:
        changed = [
            line
            for line in actual.splitlines()
            if line.startswith("## ") and line not in expected.splitlines()
        ]
        pytest.fail(
            "docs/cli-help.md is not what the commands print"
            + (f" (new or renamed: {', '.join(changed)})" if changed else "")
            + "; review, then: python tests/cli/test_cli_reference.py --write"
        )


def test_the_page_names_every_command_once_and_is_in_the_site() -> None:
    titles = [line for line in PAGE.read_text(encoding="utf-8").splitlines() if line[:3] == "## "]
    assert len(titles) == len(set(titles))
    names = {" ".join(path) for path, _ in _commands(build_parser())}
    # every top-level command and the nested ones (log query/tail/summary, ...)
    assert {"call", "serve", "agent", "log", "completion"} <= names
    assert any(name.startswith("log ") for name in names)
    assert len(titles) == len(names)
    assert "cli-help.md" in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")


if __name__ == "__main__" and "--write" in sys.argv:
    PAGE.write_text(render(), encoding="utf-8")
