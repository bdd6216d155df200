# ruff: noqa: E501  (the table keeps one row a line)
"""The edges of reading definition files (``registry._loader``): which files are definitions,
what a file that cannot be read or is not a definition says, and every located problem of a
definition (its field, line, tool and words).

| promise | boundary | test |
|---|---|---|
| which files | ``.yaml`` and ``.yml`` only; hidden files and folders skipped; nested; sorted | ``..._which_files_...`` |
| unreadable | not UTF-8, a folder named ``x.yaml``: one error, the path, ``cannot read:`` | ``..._cannot_be_read`` |
| not a definition | an empty file (no line), text or a number (its line) | ``..._not_a_definition`` |
| a list | each entry read; a bad one beside a good one: one of each | ``..._each_entry_...`` |
| an unknown key | its name, field, line and tool | ``..._unknown_and_missing_...`` |
| a missing field | its name, the line of its mapping | ``..._unknown_and_missing_...`` |
| a name that is not text | no tool named | ``..._unknown_and_missing_...`` |
| a validator's words | ``Value error, `` dropped; the field of the entry | ``..._validators_words`` |
| a union's field | the field itself, not ``field.int`` nor ``literal[...]`` | ``..._a_union_field_...`` |
| a key like a marker | ``a[0]`` in the data is kept; a normalised part is kept | ``..._a_union_field_...`` |
| a path | carried to every error and definition of the file | ``..._path_is_carried`` |
| a list entry | not a mapping: its line, no field, no tool | ``..._names_no_tool`` |
| the whole definition | a model check: no field, the mapping's line | ``..._has_no_field`` |
| shared parameters | equal lists in one file share their parameters | ``..._share_their_parameters`` |
| following the path | past a list's end, text below text, markers mid-path, a key like a marker | ``..._followed_in_the_data`` |

Break tried (it made the named test fail, then was undone): the union member kept in the
field (the old rule, which named ``max_result_chars.int``: ``..._a_union_field_...``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toolrig.registry._loader import iter_definition_files, read_file, read_text

HEAD = "name: a\ndescription: d\n"


def test_which_files_are_definitions(tmp_path: Path) -> None:
    for name in ("b.yaml", "a.yml", "c.txt", "d.yaml.bak", ".hidden.yaml", "sub/e.yaml",
                 ".git/f.yaml", "sub/.g.yml", "sub/deeper/h.yml", "a_dir.yaml/i.yaml"):  # fmt: skip
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(HEAD, encoding="utf-8")
    found = [p.relative_to(tmp_path).as_posix() for p in iter_definition_files(tmp_path)]
    assert found == ["a.yml", "b.yaml", "a_dir.yaml/i.yaml", "sub/e.yaml", "sub/deeper/h.yml"]
    assert all(p.is_absolute() == tmp_path.is_absolute() for p in iter_definition_files(tmp_path))


def test_a_file_that_cannot_be_read(tmp_path: Path) -> None:
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(HEAD.encode() + b"display_name: caf\xe9\n")
    folder = tmp_path / "folder.yaml"
    folder.mkdir()
    for path in (latin, folder):
        parsed, errors = read_file(path)
        assert parsed == [] and len(errors) == 1, errors
        (error,) = errors
        assert (error.path, error.line, error.field, error.tool) == (path, None, None, None)
        assert error.message.startswith("cannot read: "), error.message
    assert "utf-8" in read_file(latin)[1][0].message


@pytest.mark.parametrize(
    ("text", "line", "kind"),
    [
        ("", None, "an empty file"),
        ("# only a comment\n", None, "an empty file"),
        ("\n\nhello\n", 3, "a str"),
        ("42\n", 1, "a int"),
    ],
)
def test_a_file_that_is_not_a_definition(text: str, line: int | None, kind: str) -> None:
    parsed, errors = read_text(text, Path("x.yaml"))
    assert parsed == [] and len(errors) == 1
    (error,) = errors
    assert (error.path, error.line, error.field) == (Path("x.yaml"), line, None)
    assert error.message == f"expected a tool definition (a mapping) or a list of them, got {kind}"


def test_each_entry_of_a_list_is_read() -> None:
    parsed, errors = read_text("- name: a\n  description: d\n- name: b\n  description: e\n")
    assert [p.definition.name for p in parsed] == ["a", "b"] and errors == []
    assert [p.node.start_mark.line for p in parsed if p.node is not None] == [0, 2]
    parsed, errors = read_text("- name: a\n  description: d\n- name: b\n")
    assert [p.definition.name for p in parsed] == ["a"]
    assert [(e.tool, e.field, e.line) for e in errors] == [("b", "description", 3)]


def test_unknown_and_missing_fields_are_named_where_they_are() -> None:
    _, errors = read_text(HEAD + "bogus: 1\n")
    assert [(e.field, e.line, e.tool, e.message) for e in errors] == [
        ("bogus", 3, "a", "unknown key 'bogus'")
    ]
    _, errors = read_text("display_name: x\nname: a\n")
    assert [(e.field, e.line, e.tool, e.message) for e in errors] == [
        ("description", 1, "a", "required field 'description' is missing")
    ]
    _, errors = read_text(HEAD + "parameters:\n  - {name: x, type: string, colour: red}\n")
    assert [(e.field, e.line, e.message) for e in errors] == [
        ("parameters[0].colour", 4, "unknown key 'colour'")
    ]
    _, errors = read_text("name: 5\ndescription: d\n")
    assert [(e.field, e.line, e.tool) for e in errors] == [("name", 1, None)]
    _, errors = read_text("name: [a]\n")
    assert {e.tool for e in errors} == {None} and len(errors) == 2


def test_a_validators_words_are_the_message() -> None:
    _, errors = read_text(HEAD + "parameters:\n  - {name: x, type: integer, min: 5, max: 1}\n")
    assert [(e.field, e.line, e.tool, e.message) for e in errors] == [
        ("parameters[0]", 4, "a", "min (5) is greater than max (1)")
    ]


def test_a_union_field_is_named_as_written() -> None:
    for value in ("x", "[1]"):
        _, errors = read_text(HEAD + f"max_result_chars: {value}\n")
        assert {(e.field, e.line) for e in errors} == {("max_result_chars", 3)}, errors
        assert "Input should be 'inherit'" in {e.message for e in errors}
    text = HEAD + "parameters:\n  - {name: x, type: object, properties: {'a[0]': {type: 5}}}\n"
    _, errors = read_text(text)
    assert [(e.field, e.line) for e in errors] == [("parameters[0].properties.a[0].type", 4)]
    text = HEAD + "parameters:\n  - {name: x, type: array, enum: [1], item_type: weird}\n"
    _, errors = read_text(text)  # `items` is made from `enum` and `item_type`
    assert [e.field for e in errors] == ["parameters[0].items.type"]


def test_the_path_is_carried(tmp_path: Path) -> None:
    path = tmp_path / "two.yaml"
    path.write_text("- name: a\n  description: d\n- name: b\n  bogus: 1\n", encoding="utf-8")
    parsed, errors = read_file(path)
    assert [p.path for p in parsed] == [path]
    assert errors and {e.path for e in errors} == {path}
    assert {(e.field, e.line) for e in errors} == {("bogus", 4), ("description", 3)}


def test_a_list_entry_that_is_not_a_mapping_names_no_tool() -> None:
    parsed, errors = read_text("- name: a\n  description: d\n- 5\n")
    assert [p.definition.name for p in parsed] == ["a"]
    assert [(e.field, e.line, e.tool) for e in errors] == [(None, 3, None)]


def test_a_whole_definition_problem_has_no_field() -> None:
    text = HEAD + "parameters: [{name: x, type: string}]\nactions: {r: {description: x}}\n"
    _, errors = read_text(text)
    assert [(e.field, e.line, e.tool) for e in errors] == [(None, 1, "a")]
    assert "declares parameters and output_schema per action" in errors[0].message


def test_equal_parameter_lists_share_their_parameters() -> None:
    one = "  description: d\n  parameters: [{name: x, type: string}]\n"
    parsed, _ = read_text(f"- name: a\n{one}- name: b\n{one}")
    first, second = (p.definition.parameters for p in parsed)
    assert first == second and first[0] is second[0]


@pytest.mark.parametrize(
    ("loc", "data", "expected"),
    [
        (("tags", 1, "x"), {"tags": ["a"]}, ["tags", 1, "x"]),  # past the end: all kept
        (("tags", 0, "x"), {"tags": ["a"]}, ["tags", 0]),  # text below text: a union member
        (("a", "list[int]", 0), {"a": {"k": 1}}, ["a", 0]),  # a marker, then more path
        (("a", "function-plain", "k"), {"a": {"k": 1}}, ["a", "k"]),
        (("v", "int"), {"v": "integer"}, ["v"]),  # a member's name inside the text: no key
        (("v", 0, "int"), {"v": "abc"}, ["v", 0, "int"]),  # text is not a list
        (("p", 0, "items", "function-after[x]", "type"), {"p": [{}]}, ["p", 0, "items", "type"]),
        (("p", 0, "a[0]"), {"p": [{"a[0]": 1}]}, ["p", 0, "a[0]"]),  # a key, whatever its text
    ],
)
def test_a_path_is_followed_in_the_data(
    loc: tuple[str | int, ...], data: object, expected: list[str | int]
) -> None:
    from toolrig.registry._loader import _clean_loc

    assert _clean_loc(loc, data) == expected
