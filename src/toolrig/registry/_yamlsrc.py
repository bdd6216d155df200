"""YAML text -> plain Python data, keeping the node tree so errors can name the line.

Parsing uses libyaml when available. Values are built by a small constructor of our own
(faster than PyYAML's, and stricter: duplicate keys and non-string keys are errors). Dates and
times stay as the text written, because definitions describe JSON data.

Aliases (``*name``) are refused: each one copies a whole subtree, so a 1.2 KB file of nested
aliases ("billion laughs") expanded for ever, and a self-referencing one recursed until
``RecursionError``. A definition can always write the value out. Nesting is bounded too
(`MAX_DEPTH` levels), so building a value never exhausts the stack.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

__all__ = ["MAX_DEPTH", "YamlDocument", "YamlSyntaxError", "locate", "parse_yaml"]

MAX_DEPTH = 64
"""Levels of nested lists and mappings a definition may use (the deepest real ones use ~10)."""

_TAG = "tag:yaml.org,2002:"
_STR = _TAG + "str"
_PLAIN = "?plain"
"""Placeholder tag of untagged plain scalars, typed in `_scalar`."""
_TRUE = frozenset({"true", "yes", "on"})
_COLLECTIONS = frozenset({_TAG + "seq", _TAG + "map"})
_IMPLICIT = yaml.resolver.Resolver.yaml_implicit_resolvers
_FALLBACK = yaml.SafeLoader("")


class _Typing(yaml.resolver.BaseResolver):
    """Tags every scalar as text; plain scalars are typed later, in `_scalar` (much
    cheaper than PyYAML's resolver, which runs Python code for every scalar)."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        if kind is ScalarNode:
            return _PLAIN if implicit[0] else _STR
        return _TAG + ("seq" if kind is SequenceNode else "map")

    # The composer reports every step down and up the tree for path resolvers, which this
    # loader never has; C built-ins that ignore their arguments make those calls nearly free
    # (about a tenth of the parse time of a definition).
    descend_resolver = operator.is_  # type: ignore[assignment]  # called with (parent, index)
    ascend_resolver = tuple  # type: ignore[assignment]  # called with no argument


_CParser: Any
try:
    import yaml.cyaml

    _CParser = getattr(yaml.cyaml, "CParser", None)
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    _CParser = None

if _CParser is not None:

    class _Loader(_CParser, _Typing):  # type: ignore[misc]  # libyaml parses and composes
        def __init__(self, stream: str) -> None:
            _CParser.__init__(self, stream)
            _Typing.__init__(self)

else:  # pragma: no cover - PyYAML without libyaml

    class _Loader(  # type: ignore[no-redef]
        yaml.reader.Reader,
        yaml.scanner.Scanner,
        yaml.parser.Parser,
        yaml.composer.Composer,
        _Typing,
    ):
        def __init__(self, stream: str) -> None:
            yaml.reader.Reader.__init__(self, stream)
            yaml.scanner.Scanner.__init__(self)
            yaml.parser.Parser.__init__(self)
            yaml.composer.Composer.__init__(self)
            _Typing.__init__(self)


_EventLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""Reads the parser's events for `_refuse_aliases` (libyaml when available)."""


class YamlSyntaxError(ValueError):
    """The text is not valid YAML, or uses a construct definitions do not allow."""

    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


@dataclass(frozen=True, slots=True)
class YamlDocument:
    """The data of one YAML document and the node tree it came from."""

    data: Any
    node: Node | None


def parse_yaml(text: str) -> YamlDocument:
    """Parse one YAML document; raises `YamlSyntaxError` with its line."""
    try:
        if "*" in text:  # no alias can be written without one: most files skip the scan
            _refuse_aliases(text)
        loader = _Loader(text)
        try:
            node = loader.get_single_node()
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or "invalid YAML"
        if exc.context:
            problem = f"{exc.context}: {problem}"
        raise YamlSyntaxError(problem, mark.line + 1 if mark else None) from None
    except yaml.YAMLError as exc:
        raise YamlSyntaxError(f"invalid YAML: {exc}", None) from None
    if node is None:
        return YamlDocument(None, None)
    return YamlDocument(_build(node, MAX_DEPTH), node)


def _refuse_aliases(text: str) -> None:
    """Raise `YamlSyntaxError` at the first alias of ``text``, before anything is
    composed (the parser's events are read one at a time: no subtree is ever copied)."""
    for event in yaml.parse(text, Loader=_EventLoader):
        if isinstance(event, yaml.AliasEvent):
            raise YamlSyntaxError(
                f"YAML aliases are not allowed in tool definitions (found *{event.anchor}): "
                "write the value out in full",
                event.start_mark.line + 1 if event.start_mark else None,
            )


def _build(node: Node, room: int) -> Any:
    """The value of ``node``; ``room``: how many more levels of nesting are allowed."""
    kind = type(node)
    if kind is ScalarNode:
        if node.tag != _PLAIN:
            return _scalar(node)  # type: ignore[arg-type]
        value = node.value
        if value[:1] not in _IMPLICIT:
            return value  # plain text: the common case, decided without a regex
        typed = _typed_plain.get(value, _UNSEEN)
        if typed is _UNSEEN:  # `true`, `string`, `0.5`...: definitions repeat a few values
            typed = _scalar(node)  # type: ignore[arg-type]
            if len(_typed_plain) < _TYPED_PLAIN_MAX:
                _typed_plain[value] = typed
        return typed
    room -= 1
    if room < 0:
        raise YamlSyntaxError(
            f"nested deeper than {MAX_DEPTH} levels of lists and mappings",
            node.start_mark.line + 1,
        )
    if node.tag not in _COLLECTIONS:  # `!!python/tuple [..]`, `!thing {..}`
        raise YamlSyntaxError(f"unsupported YAML tag {node.tag!r}", node.start_mark.line + 1)
    if kind is SequenceNode:
        return [_build(item, room) for item in node.value]
    if kind is MappingNode:
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            # Plain keys stay text (`on:` is the key "on", not true); other keys are built.
            key = key_node.value if key_node.tag == _PLAIN else _build(key_node, room)
            if not isinstance(key, str) or key in out:  # a list key cannot be looked up
                problem = (
                    f"keys must be text, got {key!r}"
                    if not isinstance(key, str)
                    else f"key {key!r} appears twice"
                )
                raise YamlSyntaxError(problem, key_node.start_mark.line + 1)
            out[key] = _build(value_node, room)
        return out
    raise YamlSyntaxError("unsupported YAML node", node.start_mark.line + 1)


_UNSEEN: Any = object()
_TYPED_PLAIN_MAX = 4096
_typed_plain: dict[str, Any] = {}
"""Plain scalars already typed (only immutable results: text, numbers, booleans, null)."""


def _scalar(node: ScalarNode) -> Any:
    tag, value = node.tag, node.value
    if tag == _PLAIN:  # apply YAML 1.1 implicit types
        tag = _STR
        for implicit, regexp in _IMPLICIT.get(value[:1], ()):
            if regexp.match(value):
                tag = implicit
                break
    if not tag.startswith(_TAG):
        raise YamlSyntaxError(f"unsupported YAML tag {tag!r}", node.start_mark.line + 1)
    kind = tag[len(_TAG) :]
    if kind == "str" or kind == "timestamp":
        return value
    if kind == "int":
        digits = value.lstrip("+-")
        if digits.isdigit() and (digits == "0" or digits[0] != "0"):
            return int(value)
        return _FALLBACK.construct_yaml_int(node)  # 0x.., 0o.., 1_000, 1:30
    if kind == "float":
        if "_" not in value and ":" not in value and "." not in value[:2]:  # not .inf, -.5
            return float(value)
        return _FALLBACK.construct_yaml_float(node)
    if kind == "bool":
        return value.lower() in _TRUE
    if kind == "null":
        return None
    raise YamlSyntaxError(f"unsupported YAML value of type {kind!r}", node.start_mark.line + 1)


def locate(node: Node | None, loc: Sequence[str | int]) -> tuple[int | None, int]:
    """The 1-based line of the deepest part of ``loc`` present in ``node``, and how many parts
    of ``loc`` were found (an unknown key is found; a missing field points at its parent)."""
    if node is None:
        return None, 0
    line = node.start_mark.line + 1
    found = 0
    current: Node = node
    for part in loc:
        if isinstance(current, MappingNode) and isinstance(part, str):
            for key_node, value_node in current.value:
                if isinstance(key_node, ScalarNode) and key_node.value == part:
                    line = key_node.start_mark.line + 1
                    current = value_node
                    break
            else:
                return line, found
        elif isinstance(current, SequenceNode) and isinstance(part, int):
            if not 0 <= part < len(current.value):
                return line, found
            current = current.value[part]
            line = current.start_mark.line + 1
        else:
            return line, found
        found += 1
    return line, found
