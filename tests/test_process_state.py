"""Every piece of process-wide mutable state is listed, with what it holds and why, in
``docs/architecture.md`` ("Process-wide state"): the module-level containers, caches,
context variables and singletons found in the source, and nothing listed that is gone.

What counts, per module (read with `ast`, nothing imported): a name declared ``global`` by a
function of the module; a module-level name bound to a new mutable container (a ``{}``,
``[]`` or ``set()`` literal unless the name is a constant's, or a call of ``dict``, ``list``,
``set``, ``OrderedDict``, ``defaultdict``, ``deque``, the weak containers or ``ContextVar``); a
module-level function kept by ``functools.cache`` or ``lru_cache``; and the singletons the
list names (instances that hold state, such as the tracing switch). Locks guard state and are
not listed.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "toolrig"
DOC = ROOT / "docs" / "architecture.md"
HEADING = "## Process-wide state"
_MAKERS = {
    "dict",
    "list",
    "set",
    "OrderedDict",
    "defaultdict",
    "deque",
    "WeakSet",
    "WeakKeyDictionary",
    "WeakValueDictionary",
    "ContextVar",
}
_CACHES = {"cache", "lru_cache"}


def _called(node: ast.expr) -> str | None:
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)


def _decorator(node: ast.expr) -> str | None:
    target = node.func if isinstance(node, ast.Call) else node
    return target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", None)


def found_in(path: Path) -> set[str]:
    """The state of one module, as ``name`` strings."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = {
        n
        for node in ast.walk(tree)
        if isinstance(node, ast.Global)
        for n in node.names
        if not n.endswith("lock")  # a lock made again after a fork guards state, holds none
    }
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        elif isinstance(node, ast.FunctionDef):
            if any(_decorator(d) in _CACHES for d in node.decorator_list):
                names.add(node.name)
            continue
        else:
            continue
        if not isinstance(target, ast.Name) or target.id == "__all__":
            continue
        literal = isinstance(value, ast.Dict | ast.List | ast.Set) and not target.id.isupper()
        if literal or _called(value) in _MAKERS:
            names.add(target.id)
    return names


def found() -> set[str]:
    """Every module's state, as ``package/module.py:name``."""
    return {
        f"{path.relative_to(SRC).as_posix()}:{name}"
        for path in sorted(SRC.rglob("*.py"))
        for name in found_in(path)
    }


def listed() -> set[str]:
    """The ``module:name`` of each row of the docs' table (first column, in backticks)."""
    text = DOC.read_text(encoding="utf-8")
    assert HEADING in text, f"{DOC.name} has no {HEADING!r} section"
    section = text.split(HEADING, 1)[1].split("\n## ", 1)[0]
    rows: set[str] = set()
    for line in section.splitlines():
        cell = re.match(r"\|\s*`([\w/.]+\.py):([\w, ]+)`", line)
        if cell:
            rows.update(f"{cell[1]}:{n.strip()}" for n in cell[2].split(","))
    return rows


def test_every_piece_of_process_state_is_listed() -> None:
    missing = sorted(found() - listed())
    assert not missing, f"process-wide state not listed in {DOC.name} ({HEADING}): {missing}"


def test_every_listed_piece_exists() -> None:
    stale = []
    for entry in sorted(listed()):
        module, name = entry.split(":")
        path = SRC / module
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        if not re.search(rf"^(?:{name}\b|def {name}\b)", text, re.MULTILINE):
            stale.append(entry)
    assert not stale, f"listed in {DOC.name} but not in the source: {stale}"
