"""A hot reload never swaps a runnable tool for one that runs nothing: an edit that drops the
``executor:`` line (of the tool or of one action) is refused while no code is bound, and the
last good version keeps answering. With code bound, or when the tool never had code, the edit
is taken as before."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from registry_helpers import simple, write

from toolrig import ToolExecutor
from toolrig.registry import ChangeEvent, ChangeKind, Registry

ModuleDir = Callable[[str, str], Path]
WAIT = 5.0


def _wait_for(check: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT
    while not check():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.01)


def _pair(executor: str | None, second: str | None) -> str:
    lines = ["name: pair", "version: {version}", "description: Two actions."]
    if executor:
        lines.append(f"executor: {executor}")
    lines += [
        "actions:",
        "  first:",
        "    description: The first.",
        "    parameters: [{name: text, type: string, required: true}]",
        "  second:",
        "    description: The second.",
        "    parameters: [{name: text, type: string, required: true}]",
    ]
    if second:
        lines.append(f"    executor: {second}")
    return "\n".join(lines) + "\n"


# Ways an edit can leave the tool without code (the executor line removed, emptied, commented,
# or null), each from a runnable version 1.0.0.
DROPPED = {
    "removed": "",
    "null": "executor: null\n",
    "tilde": "executor: ~\n",
    "empty": "executor: ''\n",
    "commented": "# executor: drop_mod.run\n",
}


@pytest.mark.parametrize("edit", list(DROPPED))
def test_a_reload_that_drops_the_executor_keeps_the_runnable_version(
    registry: Registry, executor: ToolExecutor, tmp_path: Path, module_dir: ModuleDir, edit: str
) -> None:
    module_dir("drop_mod", "def run(text):\n    return 'ran:' + text\n")
    folder = tmp_path / "tools"
    path = write(folder / "t.yaml", simple("t", executor="drop_mod.run"))
    events: list[ChangeEvent] = []
    registry.add_change_listener(events.append)
    with registry.watch(folder, debounce=0.02):
        assert executor.execute_sync("t", {"text": "a"}).output == "ran:a"
        write(path, simple("t", version="1.1.0", extra=DROPPED[edit]))
        _wait_for(lambda: any(e.kind is ChangeKind.FAILED for e in events))
        failed = next(e for e in events if e.kind is ChangeKind.FAILED)
        error = failed.errors[0]
        assert error.path == path and error.field == "executor"
        assert "no longer name an `executor`" in error.message
        assert registry.get("t").spec.version == "1.0.0"
        assert executor.execute_sync("t", {"text": "b"}).output == "ran:b"


def test_a_direct_reload_reports_the_file_and_keeps_the_tool(
    registry: Registry, executor: ToolExecutor, tmp_path: Path, module_dir: ModuleDir
) -> None:
    module_dir("drop_mod2", "def run(text):\n    return 'ran:' + text\n")
    path = write(tmp_path / "t.yaml", simple("t", executor="drop_mod2.run"))
    assert registry.load(path).ok
    report = registry.load(write(path, simple("t", version="2.0.0")))
    assert not report.ok and report.loaded == ()
    assert report.errors[0].path == path and report.errors[0].line is not None
    assert executor.execute_sync("t", {"text": "x"}).output == "ran:x"


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (("drop_pair.Pair", None), (None, "drop_pair.other")),  # the tool's executor dropped
        (("drop_pair.Pair", "drop_pair.other"), (None, "drop_pair.other")),
    ],
    ids=["tool-executor", "tool-executor-one-action-kept"],
)
def test_an_action_left_without_code_is_refused(
    registry: Registry,
    executor: ToolExecutor,
    tmp_path: Path,
    module_dir: ModuleDir,
    before: tuple[str, str | None],
    after: tuple[str | None, str | None],
) -> None:
    module_dir(
        "drop_pair",
        "class Pair:\n"
        "    def first(self, text):\n        return '1:' + text\n"
        "    def second(self, text):\n        return '2:' + text\n"
        "def other(text):\n    return 'other'\n",
    )
    path = write(tmp_path / "pair.yaml", _pair(*before).replace("{version}", "1.0.0"))
    assert registry.load(path).ok
    report = registry.load(write(path, _pair(*after).replace("{version}", "1.1.0")))
    assert not report.ok and "first" in report.errors[0].message
    assert registry.get("pair").spec.version == "1.0.0"
    assert executor.execute_sync("pair.first", {"text": "a"}).output == "1:a"


def test_with_code_bound_the_executor_line_may_go(
    registry: Registry, executor: ToolExecutor, tmp_path: Path, module_dir: ModuleDir
) -> None:
    module_dir("drop_mod3", "def run(text):\n    return 'file:' + text\n")
    path = write(tmp_path / "t.yaml", simple("t", executor="drop_mod3.run"))
    assert registry.load(path).ok

    @registry.bind("t")
    def bound(text: str) -> str:
        return "bound:" + text

    report = registry.load(write(path, simple("t", version="1.1.0")))
    assert report.ok and registry.get("t").spec.version == "1.1.0"
    assert executor.execute_sync("t", {"text": "a"}).output == "bound:a"


def test_a_tool_that_never_had_code_can_still_be_edited(registry: Registry, tmp_path: Path) -> None:
    path = write(tmp_path / "t.yaml", simple("t"))
    assert registry.load(path).ok
    report = registry.load(write(path, simple("t", version="1.1.0")))
    assert report.ok and registry.get("t").spec.version == "1.1.0"
