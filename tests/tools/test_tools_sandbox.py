"""The sandbox: every way out of the root is refused, and checked paths cannot be swapped."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolrig import ToolError
from toolrig.tools import FileTool, Sandbox


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "root"
    outside = tmp_path / "outside"
    (root / "sub").mkdir(parents=True)
    outside.mkdir()
    (root / "sub" / "inner.txt").write_text("inside")
    (outside / "secret.txt").write_text("secret")
    return root, outside


def _denied(exc: pytest.ExceptionInfo[ToolError], path: str) -> None:
    assert exc.value.code == "permission_denied"
    assert f"`{path}`" in exc.value.message


@pytest.mark.parametrize(
    "path",
    ["../outside/secret.txt", "sub/../../outside/secret.txt", "..", "/etc/passwd", "~/x"],
)
def test_lexical_escapes_are_denied(layout: tuple[Path, Path], path: str) -> None:
    root, _ = layout
    with pytest.raises(ToolError) as exc:
        Sandbox(root).resolve(path)
    _denied(exc, path)


def test_inner_dotdot_and_root_are_fine(layout: tuple[Path, Path]) -> None:
    root, _ = layout
    box = Sandbox(root)
    assert box.resolve("sub/../sub/inner.txt") == root.resolve() / "sub" / "inner.txt"
    assert box.resolve(".") == box.resolve("") == root.resolve()
    assert box.relative(box.resolve("sub/inner.txt")) == "sub/inner.txt"


def test_symlinks_pointing_out_are_denied(layout: tuple[Path, Path]) -> None:
    root, outside = layout
    (root / "link.txt").symlink_to(outside / "secret.txt")
    (root / "linkdir").symlink_to(outside)
    (root / "inlink.txt").symlink_to(root / "sub" / "inner.txt")
    box = Sandbox(root)
    for path in ("link.txt", "linkdir/secret.txt", "linkdir/new.txt", "linkdir"):
        with pytest.raises(ToolError) as exc:
            box.resolve(path)
        _denied(exc, path)
    # A symlink that stays inside is followed.
    assert box.resolve("inlink.txt") == (root / "sub" / "inner.txt").resolve()


def test_every_file_action_refuses_escapes(layout: tuple[Path, Path]) -> None:
    root, outside = layout
    (root / "linkdir").symlink_to(outside)
    files = FileTool(root)
    calls = [
        ("read", {"path": "../outside/secret.txt"}),
        ("read", {"path": "linkdir/secret.txt"}),
        ("write", {"path": "linkdir/new.txt", "content": "x"}),
        ("write", {"path": str(outside / "abs.txt"), "content": "x"}),
        ("update", {"path": "linkdir/secret.txt", "mode": "append", "content": "x"}),
        ("delete", {"path": "../outside/secret.txt"}),
        ("delete", {"path": "linkdir/secret.txt"}),
        ("list", {"path": "linkdir"}),
    ]
    for name, args in calls:
        result = files.execute(name, args)
        assert result.code == "permission_denied", (name, args, result)
        assert args["path"] in result.error.message
    assert sorted(os.listdir(outside)) == ["secret.txt"]
    assert (outside / "secret.txt").read_text() == "secret"


def test_a_folder_swapped_for_a_symlink_after_the_check_is_not_followed(
    layout: tuple[Path, Path],
) -> None:
    root, outside = layout
    box = Sandbox(root)
    target = box.resolve("sub/inner.txt")  # checked while `sub` is a real folder
    new_target = box.resolve("sub/new.txt")
    (root / "sub").rename(root / "sub-old")
    (root / "sub").symlink_to(outside)  # swapped before use
    (outside / "inner.txt").write_text("outside!")
    for use in (
        lambda: box.read_bytes(target, 1000),
        lambda: box.atomic_write(new_target, b"x"),
        lambda: box.unlink(target),
    ):
        with pytest.raises(ToolError) as exc:
            use()
        assert exc.value.code == "permission_denied"
        assert "sub/" in exc.value.message
    assert sorted(os.listdir(outside)) == ["inner.txt", "secret.txt"]


def test_a_file_swapped_for_a_symlink_is_not_followed(layout: tuple[Path, Path]) -> None:
    root, outside = layout
    box = Sandbox(root)
    target = box.resolve("sub/inner.txt")
    (root / "sub" / "inner.txt").unlink()
    (root / "sub" / "inner.txt").symlink_to(outside / "secret.txt")
    with pytest.raises(ToolError) as exc:
        box.read_bytes(target, 1000)
    assert exc.value.code == "permission_denied"
    # Writing replaces the link itself; the file outside is untouched.
    box.atomic_write(target, b"new")
    assert (outside / "secret.txt").read_text() == "secret"
    assert not (root / "sub" / "inner.txt").is_symlink()


def test_atomic_write_keeps_mode_and_leaves_no_temp_files(tmp_path: Path) -> None:
    box = Sandbox(tmp_path)
    (tmp_path / "run.sh").write_text("old")
    (tmp_path / "run.sh").chmod(0o750)
    assert box.atomic_write(box.resolve("run.sh"), b"new") == 3
    assert (tmp_path / "run.sh").read_bytes() == b"new"
    assert (tmp_path / "run.sh").stat().st_mode & 0o777 == 0o750
    with pytest.raises(ToolError, match="already exists"):
        box.atomic_write(box.resolve("run.sh"), b"x", exclusive=True)
    box.atomic_write(box.resolve("a/b/c.txt"), b"deep", create_dirs=True)
    assert (tmp_path / "a" / "b" / "c.txt").read_bytes() == b"deep"
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a", "b", "c.txt", "run.sh"]


def test_root_must_be_a_folder(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        Sandbox(tmp_path / "missing")
    assert Sandbox(tmp_path / "made", create=True).root == (tmp_path / "made").resolve()
