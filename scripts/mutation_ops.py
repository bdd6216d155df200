"""The mutation shapes mutmut does not generate, as AST transforms of one module's source.

mutmut changes operators, constants, strings and arguments; it never drops one entry of a
collection, a branch of a condition or a call on a failure path, which are how a rule gets
narrower or a clean-up gets lost. These operators make exactly those changes:

* ``drop_element``: one element of a list, tuple or set literal left out (literals made of
  strings only are skipped: mutmut already changes each string, which removes it from any
  membership test);
* ``drop_operand``: one operand of ``a or b``, ``a and b`` or ``a | b`` left out (a condition
  or a flag set narrowed or widened);
* ``skip_failure_call``: a call statement inside an ``except`` or ``finally`` block replaced
  by ``pass`` (the clean-up, log or notice of the failure path skipped).

Each mutant is the module's text with one node's span replaced, so the rest of the file (its
comments, its line numbers) is unchanged. ``scripts/mutation.py`` runs them against the same
test selection as mutmut's and adds them to the same score.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

OPERATORS = ("drop_element", "drop_operand", "skip_failure_call")


@dataclass(frozen=True, slots=True)
class Mutant:
    """One changed copy of a module: its name, where and what changed, and the new source."""

    name: str  # <dotted module>.custom__<operator>__<n>
    line: int
    description: str
    source: str


def _skipped(tree: ast.Module) -> set[int]:
    """Nodes inside annotations, subscripts' slices (``Literal[...]``, ``tuple[...]``),
    ``__all__``/``__slots__``, docstrings and assignment targets: not behaviour."""
    skip: set[int] = set()

    def mark(node: ast.AST | None) -> None:
        if node is not None:
            skip.update(id(n) for n in ast.walk(node))

    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            mark(node.returns)
            for arg in (*node.args.args, *node.args.kwonlyargs, *node.args.posonlyargs):
                mark(arg.annotation)
            mark(node.args.vararg.annotation if node.args.vararg else None)
            mark(node.args.kwarg.annotation if node.args.kwarg else None)
        elif isinstance(node, ast.AnnAssign):
            mark(node.annotation)
        elif isinstance(node, ast.Subscript):
            mark(node.slice)
        elif isinstance(node, ast.Assign):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            if {"__all__", "__slots__"} & set(names):
                mark(node.value)
            for target in node.targets:
                mark(target)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            mark(node.target)
        elif isinstance(node, ast.withitem):
            mark(node.optional_vars)
        elif isinstance(node, ast.Call) and _name(node.func) in {"TypeVar", "cast", "NewType"}:
            mark(node)
    return skip


def _constant_name(node: ast.Assign | ast.AnnAssign) -> bool:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    names = [t.id.lstrip("_") for t in targets if isinstance(t, ast.Name)]
    return bool(names) and all(n.isupper() for n in names)


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _offsets(source: str) -> list[int]:
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line.encode()))
    return starts


def _replace(source: str, node: ast.AST, text: str) -> str:
    """``source`` with ``node``'s span replaced by ``text`` (offsets are UTF-8 byte offsets)."""
    data = source.encode()
    starts = _offsets(source)
    start = starts[node.lineno - 1] + node.col_offset  # type: ignore[attr-defined]
    end = starts[node.end_lineno - 1] + node.end_col_offset  # type: ignore[attr-defined]
    return (data[:start] + text.encode() + data[end:]).decode()


def _collection_tuples(tree: ast.Module) -> set[int]:
    """Tuples used as collections: caught exception types, ``isinstance`` classes, the right
    side of ``in``, a name's constant value. A tuple elsewhere is a record (a pair, a row)."""
    found: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ExceptHandler) and node.type is not None:
            found.append(node.type)
        elif isinstance(node, ast.Call) and _name(node.func) in {"isinstance", "issubclass"}:
            found.extend(node.args[1:2])
        elif isinstance(node, ast.Compare):
            found.extend(
                c
                for o, c in zip(node.ops, node.comparators, strict=True)
                if isinstance(o, (ast.In, ast.NotIn))
            )
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and _constant_name(node):
            found.append(node.value)  # type: ignore[arg-type]
    return {id(n) for n in found if isinstance(n, ast.Tuple)}


