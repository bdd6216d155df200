"""The edges of the YAML reader of tool definitions (``registry._yamlsrc``): each implicit type
of a plain scalar and each explicit tag, the refusals with their words and lines, and where
`locate` points for each kind of path.

| promise | boundary | test |
|---|---|---|
| integers | decimal fast path; signs, leading zeros, hex, ``_``, ``1:30`` | ``test_integers`` |
| floats | plain fast path; ``_``, ``:``, a leading dot, inf and nan | ``test_floats`` |
| others | each true and false word, each null, dates stay text, ``!!str`` | ``test_other_...`` |
| refusals | an unknown tag, an unsupported type, an alias: words and line | ``test_refusals`` |
| syntax | the problem, its context, its line | ``test_syntax_...`` |
| locate | keys, indexes, past the end, a missing key, a part of the wrong kind | ``test_locate`` |
| the typed-value cache | full at exactly its bound, never one past it | ``test_the_cache_...`` |
"""

from __future__ import annotations

import math

import pytest

from toolrig.registry._yamlsrc import MAX_DEPTH, YamlSyntaxError, locate, parse_yaml


def value(text: str) -> object:
    return parse_yaml(f"v: {text}\n").data["v"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0", 0),
        ("12", 12),
        ("-12", -12),
        ("+7", 7),
        ("007", 7),  # YAML 1.1: a leading zero is octal
        ("010", 8),
        ("0x1f", 31),
        ("1_000", 1000),
        ("1:30", 90),
        ("!!int 12", 12),
        ("!!int 010", 8),
        ("!!int -0", 0),
    ],
)
def test_integers(text: str, expected: int) -> None:
    got = value(text)
    assert got == expected and type(got) is int


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0.5", 0.5),
        ("-1.5", -1.5),
        ("1.0e+3", 1000.0),
        ("1_000.5", 1000.5),
        ("1__000.5", 1000.5),  # YAML allows what Python's float() refuses
        ("1:30.5", 90.5),
        (".5", 0.5),
        (".inf", math.inf),
        ("-.inf", -math.inf),
        ("!!float 2.25", 2.25),
        ("!!float .5", 0.5),
    ],
)
def test_floats(text: str, expected: float) -> None:
    got = value(text)
    assert got == expected and type(got) is float
    assert math.isnan(value(".nan"))  # type: ignore[arg-type]


def test_other_types() -> None:
    for word in ("true", "True", "yes", "Yes", "on", "ON", "!!bool yes", "!!bool on"):
        assert value(word) is True, word
    for word in ("false", "no", "off", "Off", "!!bool no", "!!bool false"):
        assert value(word) is False, word
    for word in ("~", "null", "Null", "", "!!null ''"):
        assert value(word) is None, word
    assert value("2024-01-31") == "2024-01-31"
    assert value("!!timestamp 2024-01-31") == "2024-01-31"
    assert value("!!str 12") == "12"
    assert value("'12'") == "12"
    assert value("plain words") == "plain words"
    assert parse_yaml("").data is None and parse_yaml("").node is None


def test_refusals() -> None:
    cases = {
        "a: 1\nb: !thing x\n": ("unsupported YAML tag '!thing'", 2),
        "a: 1\n\nb: !!binary aGk=\n": ("unsupported YAML value of type 'binary'", 3),
        "a: &x 1\nb: *x\n": (
            "YAML aliases are not allowed in tool definitions (found *x): write the value "
            "out in full",
            2,
        ),
        "a: 1\na: 2\n": ("key 'a' appears twice", 2),
        "a: 1\n? [1]\n: 2\n": ("keys must be text, got [1]", 2),
    }
    for text, (message, line) in cases.items():
        with pytest.raises(YamlSyntaxError) as raised:
            parse_yaml(text)
        assert (raised.value.message, raised.value.line, str(raised.value)) == (
            message,
            line,
            message,
        ), text
    assert value("'a * b'") == "a * b"  # a star that is no alias


def test_syntax_errors_name_the_problem_its_context_and_line() -> None:
    with pytest.raises(YamlSyntaxError) as raised:
        parse_yaml("a: 1\nb: [1, 2\nc: 3\n")
    assert raised.value.line is not None and raised.value.line >= 2
    assert raised.value.message.startswith("while parsing a flow sequence: ")
    with pytest.raises(YamlSyntaxError) as unclosed:
        parse_yaml("a: 'open\n")
    assert unclosed.value.line == 2
    assert unclosed.value.message == (
        "while scanning a quoted scalar: found unexpected end of stream"
    )


def test_locate() -> None:
    document = parse_yaml("tools:\n  - name: a\n    x: 1\n  - name: b\n    params:\n      k: 2\n")
    node = document.node
    assert locate(None, ["tools"]) == (None, 0)
    assert locate(node, []) == (1, 0)
    assert locate(node, ["tools"]) == (1, 1)
    assert locate(node, ["tools", 0]) == (2, 2)
    assert locate(node, ["tools", 1, "params", "k"]) == (6, 4)
    assert locate(node, ["tools", 0, "x"]) == (3, 3)
    assert locate(node, ["tools", 2, "name"]) == (1, 1)  # past the end: the list's line
    assert locate(node, ["tools", -1]) == (1, 1)
    assert locate(node, ["tools", 1, "missing"]) == (4, 2)
    assert locate(node, ["tools", "0"]) == (1, 1)  # a key where a list is
    assert locate(node, [0]) == (1, 0)  # an index where a mapping is


def test_nesting_is_allowed_to_exactly_the_limit() -> None:
    deepest = "v: " + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1) + "\n"
    data: object = parse_yaml(deepest).data
    for _ in range(MAX_DEPTH - 1):
        assert isinstance(data, (dict, list)) and len(data) == 1
        data = data["v"] if isinstance(data, dict) else data[0]
    assert data == []
    lines = "\n" * 3 + "v:\n" + "".join(f"{'  ' * i}- \n" for i in range(MAX_DEPTH))
    with pytest.raises(YamlSyntaxError) as raised:
        parse_yaml(lines.replace("- \n", "-\n"))
    assert raised.value.message == f"nested deeper than {MAX_DEPTH} levels of lists and mappings"
    assert raised.value.line == 4 + MAX_DEPTH


def test_an_unreadable_character_is_invalid_yaml_without_a_line() -> None:
    with pytest.raises(YamlSyntaxError) as raised:
        parse_yaml("a: \x07\n")
    assert raised.value.line is None
    assert raised.value.message.startswith(
        "invalid YAML: unacceptable character #x0007: control characters are not allowed"
    )
    with pytest.raises(YamlSyntaxError) as two:
        parse_yaml("a: 1\n---\nb: 2\n")
    assert (two.value.message, two.value.line) == (
        "expected a single document in the stream: but found another document",
        2,
    )


def test_the_cache_of_typed_values_stays_within_its_bound() -> None:
    """Typed plain scalars are remembered, up to ``_TYPED_PLAIN_MAX`` of them and never one
    more, however many distinct ones a long-lived process reads; past it values are still
    typed, just not kept."""
    from toolrig.registry import _yamlsrc

    limit = _yamlsrc._TYPED_PLAIN_MAX
    numbers = [f"{n}" for n in range(10**6, 10**6 + limit + 50)]
    parsed = parse_yaml("[" + ", ".join(numbers) + "]").data
    assert parsed[-1] == 10**6 + limit + 49 and type(parsed[-1]) is int
    assert len(_yamlsrc._typed_plain) == limit
    assert value("1000001") == 1000001  # a remembered one reads the same
