"""The layers import one way, and no modules import each other in a circle.

Every module under ``src/toolrig`` is parsed (never imported). Each layer may import only the
layers before it in :data:`ORDER`; module-level, in-function and ``TYPE_CHECKING`` imports all
count, and so does ``importlib.import_module("toolrig....")`` with a literal name. The module
import graph, built from the same imports, must have no circle: a strongly connected component
of more than one module is reported with the imports that close it.

``from pkg import name`` is an edge to the module ``pkg.name`` when there is one, else to
``pkg`` (for a package, its ``__init__``). Importing ``pkg.sub`` runs ``pkg/__init__.py``
first, but that is not counted as an edge: a package's ``__init__`` re-exporting its
submodules is no circle with them unless one of them imports the package itself.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

ORDER = (
    "core",
    "registry",
    "runtime",
    "providers",
    "storage",
    "search",
    "agent",
    "testing",
    "distributed",
    "durable",
    "mcp",
    "tools",
    "console",
    "cli",
)
"""The layers, lowest first; each imports only from the layers before it."""

CORE_ROOMS = ("model", "result", "schema", "context", "define")
"""The core's rooms, lowest first; each imports only from the rooms before it: the tool model
imports nothing else in the core, results only the model, schemas and validation the model and
results, the run-time context the model and results, and definition everything."""

ALLOWED_UPWARD: frozenset[str] = frozenset()
"""Modules (paths under ``src/toolrig``) allowed to import later layers: none. An import by a
computed name, which the import reading cannot see, is kept to the modules listed by
:func:`test_imports_by_computed_name_are_only_where_listed`."""

COMPUTED_IMPORTS: dict[str, str] = {
    "core/model/_lazy.py": "each package's lazily exported names, read from its ``_LAZY`` table",
    "core/model/_on_first_use.py": "asyncio and logging, imported on their first use",
    "registry/_executors.py": "user code named by a YAML ``executor:`` import path",
    "cli/_catalog.py": "the user's ``--module``",
    "agent/_sdk_request.py": "an LLM provider's SDK, named by the provider",
    "tools/_documents.py": "a document parser from the documents extra, named by the format",
}
"""Modules that call ``import_module`` with a computed name, and why."""


@dataclass(frozen=True, slots=True)
class Import:
    """One import of a package module, where it is written."""

    source: str
    """The importing module's dotted name."""
    path: str
    """The importing file, relative to the source root."""
    line: int
    target: str
    """The dotted name imported: the module, or the module a name is taken from."""
    kind: str
    """``module-level``, ``in a function`` or ``TYPE_CHECKING``."""


