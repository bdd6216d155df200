"""Docstrings (Google, NumPy, reST, epydoc) -> description, per-parameter text, returns text.

``docstring_parser.parse`` runs the four styles' parsers and keeps the result with the most
sections (the first, reST, on a tie): about 130 µs a docstring, more than the rest of defining a
tool. Where no line could start a reST (``:``), epydoc (``@``) or NumPy (``----`` underline,
``..`` directive) section, those three find none, so the result is the Google one, or the reST
one when Google finds nothing either. That case, nearly every tool docstring, is computed here
with the library's own Google section rules (its titles, patterns and steps) but without the
objects and matches tools never read. Anything the Google parser would reject goes to the
library, and tests compare both on thousands of real docstrings.
"""

from __future__ import annotations

import functools
import inspect
import re
from typing import Any, NamedTuple

__all__ = ["Doc", "parse_text", "parse_with_library"]


class Doc(NamedTuple):
    """What a docstring says about a tool."""

    description: str
    params: dict[str, str]
    """Per-parameter text, whitespace collapsed (``*args`` named ``args``)."""
    returns: str | None


class _Parsed:
    """The parts of ``docstring_parser.Docstring`` a :class:`Doc` is made from: ``params`` holds
    ``(arg_name, description)`` per parameter entry, ``returns`` the description of the first
    returns (or yields) entry. (A plain class: defining a dataclass costs a millisecond at
    import.)"""

    __slots__ = (
        "blank_after_short_description",
        "has_returns",
        "long_description",
        "params",
        "returns",
        "short_description",
    )

    def __init__(
        self,
        *,
        short_description: str | None = None,
        long_description: str | None = None,
        blank_after_short_description: bool = False,
        params: list[tuple[str, str | None]] | None = None,
        returns: str | None = None,
        has_returns: bool = False,
    ) -> None:
        self.short_description = short_description
        self.long_description = long_description
        self.blank_after_short_description = blank_after_short_description
        self.params = params
        self.returns = returns
        self.has_returns = has_returns


class _NotGoogle(Exception):
    """The Google parser would raise ``ParseError``: let the library decide."""


@functools.lru_cache(maxsize=1024)
def parse_text(raw: str) -> Doc:
    """The :class:`Doc` of a docstring (as :func:`inspect.getdoc` returns it), kept: methods
    shared by tool classes, and tools defined again, repeat the same text."""
    text = inspect.cleandoc(raw)
    if _OTHER_STYLES.search(text) is None:
        try:
            parsed = _google(text)
        except _NotGoogle:
            return parse_with_library(raw)
        if parsed is not None:
            return _doc(parsed)
        return _doc(_described(text, _Parsed()))  # no sections: the reST reading
    return parse_with_library(raw)


def parse_with_library(raw: str) -> Doc:
    """The :class:`Doc` of ``docstring_parser.parse(raw)``."""
    import docstring_parser

    lib = docstring_parser.parse(raw)
    returns = lib.returns
    return _doc(
        _Parsed(
            short_description=lib.short_description,
            long_description=lib.long_description,
            blank_after_short_description=lib.blank_after_short_description,
            params=[(p.arg_name, p.description) for p in lib.params],
            returns=returns.description if returns is not None else None,
            has_returns=returns is not None,
        )
    )


def _doc(parsed: _Parsed) -> Doc:
    short, long = parsed.short_description, parsed.long_description
    if short and long and not parsed.blank_after_short_description:
        # a summary wrapped over several lines: the parser keeps only its first line as "short"
        first, _, rest = long.partition("\n\n")
        short, long = f"{short} {' '.join(first.split())}", rest or None
    parts = [p for p in (short, long) if p]
    params = {
        name.lstrip("*"): " ".join(text.split()) for name, text in parsed.params or () if text
    }
    returns = " ".join(parsed.returns.split()) if parsed.has_returns and parsed.returns else None
    return Doc("\n\n".join(parts).strip(), params, returns)


_OTHER_STYLES = re.compile(r"^(?:[:@]|\.\.|-+\s*$)", re.MULTILINE)
"""Where a reST, epydoc or NumPy section could start (a superset of what those parsers match)."""


class _Rules(NamedTuple):
    """The library's Google-style rules."""

    titles: Any
    sections: dict[str, Any]
    multiple: Any
    typed_arg: Any
    param_keys: frozenset[str]
    returns_keys: frozenset[str]
    singular: Any
    singular_or_multiple: Any


