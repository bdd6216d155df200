"""file_tool: every action, its errors and limits, on real files."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolrig.tools import FileTool


@pytest.fixture
def files(tmp_path: Path) -> FileTool:
    (tmp_path / "notes.txt").write_text("one\ntwo\nthree\n")
    return FileTool(tmp_path, max_read_bytes=1000)


def test_schema_annotations_and_descriptions(files: FileTool) -> None:
    spec = files.spec
    assert spec.name == "file_tool"
    assert files.get_action_names() == ["read", "write", "update", "delete", "list"]
    assert spec.action_annotations("read").read_only is True
    assert spec.action_annotations("list").read_only is True
    assert spec.action_annotations("write").destructive is True
    assert spec.action_annotations("update").idempotent is False
    assert spec.annotations.open_world is False
    write = spec.actions["write"]
    assert write.parameters["properties"]["overwrite"]["default"] is False
    assert "atomic" in write.description
    assert spec.actions["read"].output_schema is not None


def test_read_whole_and_ranges(files: FileTool) -> None:
    whole = files.execute("read", path="notes.txt").unwrap()
    assert whole["content"] == "one\ntwo\nthree\n"
    assert (whole["total_lines"], whole["encoding"], whole["size"]) == (3, "utf-8", 14)
    part = files.execute("read", path="notes.txt", start_line=2, end_line=3).unwrap()
    assert (part["content"], part["start_line"], part["end_line"]) == ("two\nthree\n", 2, 3)
    assert files.execute("read", path="notes.txt", start_line=3).unwrap()["content"] == "three\n"
    past = files.execute("read", path="notes.txt", start_line=9)
    assert past.code == "invalid_arguments" and "only 3 lines" in past.error.message
    bad = files.execute("read", path="notes.txt", start_line=3, end_line=1)
    assert bad.code == "invalid_arguments"


def test_read_detects_encodings(tmp_path: Path, files: FileTool) -> None:
    (tmp_path / "latin.txt").write_bytes("Café crème, déjà vu, à bientôt\n".encode("cp1252"))
    (tmp_path / "utf16.txt").write_bytes("hello wörld\n".encode("utf-16"))
    (tmp_path / "bom.txt").write_bytes(b"\xef\xbb\xbfbom\n")
    latin = files.execute("read", path="latin.txt").unwrap()
    assert latin["content"] == "Café crème, déjà vu, à bientôt\n"
    assert files.execute("read", path="utf16.txt").unwrap()["content"] == "hello wörld\n"
    assert files.execute("read", path="bom.txt").unwrap()["content"] == "bom\n"


def test_read_refuses_binaries_folders_and_missing(tmp_path: Path, files: FileTool) -> None:
    (tmp_path / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(100))
    (tmp_path / "folder").mkdir()
    binary = files.execute("read", path="image.png")
    assert binary.code == "invalid_arguments" and "binary" in binary.error.message
    assert files.execute("read", path="folder").code == "invalid_arguments"
    missing = files.execute("read", path="nope.txt")
    assert missing.code == "not_found" and "nope.txt" in missing.error.message


def test_large_files_are_refused_with_a_way_to_read_parts(tmp_path: Path, files: FileTool) -> None:
    lines = [f"line {i}\n" for i in range(1, 501)]
    (tmp_path / "big.log").write_text("".join(lines))
    refused = files.execute("read", path="big.log")
    assert refused.code == "invalid_arguments"
    assert "read limit" in refused.error.message and "start_line" in refused.error.hint
    part = files.execute("read", path="big.log", start_line=100, end_line=102).unwrap()
    assert part["content"] == "line 100\nline 101\nline 102\n"
    assert part["total_lines"] is None
    # An open range on a big file stops at the read limit.
    tail = files.execute("read", path="big.log", start_line=400).unwrap()
    assert tail["content"].startswith("line 400\n") and len(tail["content"]) <= 1000


def test_write_creates_refuses_existing_and_overwrites(tmp_path: Path, files: FileTool) -> None:
    made = files.execute("write", path="a/b/new.txt", content="héllo").unwrap()
    assert made == {"path": "a/b/new.txt", "bytes": 6, "created": True}
    assert (tmp_path / "a/b/new.txt").read_text() == "héllo"
    again = files.execute("write", path="a/b/new.txt", content="x")
    assert again.code == "invalid_arguments" and "overwrite=true" in again.error.hint
    assert (tmp_path / "a/b/new.txt").read_text() == "héllo"
    replaced = files.execute("write", path="a/b/new.txt", content="x", overwrite=True).unwrap()
    assert replaced == {"path": "a/b/new.txt", "bytes": 1, "created": False}
    assert files.execute("write", path="a", content="x", overwrite=True).code == (
        "invalid_arguments"
    )


def test_update_replace_insert_append(tmp_path: Path, files: FileTool) -> None:
    out = files.execute(
        "update", path="notes.txt", mode="replace", content="TWO\n2b", start_line=2
    ).unwrap()
    assert (out["lines_removed"], out["lines_added"], out["total_lines"]) == (1, 2, 4)
    assert (tmp_path / "notes.txt").read_text() == "one\nTWO\n2b\nthree\n"
    files.execute("update", path="notes.txt", mode="insert", content="zero", start_line=1)
    files.execute("update", path="notes.txt", mode="insert", content="end", start_line=6)
    files.execute("update", path="notes.txt", mode="append", content="tail")
    assert (tmp_path / "notes.txt").read_text() == "zero\none\nTWO\n2b\nthree\nend\ntail\n"
    cut = files.execute(
        "update", path="notes.txt", mode="replace", content="", start_line=2, end_line=4
    ).unwrap()
    assert cut["lines_removed"] == 3
    assert (tmp_path / "notes.txt").read_text() == "zero\nthree\nend\ntail\n"
    bad = files.execute("update", path="notes.txt", mode="replace", content="x", start_line=9)
    assert bad.code == "invalid_arguments" and "out of range" in bad.error.message
    need = files.execute("update", path="notes.txt", mode="insert", content="x")
    assert need.code == "invalid_arguments"
    assert files.execute("update", path="gone.txt", mode="append", content="x").code == (
        "not_found"
    )


def test_update_keeps_encoding_and_line_endings(tmp_path: Path, files: FileTool) -> None:
    (tmp_path / "win.txt").write_bytes("été\r\nhiver\r\n".encode("cp1252"))
    files.execute("update", path="win.txt", mode="append", content="automne")
    assert (tmp_path / "win.txt").read_bytes() == "été\r\nhiver\r\nautomne\r\n".encode("cp1252")
    (tmp_path / "nolf.txt").write_text("a")
    files.execute("update", path="nolf.txt", mode="append", content="b")
    assert (tmp_path / "nolf.txt").read_text() == "a\nb\n"


def test_delete_files_links_and_empty_folders(tmp_path: Path, files: FileTool) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    (tmp_path / "link").symlink_to(tmp_path / "notes.txt")
    assert files.execute("delete", path="link").unwrap() == {"path": "link", "deleted": "symlink"}
    assert (tmp_path / "notes.txt").exists()
    assert files.execute("delete", path="notes.txt").unwrap()["deleted"] == "file"
    assert files.execute("delete", path="empty").unwrap()["deleted"] == "folder"
    full = files.execute("delete", path="full")
    assert full.code == "invalid_arguments" and "not empty" in full.error.message
    assert files.execute("delete", path="notes.txt").code == "not_found"
    assert files.execute("delete", path=".").code == "permission_denied"


def test_list_with_globs_types_and_sizes(tmp_path: Path) -> None:
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "a.py").write_text("aa")
    (tmp_path / "src" / "pkg" / "b.py").write_text("bbb")
    (tmp_path / "readme.md").write_text("r")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD.py").write_text("x")
    (tmp_path / "ln").symlink_to(tmp_path / "readme.md")
    files = FileTool(tmp_path, max_list_entries=3)
    top = FileTool(tmp_path).execute("list").unwrap()
    assert [(e["path"], e["type"], e["size"]) for e in top["entries"]] == [
        (".git", "folder", None),
        ("ln", "symlink", None),
        ("readme.md", "file", 1),
        ("src", "folder", None),
    ]
    deep = FileTool(tmp_path).execute("list", pattern="**/*.py").unwrap()
    assert [e["path"] for e in deep["entries"]] == ["src/a.py", "src/pkg/b.py"]
    sub = FileTool(tmp_path).execute("list", path="src", pattern="*.py").unwrap()
    assert [e["path"] for e in sub["entries"]] == ["src/a.py"]
    capped = files.execute("list", pattern="**").unwrap()
    assert capped["truncated"] is True and len(capped["entries"]) == 3
    assert files.execute("list", path="readme.md").code == "invalid_arguments"
    assert files.execute("list", path="nope").code == "not_found"