# -- reading the tree --------------------------------------------------------------------------
def module_names(root: Path, package: str) -> dict[str, Path]:
    """Every module of ``package`` under ``root`` by dotted name (a package by its own name)."""
    out: dict[str, Path] = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def imports_of(name: str, path: Path, root: Path, modules: dict[str, Path]) -> list[Import]:
    """The imports of the package's own modules written in ``path`` (module ``name``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    here = name if path.name == "__init__.py" else name.rpartition(".")[0]
    package = name.split(".")[0]
    rel = path.relative_to(root).as_posix()
    found: dict[Import, None] = {}  # one entry for several names taken from one module
    for node, kind in _walk(tree):
        for target in _targets(node, here, modules):
            if target == package or target.startswith(package + "."):
                found[Import(name, rel, node.lineno, target, kind)] = None
    return list(found)


def _walk(tree: ast.Module) -> Iterator[tuple[ast.stmt | ast.expr, str]]:
    """Every import statement and call, with the kind of place it is in."""

    def visit(node: ast.AST, kind: str) -> Iterator[tuple[ast.stmt | ast.expr, str]]:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for statement in node.body:
                yield from visit(statement, "TYPE_CHECKING")
            for statement in node.orelse:
                yield from visit(statement, kind)
            return
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            kind = "TYPE_CHECKING" if kind == "TYPE_CHECKING" else "in a function"
        if isinstance(node, ast.Import | ast.ImportFrom | ast.Call):
            yield node, kind
        for child in ast.iter_child_nodes(node):
            yield from visit(child, kind)

    yield from visit(tree, "module-level")


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _targets(node: ast.stmt | ast.expr, here: str, modules: dict[str, Path]) -> list[str]:
    """The dotted names ``node`` imports (an edge to a module, or to the module a name is
    taken from)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            parts = here.split(".")
            parts = parts[: len(parts) - (node.level - 1)]
            base = ".".join([*parts, base] if base else parts)
        out = []
        for alias in node.names:
            sub = f"{base}.{alias.name}"
            out.append(sub if sub in modules else base)
        return out
    if isinstance(node, ast.Call) and _is_dynamic_import(node.func) and node.args:
        first = node.args[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return [first.value]
    return []


def lazy_tables(path: Path) -> list[tuple[int, str]]:
    """``(line, module)`` for each module named in a package's ``_LAZY`` table (the names
    it imports on first use, through :mod:`toolrig.core.model._lazy`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in tree.body:
        target = node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        if not (isinstance(target, ast.Name) and target.id in ("_LAZY", "_DEPRECATED")):
            continue
        value = node.value
        if isinstance(value, ast.Dict):
            for item in value.values:
                if isinstance(item, ast.Tuple) and item.elts:
                    item = item.elts[0]
                if isinstance(item, ast.Constant) and isinstance(item.value, str):
                    found.append((item.lineno, item.value))
    return found


def computed_imports(root: Path, package: str) -> list[str]:
    """``path:line`` of each ``import_module`` call whose module name is computed."""
    out = []
    for path in sorted((root / package).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _is_dynamic_import(node.func) and node.args:
                first = node.args[0]
                if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
                    out.append(f"{path.relative_to(root / package).as_posix()}:{node.lineno}")
    return out


def _is_dynamic_import(func: ast.expr) -> bool:
    if isinstance(func, ast.Attribute):
        return func.attr == "import_module"
    return isinstance(func, ast.Name) and func.id in ("import_module", "__import__")


def all_imports(root: Path, package: str) -> tuple[dict[str, Path], list[Import]]:
    """The modules of ``package`` under ``root`` and every import between them (the modules a
    package's ``_LAZY`` table names included, as imports of the package)."""
    modules = module_names(root, package)
    found = [i for name, path in modules.items() for i in imports_of(name, path, root, modules)]
    for name, path in modules.items():
        if path.name == "__init__.py":
            rel = path.relative_to(root).as_posix()
            found += [Import(name, rel, line, target, "lazy") for line, target in lazy_tables(path)]
    return modules, found


# -- the checks --------------------------------------------------------------------------------
def layer_of(name: str, order: Sequence[str]) -> str | None:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in order else None


def upward_imports(
    imports: Sequence[Import], order: Sequence[str], allowed: frozenset[str] = frozenset()
) -> list[str]:
    """``path:line: layer -> later layer (target; kind)`` for each import against ``order``."""
    bad = []
    for imp in imports:
        mine, theirs = layer_of(imp.source, order), layer_of(imp.target, order)
        if mine is None or theirs is None or order.index(theirs) <= order.index(mine):
            continue
        if imp.path.split("/", 1)[-1] in allowed:
            continue
        bad.append(f"{imp.path}:{imp.line}: {mine} -> {theirs} ({imp.target}; {imp.kind})")
    return bad


def missing_modules(imports: Sequence[Import], modules: dict[str, Path]) -> list[str]:
    """``path:line: target`` for each import of a package module that does not exist."""
    return [
        f"{imp.path}:{imp.line}: no module {imp.target}"
        for imp in imports
        if imp.target not in modules
    ]


def circles(imports: Sequence[Import], modules: dict[str, Path]) -> list[str]:
    """Each circle of modules importing each other, with the imports that form it."""
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for imp in imports:
        if imp.target in modules and imp.target != imp.source:
            graph[imp.source].add(imp.target)
    reports = []
    for component in _strongly_connected(graph):
        if len(component) < 2:
            continue
        members = set(component)
        lines = [f"circle of {len(members)} modules: {', '.join(sorted(members))}"]
        lines += [
            f"  {imp.path}:{imp.line}: {imp.source} -> {imp.target} ({imp.kind})"
            for imp in imports
            if imp.source in members and imp.target in members and imp.target != imp.source
        ]
        reports.append("\n".join(lines))
    return sorted(reports)


def _strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative (deep import chains must not hit the recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                out.append(component)
    return out


# -- the package -------------------------------------------------------------------------------
def test_each_layer_imports_only_the_layers_before_it() -> None:
    _, imports = all_imports(SRC, "toolrig")
    bad = upward_imports(imports, ORDER, ALLOWED_UPWARD)
    assert not bad, f"{len(bad)} import(s) of a later layer:\n" + "\n".join(bad)


def test_each_core_room_imports_only_the_rooms_before_it() -> None:
    _, imports = all_imports(SRC, "toolrig")
    core = [
        Import(
            i.source.replace("toolrig.core.", "core.", 1),
            i.path,
            i.line,
            i.target.replace("toolrig.core.", "core.", 1),
            i.kind,
        )
        for i in imports
        if i.source.startswith("toolrig.core.") and i.target.startswith("toolrig.core.")
    ]
    assert upward_imports(core, CORE_ROOMS) == []
    rooms = {p.name for p in (SRC / "toolrig" / "core").iterdir() if (p / "__init__.py").exists()}
    assert rooms == set(CORE_ROOMS)
    loose = sorted(p.name for p in (SRC / "toolrig" / "core").glob("_*.py") if p.stem != "__init__")
    assert loose == [], "every core module lives in a room"


def test_no_modules_import_each_other_in_a_circle() -> None:
    modules, imports = all_imports(SRC, "toolrig")
    found = circles(imports, modules)
    assert not found, f"{len(found)} import circle(s):\n" + "\n".join(found)


def test_every_import_of_the_package_names_a_module_that_exists() -> None:
    modules, imports = all_imports(SRC, "toolrig")
    bad = missing_modules(imports, modules)
    assert not bad, f"{len(bad)} import(s) of missing modules:\n" + "\n".join(bad)


def test_imports_by_computed_name_are_only_where_listed() -> None:
    found = computed_imports(SRC, "toolrig")
    assert sorted({f.split(":")[0] for f in found}) == sorted(COMPUTED_IMPORTS), found


def test_the_allow_list_names_modules_that_exist() -> None:
    modules = module_names(SRC, "toolrig")
    files = {path.relative_to(SRC / "toolrig").as_posix() for path in modules.values()}
    assert files >= ALLOWED_UPWARD, sorted(ALLOWED_UPWARD - files)


# -- the checker itself, on a tree made for it ---------------------------------------------------
def _tree(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / "pkg" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


LAYERS = ("low", "high")


def test_the_checker_finds_every_kind_of_upward_import(tmp_path: Path) -> None:
    _tree(
        tmp_path,
        {
            "__init__.py": "",
            "low/__init__.py": "",
            "low/plain.py": "import pkg.high.a\n",
            "low/lazy.py": "def f():\n    from pkg.high import a\n",
            "low/typing_only.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n"
                "    from pkg.high.a import X\n"
            ),
            "low/dynamic.py": "import importlib\nm = importlib.import_module('pkg.high.a')\n",
            "low/relative.py": "from ..high import a\n",
            "low/fine.py": "from pkg.low import plain\nimport os\n",
            "low/forward.py": "import pkg.high.a\n",
            "high/__init__.py": "",
            "high/a.py": "from pkg.low.fine import os\nX = 1\n",
        },
    )
    _, imports = all_imports(tmp_path, "pkg")
    bad = upward_imports(imports, LAYERS, frozenset({"low/forward.py"}))
    assert bad == [
        "pkg/low/dynamic.py:2: low -> high (pkg.high.a; module-level)",
        "pkg/low/lazy.py:2: low -> high (pkg.high.a; in a function)",
        "pkg/low/plain.py:1: low -> high (pkg.high.a; module-level)",
        "pkg/low/relative.py:1: low -> high (pkg.high.a; module-level)",
        "pkg/low/typing_only.py:3: low -> high (pkg.high.a; TYPE_CHECKING)",
    ]


def test_the_checker_finds_circles_and_not_packages_that_re_export(tmp_path: Path) -> None:
    _tree(
        tmp_path,
        {
            "__init__.py": "",
            # a package re-exporting its submodules, which import each other one way: fine
            "ok/__init__.py": "from pkg.ok.sub import X\nfrom pkg.ok.other import Y\n",
            "ok/sub.py": "from pkg.ok.other import Y\nX = Y\n",
            "ok/other.py": "Y = 1\n",
            # two modules importing each other, one of them only in a function
            "two/__init__.py": "",
            "two/a.py": "from pkg.two.b import B\nA = 1\n",
            "two/b.py": "B = 2\ndef f():\n    from pkg.two.a import A\n",
            # a submodule taking a name through its package's __init__
            "via/__init__.py": "from pkg.via.sub import X\nZ = 0\n",
            "via/sub.py": "from pkg.via import Z\nX = Z\n",
        },
    )
    modules, imports = all_imports(tmp_path, "pkg")
    assert circles(imports, modules) == [
        "circle of 2 modules: pkg.two.a, pkg.two.b\n"
        "  pkg/two/a.py:1: pkg.two.a -> pkg.two.b (module-level)\n"
        "  pkg/two/b.py:3: pkg.two.b -> pkg.two.a (in a function)",
        "circle of 2 modules: pkg.via, pkg.via.sub\n"
        "  pkg/via/__init__.py:1: pkg.via -> pkg.via.sub (module-level)\n"
        "  pkg/via/sub.py:1: pkg.via.sub -> pkg.via (module-level)",
    ]


def test_the_checker_finds_imports_of_missing_modules(tmp_path: Path) -> None:
    _tree(
        tmp_path,
        {
            "__init__.py": "",
            "low/__init__.py": "",
            "low/a.py": "from pkg.low.gone import X\nfrom pkg.low import a\n",
        },
    )
    modules, imports = all_imports(tmp_path, "pkg")
    assert missing_modules(imports, modules) == ["pkg/low/a.py:1: no module pkg.low.gone"]
