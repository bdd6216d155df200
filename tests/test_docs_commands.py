"""Every ``toolrig ...`` command that README.md and docs/ name exists, against the real parser.

Two kinds of mention are read:

* command lines in ``console`` and ``bash`` blocks (``$ toolrig ...``, ``.venv/bin/toolrig ...``,
  after ``&&``): parsed whole, as ``toolrig`` parses them, so a missing subcommand, an unknown
  option or a missing argument fails;
* inline code (`` `toolrig log tail --follow` ``), which may hold placeholders
  (``PATH...``, ``[--strict]``, ``query|tail|summary``): its subcommands (each alternative)
  must exist, and every option it names must be one of that subcommand's.

Error lines quoted in the docs (`` `toolrig serve: cannot listen ...` ``) are not commands.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolrig.cli.main import build_parser, parse_command

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
SHELL_BLOCKS = {"console", "bash", "sh", "shell"}
COMMAND = re.compile(r"(?:^|&&|\|\||;|\$ )\s*(?:[\w./-]*/)?toolrig[ \t]+(?P<rest>.*)")
INLINE = re.compile(r"`toolrig[ \t]+(?P<rest>[^`]+)`")


def _mentions() -> Iterator[tuple[str, str, bool]]:
    """``(where, text after 'toolrig', whole)`` for each mention; ``whole`` for command lines."""
    for page in PAGES:
        name = page.relative_to(ROOT).as_posix()
        fence: str | None = None
        pending = ""
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            stripped = line.strip()
            if stripped.startswith("```"):
                fence = None if fence is not None else stripped[3:].strip()
                continue
            if fence is None:
                for found in INLINE.finditer(line):
                    yield f"{name}:{number}", found["rest"], False
                continue
            if fence not in SHELL_BLOCKS:
                continue
            if fence == "console" and not (pending or stripped.startswith("$ ")):
                continue  # a command's output
            text = pending + stripped
            if text.endswith("\\"):  # continued on the next line
                pending = text[:-1] + " "
                continue
            pending = ""
            found = COMMAND.search(text)
            if found:
                yield f"{name}:{number}", found["rest"], True


def _words(text: str) -> list[str]:
    """The shell words of one command: up to the first pipe, redirect or ``&&``, no comment."""
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    words: list[str] = []
    for word in lexer:
        if word and set(word) <= set("|&;<>()"):
            break
        words.append(word)
    return words


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _check_spec(text: str) -> str | None:
    """What is wrong with an inline mention (placeholders allowed), or ``None``."""
    if re.match(r"[\w-]*:", text) or text.split()[0].isupper():  # an error line, `COMMAND:`
        return None
    words = [w for w in re.split(r"[\s\[\]()]+", text) if w]
    parser = build_parser()
    parsers = [parser]
    rest = words
    while rest and _subparsers(parsers[0]):
        head, rest = rest[0], rest[1:]
        choices = _subparsers(parsers[0])
        if head.isupper():  # a placeholder for the subcommand
            break
        unknown = [c for c in head.split("|") if c not in choices]
        if unknown:
            return f"no subcommand {' '.join(unknown)!r} (there are: {', '.join(choices)})"
        parsers = [choices[c] for c in head.split("|")]
    for word in rest:
        for option in word.split("|"):
            if option.startswith("-") and option.strip("-.") and not option[1:2].isdigit():
                flag = option.split("=", 1)[0].rstrip(".")
                missing = [p.prog for p in parsers if flag not in p._option_string_actions]
                if missing:
                    return f"{missing[0]} has no option {flag}"
    return None


def _check_line(text: str) -> str | None:
    """What is wrong with a command line, parsed whole as ``toolrig`` parses it, or ``None``."""
    words = _words(text)
    if "-h" in words or "--help" in words or "--version" in words:
        return _check_spec(" ".join(words))
    errors = io.StringIO()
    try:
        with contextlib.redirect_stderr(errors):
            parse_command(build_parser(), words)
    except SystemExit:
        return errors.getvalue().strip().splitlines()[-1]
    return None


MENTIONS = list(_mentions())


def test_the_docs_name_commands() -> None:
    """The reader below finds the mentions (so the check cannot pass on finding none)."""
    lines = [text for _, text, whole in MENTIONS if whole]
    assert len(MENTIONS) > 80 and len(lines) > 30
    assert any(text.startswith("demo") for text in lines)  # the README's first command


@pytest.mark.parametrize(("where", "text", "whole"), MENTIONS, ids=[m[0] for m in MENTIONS])
def test_every_command_named_in_the_docs_exists(where: str, text: str, whole: bool) -> None:
    problem = _check_line(text) if whole else _check_spec(text)
    assert problem is None, f"{where}: `toolrig {text}`: {problem}"


@pytest.mark.parametrize(
    ("text", "whole", "problem"),
    [
        ("log show RUN_ID", False, "no subcommand 'show'"),
        ("log query|shows", False, "no subcommand 'shows'"),
        ("serve --catalogue PATH", False, "toolrig serve has no option --catalogue"),
        ("log tail --folow", True, "unrecognized arguments: --folow"),
        ("call", True, "the following arguments are required"),
    ],
)
def test_a_command_that_does_not_exist_is_found(text: str, whole: bool, problem: str) -> None:
    found = _check_line(text) if whole else _check_spec(text)
    assert found is not None and problem in found
