"""Regular expressions for ``search`` and ``search_and_replace``, run by RE2 (``google-re2``):
matching time grows linearly with the text whatever the pattern, so ``(a+)+$`` over
``"aaaa…!"`` answers in microseconds where Python's ``re`` backtracks for hours.

RE2 has no backreferences, lookaround, atomic groups, possessive quantifiers or conditionals
(they are what makes backtracking necessary): such a pattern is refused with an error naming
the feature. Patterns are matched on UTF-8 bytes (no decoding of files without a match, and
no position mapping). A replacement template (``\\1``, ``\\g<name>``) is parsed by Python's
own ``re`` once, into literal parts and group numbers, so the size of every replacement is
known before it is built.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

import re2

from toolrig.core.model._errors import ErrorCode, ToolError

__all__ = ["Query", "Template", "compile_query"]

_FEATURES: Final = (
    (re.compile(r"invalid escape sequence: \\[1-9]"), "backreferences such as \\1"),
    (re.compile(r"\(\?P(=|>|$)"), "named backreferences such as (?P=name)"),
    (re.compile(r"\(\?<?[=!]"), "lookaround such as (?=...), (?!...), (?<=...) or (?<!...)"),
    (re.compile(r"\(\?>"), "atomic groups (?>...)"),
    (re.compile(r"\(\?\("), "conditionals (?(1)...)"),
    (re.compile(r"repetition operator: [*+?]\+"), "possessive quantifiers such as a++"),
    (re.compile(r"invalid repetition size"), "counted repetition over {1000}"),
    (re.compile(r"invalid escape sequence: \\Z"), "\\Z (use \\z or $)"),
    (re.compile(r"invalid escape sequence: \\[uU]"), "\\u escapes (use \\x{00e9})"),
    (re.compile(r"pattern too large"), "patterns this large"),
)
_HINT: Final = (
    "Patterns run on RE2, which matches in linear time and so has no backreferences or "
    "lookaround: rewrite the pattern without them (match a wider text and check the results), "
    "or pass literal=true to search for the text as it is."
)
_SENTINEL: Final = 0xF0000
"""Group markers for parsing templates: characters of the private-use plane 15."""


def _options() -> re2.Options:
    options = re2.Options()
    options.log_errors = False  # the error goes to the model, not to stderr
    return options


_OPTIONS: Final = _options()


class Span(Protocol):
    """What a match of either engine answers."""

    def span(self, group: int = 0) -> tuple[int, int]: ...
    def start(self, group: int = 0) -> int: ...


class Matcher(Protocol):
    """What a compiled query of either engine answers."""

    @property
    def groups(self) -> int: ...
    @property
    def groupindex(self) -> Mapping[Any, int]: ...
    def finditer(self, text: bytes) -> Iterator[Span]: ...


@dataclass(frozen=True, slots=True)
class Query:
    """A compiled query: ``regex`` runs on the UTF-8 bytes of a text. A case-sensitive
    literal runs on Python's ``re`` (a literal cannot backtrack, and ``re`` answers each match
    in a fraction of RE2's per-match cost through its Python binding); all else on RE2."""

    regex: Matcher
    pattern: str
    needle: bytes | None = None
    """The UTF-8 text a literal, case-sensitive query looks for."""


def compile_query(pattern: str, *, literal: bool, ignore_case: bool) -> Query:
    """The query compiled for RE2 (``^``/``$`` match at line ends); a pattern RE2 cannot run
    becomes an ``invalid_arguments`` error naming the feature."""
    body = re2.escape(pattern) if literal else pattern
    flags = "(?mi)" if ignore_case else "(?m)"
    try:
        if literal and not ignore_case:
            needle = pattern.encode("utf-8")
            return Query(re.compile(re.escape(needle)), pattern, needle)
        return Query(re2.compile((flags + body).encode("utf-8"), _OPTIONS), pattern)
    except re2.error as exc:
        reason = str(exc.args[0] if exc.args else exc)
        if isinstance(exc.args[0] if exc.args else None, bytes):
            reason = exc.args[0].decode("utf-8", "replace")
        for rx, feature in _FEATURES:
            if rx.search(reason):
                raise ToolError(
                    f"the regular expression {pattern!r} uses {feature}, which this tool does "
                    "not support",
                    code=ErrorCode.INVALID_ARGUMENTS,
                    hint=_HINT,
                ) from None
        raise ToolError(
            f"invalid regular expression {pattern!r}: {reason}",
            code=ErrorCode.INVALID_ARGUMENTS,
            hint="Fix the expression (RE2 syntax, close to Python's) or pass literal=true to "
            "search for the text as it is.",
        ) from None