@functools.cache
def _rules() -> _Rules:
    from docstring_parser import common, google

    parser = google.GoogleParser()
    return _Rules(
        titles=parser.titles_re,
        sections=parser.sections,
        multiple=google.MULTIPLE_PATTERN,
        typed_arg=google.GOOGLE_TYPED_ARG_REGEX,
        param_keys=frozenset(common.PARAM_KEYWORDS),
        returns_keys=frozenset(common.RETURNS_KEYWORDS | common.YIELDS_KEYWORDS),
        singular=google.SectionType.SINGULAR,
        singular_or_multiple=google.SectionType.SINGULAR_OR_MULTIPLE,
    )


def _described(desc_chunk: str, parsed: _Parsed) -> _Parsed:
    """Short and long description, split as every style of the library splits them."""
    parts = desc_chunk.split("\n", 1)
    parsed.short_description = parts[0] or None
    if len(parts) > 1:
        long_chunk = parts[1] or ""
        parsed.blank_after_short_description = long_chunk.startswith("\n")
        parsed.long_description = long_chunk.strip() or None
    return parsed


def _google(text: str) -> _Parsed | None:
    """``GoogleParser().parse`` of an already cleaned docstring, ``None`` when it finds no
    section entries; raises :class:`_NotGoogle` where it raises ``ParseError``."""
    rules = _rules()
    titles_re = rules.titles
    match = titles_re.search(text)
    if match is None:
        return None
    parsed = _described(text[: match.start()], _Parsed(params=[]))
    meta_chunk = text[match.start() :]
    matches = list(titles_re.finditer(meta_chunk))
    chunks: dict[str, str] = {}
    for j, found in enumerate(matches):
        end = matches[j + 1].start() if j + 1 < len(matches) else len(meta_chunk)
        details = meta_chunk[found.end() : end]
        unknown = re.search(r"\n\S", details)
        if unknown is not None:
            details = details[: unknown.start()]
        chunks[found.group(1)] = details.strip("\n")
    entries = 0
    for title, chunk in chunks.items():
        entries += _section(parsed, rules.sections[title], chunk)
    return parsed if entries else None


def _section(parsed: _Parsed, section: Any, chunk: str) -> int:
    """Read one section's entries into ``parsed``; the number of entries."""
    rules = _rules()
    if section.type is rules.singular or section.type is rules.singular_or_multiple:
        _entry(parsed, section, inspect.cleandoc(chunk))
        return 1
    indent = re.search(r"^\s*", chunk).group()  # type: ignore[union-attr]  # always matches
    starts = list(re.finditer("^" + indent + r"(?=\S)", chunk, flags=re.M))
    if not starts:
        raise _NotGoogle
    for j, found in enumerate(starts):
        end = starts[j + 1].start() if j + 1 < len(starts) else len(chunk)
        _entry(parsed, section, chunk[found.end() : end].strip("\n"))
    return len(starts)


def _entry(parsed: _Parsed, section: Any, text: str) -> None:
    """One entry, read as ``GoogleParser._build_meta`` reads it (only what tools use is kept)."""
    rules = _rules()
    key = section.key
    if section.type is rules.singular or (
        section.type is rules.singular_or_multiple and not rules.multiple.match(text)
    ):
        if key in rules.param_keys:  # pragma: no cover - parameter sections are never singular
            raise _NotGoogle
        if key in rules.returns_keys:
            _returned(parsed, text)
        return
    if ":" not in text:
        raise _NotGoogle
    before, desc = text.split(":", 1)
    if before and "\n" in before:
        first_line, rest = before.split("\n", 1)
        before = first_line + inspect.cleandoc(rest)
    if desc:
        desc = desc[1:] if desc[0] == " " else desc
        if "\n" in desc:
            first_line, rest = desc.split("\n", 1)
            desc = first_line + "\n" + inspect.cleandoc(rest)
        desc = desc.strip("\n")
    if key in rules.param_keys:
        typed = rules.typed_arg.match(before)
        assert parsed.params is not None
        parsed.params.append((typed.group(1) if typed else before, desc))
    elif key in rules.returns_keys:
        _returned(parsed, desc)


def _returned(parsed: _Parsed, description: str) -> None:
    if not parsed.has_returns:  # the first returns (or yields) entry is the one kept
        parsed.returns, parsed.has_returns = description, True
