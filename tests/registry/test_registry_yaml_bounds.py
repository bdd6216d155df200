"""Hostile YAML definitions: aliases are refused and nesting is bounded, so no file can hang
or crash a load, and every good file beside a bad one still loads.

Each shape is read under a 5-second alarm (the old reader expanded a 1.2 KB file of nested
aliases for ever, and a self-referencing alias ended in ``RecursionError``)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

import pytest

from toolrig.registry._loader import read_text

GOOD = """\
name: {name}
description: A good tool beside bad ones.
parameters:
  - {{name: text, type: string, required: true}}
executor: json.dumps
"""


def _laughs(width: int, depth: int, mapping: bool = False) -> str:
    """The "billion laughs": each level holds ``width`` aliases of the one before."""
    lines = ["a0: &a0 [lol, lol, lol]"]
    for level in range(1, depth + 1):
        prev = f"*a{level - 1}"
        if mapping:
            items = ", ".join(f"k{i}: {prev}" for i in range(width))
            lines.append(f"a{level}: &a{level} {{{items}}}")
        else:
            lines.append(f"a{level}: &a{level} [{', '.join([prev] * width)}]")
    return "\n".join(lines) + "\n"


def _nested(depth: int, flow: bool = True) -> str:
    if flow:
        return "name: deep\nvalue: " + "[" * depth + "]" * depth + "\n"
    return (
        "name: deep\n"
        + "".join(f"{'  ' * i}k{i}:\n" for i in range(depth))
        + "  " * depth
        + "x: 1\n"
    )


ALIASES = {
    "laughs-9x9": _laughs(9, 9),
    "laughs-2x60": _laughs(2, 60),
    "laughs-30x6": _laughs(30, 6),
    "laughs-map-9x9": _laughs(9, 9, mapping=True),
    "self-seq": "name: t\ndescription: &x [*x]\n",
    "self-map": "name: t\ndescription: &x {a: *x}\n",
    "self-deep": "name: t\na: &x [1, [2, [3, {b: *x}]]]\n",
    "mutual": "name: t\na: &x [1, &y [*x, *y]]\n",
    "merge-key": "base: &b {name: t, description: d}\n<<: *b\n",
    "merge-list": "name: t\n<<: [*b]\n",
    "scalar": "name: &n tool\ndescription: *n\n",
    "key": "a: &k name\n? *k\n: t\n",
    "flow": "{name: t, description: &d x, tags: [*d, *d]}\n",
    "parameter": (
        "name: t\ndescription: d\nexecutor: json.dumps\n"
        "parameters: [&p {name: a, type: string}, *p]\n"
    ),
    "definition-list": "- &d {name: t, description: d, executor: json.dumps}\n- *d\n",
    "undefined": "name: t\ndescription: *nope\n",
    "anchor-after-use": "name: t\na: *later\nb: &later 1\n",
    "alias-in-block-seq": "name: t\nlist: &l\n  - 1\nagain:\n  - *l\n  - *l\n",
    "tagged": "name: t\na: &x !!str text\nb: *x\n",
    "long-name": "name: t\na: &" + "x" * 500 + " 1\nb: *" + "x" * 500 + "\n",
}
DEEP = {
    "flow-65": _nested(65),
    "flow-200": _nested(200),
    "flow-999": _nested(999),
    "flow-1000": _nested(1000),
    "flow-100000": _nested(100_000),
    "block-65": _nested(65, flow=False),
    "block-300": _nested(300, flow=False),
    "map-flow-500": "name: t\nv: " + "{a: " * 500 + "1" + "}" * 500 + "\n",
}
# Text with stars, anchors without aliases and deep-but-allowed nesting load as before.
FINE = {
    "glob": "name: t\ndescription: 'Reads *.py files'\nexecutor: json.dumps\n",
    "plain-star": "name: t\ndescription: a * b\nexecutor: json.dumps\n",
    "block-star": (
        "name: t\ndescription: |\n  Uses *bold* text.\n  *not an alias*\nexecutor: json.dumps\n"
    ),
    "star-only": "name: t\ndescription: '*'\ntags: ['*']\nexecutor: json.dumps\n",
    "anchor-unused": "name: t\ndescription: &d Describes.\nexecutor: json.dumps\n",
    "nested-60": (
        "name: t\ndescription: d\nexecutor: json.dumps\n"
        "output_schema: " + "{type: array, items: " * 20 + "{type: string}" + "}" * 20 + "\n"
    ),
}


@contextmanager
def _within(seconds: float) -> Iterator[None]:
    """Fail (instead of hanging) when the block takes longer than ``seconds``."""

    def alarm(signum: int, frame: FrameType | None) -> None:
        raise TimeoutError(f"took longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("shape", list(ALIASES))
def test_aliases_are_refused_with_a_line(shape: str) -> None:
    with _within(5):
        parsed, errors = read_text(ALIASES[shape], Path(f"{shape}.yaml"))
    assert parsed == []
    assert len(errors) == 1
    error = errors[0]
    assert error.path == Path(f"{shape}.yaml") and error.line is not None
    if shape != "undefined":
        assert "aliases are not allowed" in error.message
        assert "write the value out" in error.message


@pytest.mark.parametrize("shape", list(DEEP))
def test_nesting_is_bounded(shape: str) -> None:
    with _within(5):
        parsed, errors = read_text(DEEP[shape], Path(f"{shape}.yaml"))
    assert parsed == [] and len(errors) == 1
    assert "nested deeper than" in errors[0].message or "nesting" in errors[0].message


@pytest.mark.parametrize("shape", list(FINE))
def test_stars_anchors_and_ordinary_nesting_still_load(shape: str) -> None:
    with _within(5):
        parsed, errors = read_text(FINE[shape])
    assert errors == [] and [p.definition.name for p in parsed] == ["t"]


LOAD = """
import json, sys
from toolrig.registry import Registry
registry = Registry()
report = registry.load(sys.argv[1])
print(json.dumps({"loaded": sorted(report.loaded),
                  "errors": [[e.path.name, e.line, e.message] for e in report.errors]}))
"""


def test_every_good_file_loads_beside_every_bad_one(tmp_path: Path) -> None:
    """The whole folder at once, in a subprocess bounded in time: good files load, each bad
    one is reported with its file and reason."""
    folder = tmp_path / "tools"
    folder.mkdir()
    bad = {**ALIASES, **DEEP}
    for shape, text in bad.items():
        (folder / f"{shape}.yaml").write_text(text, encoding="utf-8")
    good = [f"good_{i}" for i in range(5)]
    for name in good:
        (folder / f"{name}.yaml").write_text(GOOD.format(name=name), encoding="utf-8")
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", LOAD, str(folder)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["loaded"] == good
    assert sorted(name for name, _, _ in report["errors"]) == sorted(f"{s}.yaml" for s in bad)
    assert all(line is not None and message for _, line, message in report["errors"])
    assert time.monotonic() - started < 30