@dataclass(frozen=True, slots=True)
class Template:
    """A replacement: literal UTF-8 parts (``bytes``) and group numbers (``int``), in order."""

    parts: tuple[bytes | int, ...]
    literal_size: int = field(init=False)
    """Bytes of the literal parts."""
    uses: tuple[tuple[int, int], ...] = field(init=False)
    """Each group the template names, and how many times."""

    def __post_init__(self) -> None:
        size = sum(len(p) for p in self.parts if isinstance(p, bytes))
        object.__setattr__(self, "literal_size", size)
        uses = Counter(p for p in self.parts if isinstance(p, int))
        object.__setattr__(self, "uses", tuple(uses.items()))

    @property
    def fixed(self) -> bytes | None:
        """The replacement when it refers to no group."""
        return (
            self.parts[0]
            if len(self.parts) == 1 and isinstance(self.parts[0], bytes)
            else (b"" if not self.parts else None)
        )

    @classmethod
    def literal(cls, text: str) -> Template:
        return cls((text.encode("utf-8"),))

    @classmethod
    def parse(cls, template: str, query: Query) -> Template:
        """Parse ``template`` as Python's ``re.sub`` does (``\\1``, ``\\g<name>``, ``\\n``),
        against the groups of ``query``; a bad template is an ``invalid_arguments`` error."""
        groups = query.regex.groups
        if any(ord(ch) >= _SENTINEL for ch in template):
            raise _bad_template(template, "it holds characters of the private-use planes")
        names = {
            index: name if isinstance(name, str) else name.decode()
            for name, index in query.regex.groupindex.items()
        }
        marks = [chr(_SENTINEL + i) for i in range(groups + 1)]
        fake = re.escape(marks[0]) + "".join(
            f"(?P<{names[i]}>{re.escape(marks[i])})" if i in names else f"({marks[i]})"
            for i in range(1, groups + 1)
        )
        try:
            expanded = re.compile(fake).sub(template, "".join(marks))
        except (re.error, IndexError) as exc:
            raise _bad_template(template, str(exc)) from None
        parts: list[bytes | int] = []
        text: list[str] = []
        i = 0
        while i < len(expanded):
            code = ord(expanded[i]) - _SENTINEL
            if code < 0:
                text.append(expanded[i])
                i += 1
                continue
            if text:
                parts.append("".join(text).encode("utf-8"))
                text = []
            parts.append(code)
            i += groups + 1 if code == 0 else 1  # group 0 is every mark in a row
        if text:
            parts.append("".join(text).encode("utf-8"))
        return cls(tuple(parts))

    def spans(self, match: Span) -> dict[int, tuple[int, int]]:
        """Where each group this template uses is in ``match`` (read once per match)."""
        return {group: match.span(group) for group, _ in self.uses}

    def size(self, spans: dict[int, tuple[int, int]]) -> int:
        """Bytes this template gives for a match with these ``spans``, without building them."""
        total = self.literal_size
        for group, times in self.uses:
            start, end = spans[group]
            total += times * max(end - start, 0)
        return total

    def expand_into(
        self, out: bytearray, spans: dict[int, tuple[int, int]], data: memoryview
    ) -> None:
        """Append the replacement of a match with these ``spans`` (in ``data``) to ``out``."""
        for part in self.parts:
            if isinstance(part, bytes):
                out += part
            else:
                start, end = spans[part]
                if start >= 0:
                    out += data[start:end]


def _bad_template(template: str, reason: str) -> ToolError:
    return ToolError(
        f"invalid replacement {template!r}: {reason}",
        code=ErrorCode.INVALID_ARGUMENTS,
        hint="Refer to groups as \\1 or \\g<name>; escape a literal backslash as \\\\.",
    )
