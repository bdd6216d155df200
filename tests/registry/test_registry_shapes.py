"""Parameter lists written the same way are validated and compiled once, and nothing else
changes: each tool owns its schema, and a bad list is refused every time it is written."""

from __future__ import annotations

from pathlib import Path

from registry_helpers import write

from toolrig.registry import Registry

PARAMS = """\
parameters:
  - {name: text, type: string, required: true}
  - {name: size, type: integer, default: 10, min: 1, max: 100}
  - {name: flag, type: boolean, default: %s}
  - {name: filters, type: object, properties: {start: {type: string, format: date}}}
"""


def definition(name: str, flag: str = "true") -> str:
    return f"name: {name}\ndescription: The {name} tool.\n" + PARAMS % flag


def test_equal_lists_share_their_parameters_but_not_their_schemas(
    registry: Registry, tmp_path: Path
) -> None:
    write(tmp_path / "a.yaml", definition("first"))
    write(tmp_path / "b.yaml", definition("second"))
    assert registry.load_folder(tmp_path).ok
    first, second = registry.definition("first"), registry.definition("second")
    assert first is not None and second is not None
    assert first.parameters is second.parameters  # validated once
    schemas = [registry.get(n).spec.actions[n].parameters for n in ("first", "second")]
    assert schemas[0] == schemas[1]
    assert schemas[0]["properties"]["size"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 100,
        "default": 10,
    }
    schemas[0]["properties"]["filters"]["properties"]["start"]["format"] = "changed"
    assert schemas[1]["properties"]["filters"]["properties"]["start"]["format"] == "date"


def test_lists_are_compared_exactly(registry: Registry, tmp_path: Path) -> None:
    # `1` and `true` are equal in Python but not the same YAML: only `true` is a boolean
    write(tmp_path / "a.yaml", definition("good"))
    write(tmp_path / "b.yaml", definition("bad", flag="1"))
    report = registry.load_folder(tmp_path)
    assert report.loaded == ("good",)
    [error] = report.errors
    assert error.path == tmp_path / "b.yaml"
    assert (error.line, error.field) == (6, "parameters[2].default")
    assert "breaks its own constraints" in error.message


def test_a_bad_list_is_refused_each_time_with_its_line(registry: Registry, tmp_path: Path) -> None:
    bad = definition("one", flag="maybe")
    write(tmp_path / "one.yaml", bad)
    write(tmp_path / "two.yaml", bad.replace("one", "two"))
    write(tmp_path / "three.yaml", "# a comment first\n" + bad.replace("one", "three"))
    report = registry.load_folder(tmp_path)
    assert report.loaded == ()
    lines = {e.path.name: (e.line, e.field) for e in report.errors if e.path is not None}
    assert lines == {
        "one.yaml": (6, "parameters[2].default"),
        "two.yaml": (6, "parameters[2].default"),
        "three.yaml": (7, "parameters[2].default"),
    }


def test_a_reload_with_a_bad_list_keeps_the_tool_in_service(
    registry: Registry, tmp_path: Path
) -> None:
    path = write(tmp_path / "t.yaml", definition("tool"))
    assert registry.load_file(path).ok
    write(path, definition("tool", flag="maybe"))
    report = registry.load_file(path)
    assert not report.ok and report.errors[0].field == "parameters[2].default"
    flag = registry.get("tool").spec.actions["tool"].parameters["properties"]["flag"]
    assert flag == {"type": "boolean", "default": True}
    write(path, definition("tool", flag="false"))  # the same list as another file's, later
    assert registry.load_file(path).ok
    flag = registry.get("tool").spec.actions["tool"].parameters["properties"]["flag"]
    assert flag == {"type": "boolean", "default": False}


def test_multi_action_tools_share_lists_with_single_action_ones(
    registry: Registry, tmp_path: Path
) -> None:
    write(tmp_path / "single.yaml", definition("single"))
    indented = "\n".join("    " + line for line in PARAMS.splitlines()) % "true"
    write(
        tmp_path / "multi.yaml",
        "name: multi\ndescription: Two actions.\nactions:\n  read:\n"
        f"    description: Read.\n{indented}\n  write:\n    description: Write.\n",
    )
    assert registry.load_folder(tmp_path).ok
    single, multi = registry.definition("single"), registry.definition("multi")
    assert single is not None and multi is not None and multi.actions is not None
    assert multi.actions["read"].parameters is single.parameters
    spec = registry.get("multi").spec.actions["read"].parameters
    assert spec == registry.get("single").spec.actions["single"].parameters


def test_a_definition_validated_by_hand_gets_parameters_of_its_own() -> None:
    from toolrig.registry import ToolDefinition
    from toolrig.registry._yamlsrc import parse_yaml

    data = parse_yaml(definition("tool")).data
    first, second = (ToolDefinition.model_validate(data) for _ in range(2))
    assert first.parameters == second.parameters
    assert first.parameters is not second.parameters  # only the loader shares them
