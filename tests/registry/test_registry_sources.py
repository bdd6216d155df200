"""Sources: Python tools, bound executors, lazy imports, plugins, the default registry."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from registry_helpers import simple, write

from toolrig import BaseTool, ToolDefinitionError, ToolExecutor, action, tool
from toolrig.registry import ChangeEvent, ChangeKind, Registry, default_registry, register_tool

ModuleDir = Callable[[str, str], Path]


def test_python_tools_decorator_class_and_function(
    registry: Registry, executor: ToolExecutor
) -> None:
    @tool(tags=["math"])
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    class Notes(BaseTool):
        """Keeps notes."""

        @action
        def count(self, text: str) -> int:
            """Count words."""
            return len(text.split())

    def shout(text: str) -> str:
        """Upper-case the text."""
        return text.upper()

    events: list[ChangeEvent] = []
    registry.add_change_listener(events.append)
    registry.add(add)
    registry.add(Notes)
    registry.add(shout)
    assert registry.names() == ["add", "notes", "shout"]
    assert executor.execute_sync("add", {"a": 2, "b": 3}).output == 5
    assert executor.execute_sync("notes.count", {"text": "a b c"}).output == 3
    assert executor.execute_sync("shout", {"text": "hi"}).output == "HI"
    assert [e.kind for e in events] == [ChangeKind.ADDED] * 3
    with pytest.raises(ToolDefinitionError, match="already registered"):
        registry.add(add)
    assert registry.describe("add")["source"] is None


def test_bind_attaches_code_before_and_after_load(
    registry: Registry, executor: ToolExecutor, tmp_path: Path
) -> None:
    @registry.bind("early")
    def early(text: str) -> str:
        return f"early:{text}"

    write(tmp_path / "early.yaml", simple("early"))
    write(tmp_path / "late.yaml", simple("late"))
    assert registry.load(tmp_path).ok
    assert executor.execute_sync("early", {"text": "x"}).output == "early:x"
    unbound = executor.execute_sync("late", {"text": "x"})
    assert unbound.error is not None and unbound.error.code == "not_found"
    assert "no executor" in unbound.error.message

    @registry.bind("late")
    async def late(text: str) -> str:
        return f"late:{text}"

    assert executor.execute_sync("late", {"text": "y"}).output == "late:y"
    assert registry.describe("late")["bound"] is True
    # the binding survives a reload of the file
    write(tmp_path / "late.yaml", simple("late", version="2.0.0"))
    assert registry.load(tmp_path / "late.yaml").ok
    assert registry.get("late").spec.version == "2.0.0"
    assert executor.execute_sync("late", {"text": "z"}).output == "late:z"


def test_executor_is_imported_lazily(
    registry: Registry, executor: ToolExecutor, tmp_path: Path, module_dir: ModuleDir
) -> None:
    module_dir(
        "lazy_mod",
        """
        IMPORTED = True
        def run(text):
            return text[::-1]
        class Rev:
            def __call__(self, text):
                return "class:" + text
        """,
    )
    write(tmp_path / "a.yaml", simple("rev", executor="lazy_mod.run"))
    write(tmp_path / "b.yaml", simple("rev_cls", executor="lazy_mod:Rev"))
    assert registry.load(tmp_path).ok
    assert "lazy_mod" not in sys.modules  # nothing imported at load
    assert executor.execute_sync("rev", {"text": "abc"}).output == "cba"
    assert "lazy_mod" in sys.modules
    assert executor.execute_sync("rev_cls", {"text": "abc"}).output == "class:abc"


def test_baseTool_subclass_as_executor(
    registry: Registry, executor: ToolExecutor, tmp_path: Path, module_dir: ModuleDir
) -> None:
    module_dir(
        "cls_mod",
        """
        from toolrig import BaseTool, action
        class Greeter(BaseTool):
            name = "greeter_impl"
            @action
            async def greet(self, text: str) -> str:
                return "hello " + text
        """,
    )
    write(tmp_path / "g.yaml", simple("greeter", executor="cls_mod.Greeter"))
    assert registry.load(tmp_path).ok
    assert executor.execute_sync("greeter", {"text": "ann"}).output == "hello ann"


def test_missing_and_broken_executors_fail_at_call_time(
    registry: Registry, executor: ToolExecutor, tmp_path: Path, module_dir: ModuleDir
) -> None:
    path = module_dir("broken_mod", "raise RuntimeError('boom at import')\n")
    write(tmp_path / "a.yaml", simple("missing_mod", executor="no_such_module_xyz.run"))
    write(tmp_path / "b.yaml", simple("missing_attr", executor="broken_mod_ok.nope"))
    write(tmp_path / "c.yaml", simple("broken", executor="broken_mod.run"))
    module_dir("broken_mod_ok", "x = 1\n")
    report = registry.load(tmp_path)
    assert report.ok, report  # load never imports

    missing = executor.execute_sync("missing_mod", {"text": "x"})
    assert missing.error is not None and missing.error.code == "not_found"
    assert "no_such_module_xyz" in missing.error.message
    attr = executor.execute_sync("missing_attr", {"text": "x"})
    assert attr.error is not None and attr.error.code == "not_found"
    assert "'nope'" in attr.error.message
    broken = executor.execute_sync("broken", {"text": "x"})
    assert broken.error is not None and broken.error.code == "execution_error"
    assert "RuntimeError: boom at import" in broken.error.message
    assert broken.metadata is not None and broken.metadata.attempts == 1  # not retried

    path.write_text("def run(text):\n    return 'fixed ' + text\n", encoding="utf-8")
    sys.modules.pop("broken_mod", None)
    assert executor.execute_sync("broken", {"text": "x"}).output == "fixed x"


def test_plugins_from_entry_points(
    registry: Registry, executor: ToolExecutor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    write(
        site / "plug_pkg" / "__init__.py",
        """
        from pathlib import Path
        from toolrig import tool

        @tool
        def ping() -> str:
            "Answer pong."
            return "pong"

        CATALOG = Path(__file__).parent / "defs"
        """,
    )
    write(site / "plug_pkg" / "defs" / "echo.yaml", simple("plug_echo"))
    write(
        site / "plug_pkg-1.0.dist-info" / "METADATA",
        "Metadata-Version: 2.1\nName: plug-pkg\nVersion: 1.0\n",
    )
    write(
        site / "plug_pkg-1.0.dist-info" / "entry_points.txt",
        """
        [toolrig_test.tools]
        ping = plug_pkg:ping
        catalog = plug_pkg:CATALOG
        broken = plug_pkg:does_not_exist
        """,
    )
    monkeypatch.syspath_prepend(str(site))
    try:
        report = registry.load_plugins("toolrig_test.tools")
    finally:
        sys.modules.pop("plug_pkg", None)
    assert sorted(report.loaded) == ["ping", "plug_echo"]
    assert len(report.errors) == 1 and "plug_pkg:does_not_exist" in report.errors[0].message
    assert executor.execute_sync("ping", {}).output == "pong"


def test_default_registry_is_opt_in(tmp_path: Path) -> None:
    reg = default_registry()
    assert reg is default_registry()
    assert Registry() is not reg  # instances never share state

    @register_tool("default_bound")
    def bound(text: str) -> str:
        return text * 2

    path = write(tmp_path / "d.yaml", simple("default_bound"))
    try:
        assert reg.load(path).ok
        with ToolExecutor(reg) as executor:
            assert executor.execute_sync("default_bound", {"text": "ab"}).output == "abab"
    finally:
        reg.remove("default_bound")


def test_name_owned_by_a_file_cannot_be_taken(registry: Registry, tmp_path: Path) -> None:
    write(tmp_path / "one.yaml", simple("shared"))
    write(tmp_path / "two.yaml", simple("shared"))
    report = registry.load(tmp_path)
    assert report.loaded == ("shared",)
    assert len(report.errors) == 1 and "already defined in" in report.errors[0].message
    assert report.errors[0].path == tmp_path / "two.yaml" and report.errors[0].line == 1

    def shared(text: str) -> str:
        return text

    with pytest.raises(ToolDefinitionError, match="already defined"):
        registry.add(shared)
