"""BaseTool: multi-action tools in the concise (decorated) and explicit (ActionSchema) styles."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolrig import (
    ActionSchema,
    BaseTool,
    ToolAnnotations,
    ToolContext,
    ToolDefinitionError,
    ToolError,
    ToolParameter,
    action,
)


class FileTool(BaseTool):
    """Read and change text files under one folder."""

    name = "file_tool"
    tags = ("files",)
    annotations = ToolAnnotations(destructive=True)

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root

    @action(output_description="The file's text.", annotations=ToolAnnotations(read_only=True))
    def read(self, path: str, encoding: str = "utf-8") -> str:
        """Read a text file.

        Args:
            path: File path relative to the root.
            encoding: Text encoding.
        """
        target = self.root / path
        if not target.exists():
            raise ToolError(
                f"{path} does not exist", code="not_found", hint="List the folder first."
            )
        return target.read_text(encoding=encoding)

    @action
    def write(self, path: str, content: str, overwrite: bool = False) -> dict[str, object]:
        """Write a text file."""
        target = self.root / path
        if target.exists() and not overwrite:
            raise ToolError(f"{path} exists", hint="Pass overwrite=true to replace it.")
        target.write_text(content)
        return {"path": path, "bytes": len(content.encode())}

    @action
    def update(self, path: str, old: str, new: str, ctx: ToolContext) -> int:
        """Replace text in a file; returns the number of replacements."""
        target = self.root / path
        text = target.read_text()
        target.write_text(text.replace(old, new))
        return text.count(old)

    @action(name="delete")
    def remove(self, path: str) -> bool:
        """Delete a file."""
        (self.root / path).unlink()
        return True


@pytest.fixture
def files(tmp_path: Path) -> FileTool:
    (tmp_path / "notes.txt").write_text("hello world")
    return FileTool(tmp_path)


def test_design_note_cases(files: FileTool) -> None:
    ok = files.execute("read", {"path": "notes.txt"})
    assert ok.success and isinstance(ok.output, str) and ok.output == "hello world"

    invalid = files.execute("raed", {"path": "notes.txt"})
    assert not invalid.success and invalid.code == "not_found"
    assert "not found" in invalid.error.message and "'file_tool.read'" in invalid.error.message

    missing = files.execute("read", {})
    assert not missing.success and missing.code == "invalid_arguments"
    assert "required" in missing.error.message and "path" in missing.error.message


def test_actions_schema_and_names(files: FileTool) -> None:
    assert files.get_action_names() == ["read", "write", "update", "delete"]
    schema = files.get_schema()
    assert schema["name"] == "file_tool"
    assert schema["description"] == "Read and change text files under one folder."
    read = schema["actions"]["read"]
    assert read["description"] == "Read a text file."
    assert read["parameters"]["required"] == ["path"]
    assert (
        read["parameters"]["properties"]["path"]["description"] == "File path relative to the root."
    )
    assert read["output"] == {"type": "string", "description": "The file's text."}
    assert "ctx" not in schema["actions"]["update"]["parameters"]["properties"]
    assert schema["actions"]["write"]["output"]["type"] == "object"
    assert files.spec.action_annotations("read").read_only is True
    assert files.spec.action_annotations("read").destructive is True  # inherited from the tool
    assert files.spec.action_annotations("write").read_only is None


def test_validate_params(files: FileTool) -> None:
    assert files.validate_params("write", {"path": "a", "content": "b"}) == (True, "")
    ok, message = files.validate_params("write", {"path": "a", "contents": "b"})
    assert not ok and "did you mean `content`" in message
    ok, message = files.validate_params("nope", {})
    assert not ok and "no action 'nope'" in message


def test_actions_run_and_tool_errors_are_structured(files: FileTool, tmp_path: Path) -> None:
    written = files.execute("write", path="new.txt", content="abc")
    assert written.output == {"path": "new.txt", "bytes": 3}
    again = files.execute("write", path="new.txt", content="abc")
    assert again.code == "execution_error" and "overwrite=true" in again.error.hint
    assert files.execute("update", path="new.txt", old="b", new="B").output == 1
    assert (tmp_path / "new.txt").read_text() == "aBc"
    gone = files.execute("read", path="gone.txt")
    assert gone.code == "not_found" and gone.error.hint == "List the folder first."
    assert files.execute("delete", path="new.txt").output is True
    crashed = files.execute("delete", path="new.txt")
    assert crashed.code == "execution_error"
    assert crashed.error.message.startswith("`delete` failed: FileNotFoundError:")


def test_explicit_action_schema_style(tmp_path: Path) -> None:
    class KeyValue(BaseTool):
        name = "kv"
        description = "A tiny key-value store."
        actions = [
            ActionSchema(
                name="put",
                description="Store a value.",
                parameters=[
                    ToolParameter(name="key", type="string", description="Key", min_length=1),
                    ToolParameter(name="value", type="integer", min=0, max=10),
                ],
                output_type="boolean",
                output_description="True when stored.",
            ),
            ActionSchema(
                name="get",
                description="Fetch a value.",
                parameters=[ToolParameter(name="key", type="string")],
                output_type="integer",
                output_description="The value.",
            ),
        ]

        def __init__(self) -> None:
            super().__init__()
            self.data: dict[str, int] = {}

        def put(self, key: str, value: int) -> bool:
            self.data[key] = value
            return True

        def get(self, key: str) -> int:
            return self.data[key]

    kv = KeyValue()
    assert kv.get_action_names() == ["put", "get"]
    assert kv.execute("put", key="a", value="3").output is True
    assert kv.execute("get", key="a").output == 3
    bad = kv.execute("put", key="", value=11)
    assert bad.code == "invalid_arguments" and "- key:" in bad.error.message
    assert kv.get_schema()["actions"]["get"]["output"] == {
        "type": "integer",
        "description": "The value.",
    }


def test_class_definition_errors_are_collected() -> None:
    with pytest.raises(ToolDefinitionError) as info:

        class Broken(BaseTool):
            actions = [ActionSchema(name="missing_method")]

            @action
            def untyped(self, x, *rest):  # type: ignore[no-untyped-def]
                return x

    text = str(info.value)
    assert "missing_method" in text and "`x`" in text and "`*rest`" in text

    class Empty(BaseTool):
        pass

    with pytest.raises(ToolDefinitionError, match="at least one action"):
        Empty()


def test_subclasses_inherit_and_extend_actions(tmp_path: Path) -> None:
    class AuditedFiles(FileTool):
        name = "audited_files"

        @action
        def stat(self, path: str) -> int:
            """Size of a file in bytes."""
            return (self.root / path).stat().st_size

    (tmp_path / "a.txt").write_text("12345")
    tool = AuditedFiles(tmp_path)
    assert tool.get_action_names() == ["read", "write", "update", "delete", "stat"]
    assert tool.execute("stat", path="a.txt").output == 5
    assert tool.execute("read", path="a.txt").metadata.tool == "audited_files"


async def test_async_actions_and_aexecute(files: FileTool) -> None:
    class Remote(BaseTool):
        @action
        async def fetch(self, key: str) -> str:
            """Fetch a key."""
            return key.upper()

    remote = Remote()
    assert remote.spec.name == "remote"
    assert (await remote.aexecute("fetch", key="x")).output == "X"
    assert remote.execute("fetch", key="y").output == "Y"
    assert (await files.aexecute("read", path="notes.txt")).output == "hello world"


def test_action_names_that_would_replace_basetool_methods_are_refused() -> None:
    with pytest.raises(ToolDefinitionError, match=r"would replace BaseTool.execute"):

        class Shell(BaseTool):
            @action
            def execute(self, command: str) -> str:
                """Run a command."""
                return command

    with pytest.raises(ToolDefinitionError, match=r"ActionSchema\(method=...\)"):

        class Declared(BaseTool):
            actions = (ActionSchema(name="get_schema"),)

    class Fine(BaseTool):
        @action(name="execute")
        def run_command(self, command: str) -> str:
            """Run a command."""
            return command

    fine = Fine()
    assert fine.get_action_names() == ["execute"]
    assert fine.execute("execute", command="ls").output == "ls"
