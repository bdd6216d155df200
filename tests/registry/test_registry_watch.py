"""Hot reload with a real watchdog observer: create, edit, break, fix, rename, delete."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from registry_helpers import simple, write

from toolrig import ToolExecutor
from toolrig.registry import ChangeEvent, ChangeKind, Registry

ModuleDir = Callable[[str, str], Path]


def wait_for(check: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.01)


@pytest.fixture
def watched(
    registry: Registry, tmp_path: Path
) -> Iterator[tuple[Registry, Path, list[ChangeEvent]]]:
    folder = tmp_path / "tools"
    write(folder / "alpha.yaml", simple("alpha", version="1.0.0"))
    events: list[ChangeEvent] = []
    registry.add_change_listener(events.append)
    with registry.watch(folder, debounce=0.02) as watcher:
        assert watcher.report is not None and watcher.report.loaded == ("alpha",)
        yield registry, folder, events


def version(registry: Registry, name: str) -> str | None:
    return registry.get(name).spec.version if name in registry else None


def test_create_modify_delete(watched: tuple[Registry, Path, list[ChangeEvent]]) -> None:
    registry, folder, events = watched
    write(folder / "sub" / "beta.yaml", simple("beta"))
    wait_for(lambda: "beta" in registry)
    write(folder / "alpha.yaml", simple("alpha", version="1.1.0"))
    wait_for(lambda: version(registry, "alpha") == "1.1.0")
    (folder / "sub" / "beta.yaml").unlink()
    wait_for(lambda: "beta" not in registry)
    kinds = [(e.kind, e.name) for e in events]
    assert (ChangeKind.ADDED, "beta") in kinds
    assert (ChangeKind.UPDATED, "alpha") in kinds
    assert kinds[-1] == (ChangeKind.REMOVED, "beta")


def test_broken_edit_keeps_last_good_version_and_fix_applies(
    watched: tuple[Registry, Path, list[ChangeEvent]], executor: ToolExecutor
) -> None:
    registry, folder, events = watched
    good = registry.get("alpha")
    write(folder / "alpha.yaml", "name: alpha\ndescription: [unclosed\n")
    wait_for(lambda: any(e.kind is ChangeKind.FAILED for e in events))
    failed = next(e for e in events if e.kind is ChangeKind.FAILED)
    assert failed.path == folder / "alpha.yaml" and failed.errors[0].line is not None
    assert registry.get("alpha") is good  # still serving the last good version
    served = executor.execute_sync("alpha", {"text": "x"})  # validated, then: no code bound
    assert served.code == "not_found" and served.error is not None
    assert served.error.message.startswith("Tool `alpha` has no executor"), served.error

    write(folder / "alpha.yaml", simple("alpha", version="1.0.0", extra="surprise: 1\n"))
    wait_for(lambda: sum(e.kind is ChangeKind.FAILED for e in events) >= 2)
    last = [e for e in events if e.kind is ChangeKind.FAILED][-1]
    assert last.errors[0].field == "surprise" and last.name == "alpha"
    assert registry.get("alpha") is good

    write(folder / "alpha.yaml", simple("alpha", version="2.0.0"))
    wait_for(lambda: version(registry, "alpha") == "2.0.0")
    assert events[-1].kind is ChangeKind.UPDATED and events[-1].version == "2.0.0"


def test_rename_moves_the_tool(watched: tuple[Registry, Path, list[ChangeEvent]]) -> None:
    registry, folder, _ = watched
    write(folder / "gamma.yaml", simple("gamma"))
    wait_for(lambda: "gamma" in registry)
    (folder / "gamma.yaml").rename(folder / "gamma_renamed.yaml")
    wait_for(
        lambda: "gamma" in registry and registry.source("gamma") == folder / "gamma_renamed.yaml"
    )
    (folder / "gamma_renamed.yaml").rename(folder / "gamma.txt")  # no longer a definition
    wait_for(lambda: "gamma" not in registry)


def test_atomic_replace_by_editor_style_save(
    watched: tuple[Registry, Path, list[ChangeEvent]],
) -> None:
    registry, folder, _ = watched
    tmp = write(folder / ".alpha.yaml.swp", simple("alpha", version="3.0.0"))
    tmp.replace(folder / "alpha.yaml")
    wait_for(lambda: version(registry, "alpha") == "3.0.0")


def test_running_calls_finish_on_their_version(
    registry: Registry, executor: ToolExecutor, tmp_path: Path, module_dir: ModuleDir
) -> None:
    module_dir(
        "versions_mod",
        """
        import threading
        started = threading.Event()
        release = threading.Event()
        def v1(text):
            started.set()
            release.wait(5)
            return "v1"
        def v2(text):
            return "v2"
        """,
    )
    import versions_mod  # type: ignore[import-not-found]

    folder = tmp_path / "tools"
    write(folder / "t.yaml", simple("t", executor="versions_mod.v1"))
    results: list[object] = []
    with registry.watch(folder, debounce=0.02):
        caller = threading.Thread(
            target=lambda: results.append(executor.execute_sync("t", {"text": "x"}).output)
        )
        caller.start()
        assert versions_mod.started.wait(5)
        write(folder / "t.yaml", simple("t", executor="versions_mod.v2", version="2.0.0"))
        wait_for(lambda: version(registry, "t") == "2.0.0")
        assert executor.execute_sync("t", {"text": "x"}).output == "v2"
        versions_mod.release.set()
        caller.join(5)
    assert results == ["v1"]


def test_folders_moved_in_and_out(
    watched: tuple[Registry, Path, list[ChangeEvent]], tmp_path: Path
) -> None:
    registry, folder, _ = watched
    outside = tmp_path / "outside"
    write(outside / "pack" / "one.yaml", simple("pack_one"))
    write(outside / "pack" / "deep" / "two.yaml", simple("pack_two"))
    (outside / "pack").rename(folder / "pack")
    wait_for(lambda: "pack_one" in registry and "pack_two" in registry)
    (folder / "pack").rename(outside / "pack_back")
    wait_for(lambda: "pack_one" not in registry and "pack_two" not in registry)
    assert "alpha" in registry
