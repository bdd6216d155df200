"""The YAML loader's value spellings, boundary by boundary (`toolrig.registry._yamlsrc`).

The promise (docs/registry-yaml.md, the module's docstring): a plain value is typed as YAML
1.1 types it, the same as PyYAML's own safe loader (the reference here), on the loader's fast
paths (a decimal integer, a plain float, a value typed before and served from memory) and on
its slow ones alike; dates and times stay as the text written; a quoted or ``!!str`` value is
text; a plain key stays text (``on:`` is the key "on"); a tag the loader does not know, or a
key that is not text, is refused with its line; a definition reads the typed values
(``required: no`` is false).

| promise | boundary | test |
|---|---|---|
| integers | either sign, `0`, `-0`; `010`, `-010` (octal); `0x1F`, `0b101` | `..._pyyaml` |
| integers | `1_000`; `1:30` (base 60); `0o17` (text in YAML 1.1) | `..._pyyaml` |
| floats | `1.5`, `-1.5`, `1.0e+3`; `1e3` (text in 1.1); `.5`, `-.5` | `..._pyyaml` |
| floats | `1_0.5`; `1:30.5` (base 60) | `..._pyyaml` |
| special floats | `.inf`, `-.Inf`, `+.INF`, `.nan`, `.NaN`, `.NAN` | `..._floats` |
| nulls | `~`, `null`, `Null`, `NULL`, an empty value; `nULL` (text) | `..._pyyaml` |
| each path | a mapping value, a block or flow list item; parsed twice (memory) | `..._pyyaml` |
| text stays text | the spellings above single- or double-quoted, or tagged `!!str` | `..._text` |
| dates | a date; with a time; with a zone: the text written (PyYAML: a date) | `..._written` |
| explicit tags | `!!int "5"`, `!!float 1`, `!!bool yes`, `!!null ""`: typed | `..._tags` |
| unknown tags | `!custom x`; on a list (`!!python/tuple`), a mapping: refused | `..._tags` |
| keys | plain `on`, `1`, `null` stay text; a tagged `!!int 1` refused | `test_keys` |
| in a definition | `required: no`/`yes`, `nullable: on`, `0x3`, `1_5`, `~` | `..._values` |

Found by this table and fixed: ``-.Inf`` and ``+.INF`` raised ``ValueError`` (the float fast
path checked only the first character for a dot), and a tag on a list or mapping
(``!!python/tuple [1, 2]``) was ignored instead of refused.

Breaks tried (each made the named test fail, then was undone): the integer fast path without
its leading-zero check (``010`` read as 10: ``..._as_pyyaml``); the float fast path checking
only ``value[:1]`` for a dot (``test_special_floats``); ``bool`` typed as
``value.lower() == "true"`` (``on``/``yes`` false: ``..._definition_...``); plain keys built
like values (``on:`` a boolean key: ``test_keys``); no check of a collection's tag
(``test_explicit_tags``).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
import yaml

from toolrig.registry import Registry
from toolrig.registry._yamlsrc import YamlSyntaxError, parse_yaml

INTEGERS = ["0", "-0", "+5", "-5", "12", "010", "-010", "0x1F", "0b101", "1_000", "1:30", "0o17"]
FLOATS = ["1.5", "-1.5", "1.0e+3", "6.8523015e+5", "1e3", ".5", "-.5", "1_0.5", "1:30.5", "0.0"]
NULLS = ["~", "null", "Null", "NULL", "nULL", ""]
SPELLINGS = [*INTEGERS, *FLOATS, *NULLS]


def _same(got: Any, expected: Any) -> bool:
    return type(got) is type(expected) and got == expected


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_each_spelling_reads_as_pyyaml(spelling: str) -> None:
    text = f"value: {spelling}\nblock:\n  - {spelling}\nflow: [{spelling}, x]\n"
    if spelling == "":
        text = "value:\nblock:\n  -\nflow: [x]\n"
    expected = yaml.safe_load(text)
    for _ in range(2):  # the second parse serves typed values from memory
        data = parse_yaml(text).data
        assert data.keys() == expected.keys()
        for key in data:
            got, want = data[key], expected[key]
            if isinstance(want, list):
                assert len(got) == len(want) and all(map(_same, got, want)), (spelling, key)
            else:
                assert _same(got, want), (spelling, key, got, want)


@pytest.mark.parametrize("spelling", [".inf", "-.Inf", "+.INF", ".nan", ".NaN", ".NAN"])
def test_special_floats(spelling: str) -> None:
    expected = yaml.safe_load(f"v: {spelling}")["v"]
    for _ in range(2):
        got = parse_yaml(f"v: {spelling}\nl: [{spelling}]\n").data
        for value in (got["v"], got["l"][0]):
            assert type(value) is float
            assert (math.isnan(value) and math.isnan(expected)) or value == expected


@pytest.mark.parametrize("spelling", ["010", "1.5", "~", "yes", "1:30", ".inf", "0x1F"])
def test_quoted_and_tagged_text_stays_text(spelling: str) -> None:
    text = f"a: '{spelling}'\nb: \"{spelling}\"\nc: !!str {spelling}\n"
    assert parse_yaml(text).data == {"a": spelling, "b": spelling, "c": spelling}


@pytest.mark.parametrize(
    "spelling",
    ["2026-11-26", "2026-11-26 10:00:00", "2026-11-26T10:00:00Z", "2001-12-14t21:59:43.10-05:00"],
)
def test_dates_stay_as_written(spelling: str) -> None:
    assert not isinstance(yaml.safe_load(f"v: {spelling}")["v"], str)  # PyYAML: a date
    assert parse_yaml(f"v: {spelling}\nl: [{spelling}]\n").data == {"v": spelling, "l": [spelling]}


def test_explicit_tags() -> None:
    data = parse_yaml('i: !!int "5"\nf: !!float 1\nb: !!bool yes\nn: !!null ""\n').data
    assert _same(data["i"], 5) and _same(data["f"], 1.0) and data["b"] is True
    assert data["n"] is None
    for line, tag in ((2, "!!python/tuple [1, 2]"), (3, "!custom x"), (2, "!thing {a: 1}")):
        text = "".join(f"k{i}: 1\n" for i in range(line - 1)) + f"z: {tag}\n"
        with pytest.raises(YamlSyntaxError) as refused:
            parse_yaml(text)
        assert refused.value.line == line and "tag" in refused.value.message


def test_keys() -> None:
    data = parse_yaml("on: 1\n1: on\nnull: ~\nyes: no\n").data
    assert data == {"on": 1, "1": True, "null": None, "yes": False}
    assert all(type(k) is str for k in data)
    with pytest.raises(YamlSyntaxError) as refused:
        parse_yaml("a: 1\n!!int 1: x\n")
    assert refused.value.line == 2 and "keys must be text" in refused.value.message


DEFINITION = """\
name: spelled
description: Values written in YAML 1.1's other spellings.
executor: os.path:basename
max_retries: 0x3
timeout: 1_5
parameters:
  - {name: p, type: string, required: no, nullable: on, default: ~}
  - {name: q, type: integer, required: yes}
"""


def test_a_definition_reads_the_typed_values(tmp_path: Path) -> None:
    path = tmp_path / "spelled.yaml"
    path.write_text(DEFINITION, encoding="utf-8")
    registry = Registry()
    registry.load(path)
    spec = registry.get("spelled").spec
    assert spec.max_retries == 3 and spec.timeout == 15
    schema = spec.actions[next(iter(spec.actions))].parameters
    assert schema["required"] == ["q"]
    assert "null" in str(schema["properties"]["p"])  # nullable: on
