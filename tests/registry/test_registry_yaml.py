"""The YAML reader: YAML 1.1 typing of plain values, strictness, and lines for errors."""

from __future__ import annotations

import pytest

from toolrig.registry._yamlsrc import YamlSyntaxError, locate, parse_yaml

TEXT = """\
name: t
flag: true
quoted: 'true'
on: yes
off_value: off
ratio: 0.5
count: 12
octal: 010
big: 1_000
nothing: ~
when: 2026-11-26
list: [true, '0.5', 0.5, null]
"""


@pytest.mark.parametrize("round_", [1, 2])  # the second parse serves typed values from memory
def test_plain_values_are_typed_and_quoted_ones_stay_text(round_: int) -> None:
    data = parse_yaml(TEXT).data
    assert data == {
        "name": "t",
        "flag": True,
        "quoted": "true",
        "on": True,  # a plain key stays text; its value is typed
        "off_value": False,
        "ratio": 0.5,
        "count": 12,
        "octal": 8,
        "big": 1000,
        "nothing": None,
        "when": "2026-11-26",  # dates stay as written
        "list": [True, "0.5", 0.5, None],
    }
    assert type(data["count"]) is int and type(data["flag"]) is bool


BOOLEANS = [
    *(w.lower() for w in ("TRUE", "YES", "ON", "FALSE", "NO", "OFF")),
    *(w.title() for w in ("true", "yes", "on", "false", "no", "off")),
    *("TRUE", "YES", "ON", "FALSE", "NO", "OFF"),
    *("y", "n", "tRUE", "oN", "nO"),  # not booleans in YAML 1.1: text
]


@pytest.mark.parametrize("spelling", BOOLEANS)
def test_every_spelling_of_a_boolean_is_read_as_pyyaml_reads_it(spelling: str) -> None:
    """Each list entry: every YAML 1.1 spelling of true and false, as PyYAML's own safe loader
    types it (the reference), as a value and inside a list."""
    import yaml

    text = f"flag: {spelling}\nlist: [{spelling}, x]\n"
    expected = yaml.safe_load(text)
    for _ in range(2):  # the second parse serves typed values from memory
        data = parse_yaml(text).data
        assert data == expected and type(data["flag"]) is type(expected["flag"]), spelling


def test_duplicate_keys_and_unknown_tags_name_their_line() -> None:
    with pytest.raises(YamlSyntaxError) as dup:
        parse_yaml("a: 1\nb: 2\na: 3\n")
    assert dup.value.line == 3 and "appears twice" in dup.value.message
    with pytest.raises(YamlSyntaxError) as tag:
        parse_yaml("a: 1\nb: !!python/name:os.system x\n")
    assert tag.value.line == 2


def test_locate_points_at_the_deepest_known_part() -> None:
    doc = parse_yaml("name: t\nparameters:\n  - name: a\n    type: strin\n")
    assert locate(doc.node, ("parameters", 0, "type")) == (4, 3)
    assert locate(doc.node, ("parameters", 5)) == (2, 1)