def _literal_drops(node: ast.AST, tuples: set[int]) -> Iterator[tuple[ast.expr, str]]:
    if not isinstance(node, (ast.List, ast.Tuple, ast.Set)) or not node.elts:
        return
    if isinstance(node, ast.Tuple) and id(node) not in tuples:
        return
    if all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
        return
    if any(isinstance(e, ast.Starred) for e in node.elts):
        return
    for i, element in enumerate(node.elts):
        rest = [e for j, e in enumerate(node.elts) if j != i]
        if isinstance(node, ast.Set):
            new: ast.expr = ast.Set(rest) if rest else ast.parse("set()", mode="eval").body
        elif isinstance(node, ast.List):
            new = ast.List(rest, ast.Load())
        else:
            new = ast.Tuple(rest, ast.Load())
        yield new, f"left out {ast.unparse(element)!s:.60}"


def _operand_drops(node: ast.AST) -> Iterator[tuple[ast.expr, str]]:
    if isinstance(node, ast.BoolOp):
        word = "or" if isinstance(node.op, ast.Or) else "and"
        for i, value in enumerate(node.values):
            rest = [v for j, v in enumerate(node.values) if j != i]
            new = rest[0] if len(rest) == 1 else ast.BoolOp(node.op, rest)
            part = f"{ast.unparse(value)!s:.60}"
            yield new, f"left out `{part} {word}`" if i == 0 else f"left out `{word} {part}`"
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        yield node.left, f"left out `| {ast.unparse(node.right)!s:.60}`"
        yield node.right, f"left out `{ast.unparse(node.left)!s:.60} |`"


def _failure_calls(tree: ast.Module) -> Iterator[ast.stmt]:
    for node in ast.walk(tree):
        bodies: list[list[ast.stmt]] = []
        if isinstance(node, ast.ExceptHandler):
            bodies.append(node.body)
        elif isinstance(node, (ast.Try, ast.TryStar)):
            bodies.append(node.finalbody)
        for body in bodies:
            for statement in body:
                value = statement.value if isinstance(statement, ast.Expr) else None
                if isinstance(value, ast.Await):
                    value = value.value
                if isinstance(value, ast.Call):
                    yield statement


def mutants(source: str, module: str) -> list[Mutant]:
    """Every custom mutant of ``source`` (the module ``module``, dotted), in a stable order."""
    tree = ast.parse(source)
    skip = _skipped(tree)
    tuples = _collection_tuples(tree)
    docstrings = {
        id(n.body[0].value)
        for n in ast.walk(tree)
        if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and n.body
        and isinstance(n.body[0], ast.Expr)
        and isinstance(n.body[0].value, ast.Constant)
    }
    found: list[tuple[str, ast.AST, str, str]] = []
    nodes = sorted(
        (n for n in ast.walk(tree) if hasattr(n, "lineno")),
        key=lambda n: (n.lineno, n.col_offset, -n.end_lineno, -n.end_col_offset),  # type: ignore[attr-defined]
    )
    for node in nodes:
        if id(node) in skip or id(node) in docstrings:
            continue
        for new, what in _literal_drops(node, tuples):
            found.append(("drop_element", node, f"({ast.unparse(new)})", what))
        for new, what in _operand_drops(node):
            found.append(("drop_operand", node, f"({ast.unparse(new)})", what))
    for statement in _failure_calls(tree):
        call = ast.unparse(statement)
        found.append(("skip_failure_call", statement, "pass", f"skipped `{call:.60}`"))
    found.sort(key=lambda f: (OPERATORS.index(f[0]), f[1].lineno, f[1].col_offset))  # type: ignore[attr-defined]
    out: list[Mutant] = []
    counts: dict[str, int] = {}
    for operator, node, text, what in found:
        counts[operator] = counts.get(operator, 0) + 1
        changed = _replace(source, node, text)
        try:
            compile(changed, module, "exec")
        except SyntaxError:
            continue  # e.g. an emptied tuple where Python needs one
        line = node.lineno
        name = f"{module}.custom__{operator}__{counts[operator]}"
        out.append(Mutant(name, line, f"line {line}: {what}", changed))
    return out
