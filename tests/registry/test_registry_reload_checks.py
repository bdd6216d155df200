"""A reload checks everything a definition needs, its code's import included, before it replaces
a tool in service: a broken edit of any kind keeps the last good version answering."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from registry_helpers import simple, write

from toolrig import ToolExecutor
from toolrig.registry import ChangeEvent, ChangeKind, Registry

ModuleDir = Callable[[str, str], Path]
WAIT = 5.0


def wait_for(check: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT
    while not check():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.01)


def multi(executor: str, action_executor: str = "") -> str:
    lines = [
        "name: pair",
        "description: Two actions.",
        f"executor: {executor}",
        "actions:",
        "  first:",
        "    description: The first.",
        "    parameters: [{name: text, type: string, required: true}]",
        "  second:",
        "    description: The second.",
        "    parameters: [{name: text, type: string, required: true}]",
    ]
    if action_executor:
        lines.append(f"    executor: {action_executor}")
    return "\n".join(lines) + "\n"


def test_a_hot_reload_with_a_mistyped_executor_keeps_the_working_tool(
    registry: Registry, executor: ToolExecutor, tmp_path: Path, module_dir: ModuleDir
) -> None:
    module_dir("reload_mod", "def v1(text):\n    return 'v1:' + text\n")
    folder = tmp_path / "tools"
    path = write(folder / "t.yaml", simple("t", executor="reload_mod.v1"))
    events: list[ChangeEvent] = []
    registry.add_change_listener(events.append)
    with registry.watch(folder, debounce=0.02):
        assert executor.execute_sync("t", {"text": "a"}).output == "v1:a"
        broken = [
            simple("t", executor="reload_mdo.v1", version="1.0.1"),  # no such module
            simple("t", executor="reload_mod.v2", version="1.0.2"),  # no such function
            simple("t", executor="reload_mod:v1.nope", version="1.0.3"),  # no such attribute
        ]
        for number, text in enumerate(broken, start=1):
            write(path, text)
            wait_for(lambda n=number: sum(e.kind is ChangeKind.FAILED for e in events) == n)
            answer = executor.execute_sync("t", {"text": "a"})
            assert answer.output == "v1:a", answer.error  # the last good version still answers
            assert registry.get("t").spec.version == "1.0.0"
        failures = [e for e in events if e.kind is ChangeKind.FAILED]
        assert all(e.errors[0].field == "executor" and e.errors[0].line for e in failures)
        assert "reload_mdo" in failures[0].errors[0].message
        write(path, simple("t", executor="reload_mod.v1", version="2.0.0"))  # fixed
        wait_for(lambda: registry.get("t").spec.version == "2.0.0")
        assert executor.execute_sync("t", {"text": "b"}).output == "v1:b"


def test_a_module_that_fails_to_import_is_refused_on_reload(
    registry: Registry, executor: ToolExecutor, tmp_path: Path, module_dir: ModuleDir
) -> None:
    module_dir("good_mod", "def run(text):\n    return 'good'\n")
    module_dir("bad_mod", "raise RuntimeError('boom at import')\n")
    path = write(tmp_path / "t.yaml", simple("t", executor="good_mod.run"))
    assert registry.load(path).ok
    write(path, simple("t", executor="bad_mod.run", version="1.1.0"))
    report = registry.load(path)
    assert not report.ok and "RuntimeError: boom at import" in report.errors[0].message
    assert executor.execute_sync("t", {"text": "x"}).output == "good"


def test_every_action_executor_is_checked_on_reload(
    registry: Registry, executor: ToolExecutor, tmp_path: Path, module_dir: ModuleDir
) -> None:
    module_dir(
        "pair_mod",
        "class Pair:\n"
        "    def first(self, text):\n        return 'first'\n"
        "    def second(self, text):\n        return 'second'\n"
        "def other(text):\n    return 'other'\n",
    )
    path = write(tmp_path / "pair.yaml", multi("pair_mod.Pair"))
    assert registry.load(path).ok
    write(path, multi("pair_mod.Pair", action_executor="pair_mod.missing"))
    report = registry.load(path)
    assert not report.ok
    assert report.errors[0].field == "actions.second.executor", report.errors[0]
    write(path, multi("pair_mod.Piar"))
    assert not registry.load(path).ok
    assert executor.execute_sync("pair.second", {"text": "x"}).output == "second"
    write(path, multi("pair_mod.Pair", action_executor="pair_mod.other"))
    assert registry.load(path).ok
    assert executor.execute_sync("pair.second", {"text": "x"}).output == "other"


def test_a_first_load_still_imports_nothing(
    registry: Registry, executor: ToolExecutor, tmp_path: Path
) -> None:
    path = write(tmp_path / "t.yaml", simple("t", executor="not_installed_mod.run"))
    assert registry.load(path).ok  # code may be installed later: the first call says
    assert executor.execute_sync("t", {"text": "x"}).code == "not_found"
