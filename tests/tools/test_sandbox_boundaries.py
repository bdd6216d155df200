"""The sandbox's promises, boundary by boundary (`toolrig.tools._sandbox`).

The promise: a path a model gives reaches a file under the root or is refused with an error
that names the path and says why; files are opened without following a symlink anywhere on the
way, read only when they are regular single-link files, and written atomically.

| boundary                              | test                                                    |
|---------------------------------------|---------------------------------------------------------|
| the root: the spellings of the root   | `test_the_root_spellings`                               |
| itself (``""``, ``.``, ``./``)        |                                                         |
| ``~`` in the root is the home folder; | `test_the_root_folder_itself`                           |
| ``create`` makes parents              |                                                         |
| a missing root, a file as root        | `test_the_root_folder_itself`                           |
| refusals name the path and why: NUL,  | `test_each_refusal_names_the_path_and_its_reason`       |
| absolute, ``~``, ``..``, symlink out: |                                                         |
| each code, reason, hint, details      |                                                         |
| a ``~`` inside a name is an ordinary  | `test_each_refusal_names_the_path_and_its_reason`       |
| character                             |                                                         |
| length limits: exactly at and one     | `test_length_limits_are_bytes_at_the_exact_boundary`    |
| past `NAME_MAX` and `PATH_MAX`,       |                                                         |
| counted in bytes                      |                                                         |
| the shown path is cut at 80           | `test_a_too_long_path_is_shown_cut_at_80_characters`    |
| characters, and only past 80          |                                                         |
| a name the file system refuses when   | `test_a_name_too_long_for_the_file_system_when_opened`  |
| opened (not through ``resolve``)      |                                                         |
| ``follow_final=False``: names the     | `test_follow_final_false_names_the_link_not_its_target` |
| link itself, resolves its parents,    |                                                         |
| refuses a link out                    |                                                         |
| the root reached by ``..``            | `test_follow_final_false_names_the_link_not_its_target` |
| opening without races: a symlinked or | `test_a_component_on_the_way_that_is_not_a_folder`      |
| file component on the way: denied,    |                                                         |
| naming the wanted file                |                                                         |
| a missing folder on the way:          | `test_a_missing_folder_on_the_way`                      |
| ``not_found`` naming the wanted file  |                                                         |
| ``create=True`` makes every missing   | `test_open_dir_creates_folders_only_when_asked`         |
| folder, and only then                 |                                                         |
| no descriptor leaks on any failure    | `test_no_descriptor_leaks_on_failure_paths`             |
| path                                  |                                                         |
| what is read: a pipe, a socket, a     | `test_what_is_not_a_regular_file_is_not_read`           |
| folder: ``invalid_arguments`` with    |                                                         |
| the reason                            |                                                         |
| a second hard link:                   | `test_a_second_hard_link_and_how_to_allow_it`           |
| ``permission_denied`` naming how to   |                                                         |
| allow it                              |                                                         |
| never past the limit                  | `test_read_bytes_never_reads_past_the_limit`            |
| ``lstat``: the root, a missing file,  | `test_lstat_of_each_kind_of_target`                     |
| a missing folder on the way, a        |                                                         |
| symlink (not followed)                |                                                         |
| a symlinked folder on the way is      | `test_lstat_of_each_kind_of_target`                     |
| refused, not ``None``                 |                                                         |
| atomic writes: the mode of a replaced | `test_a_replaced_file_keeps_its_mode`                   |
| file is kept (special bits too); a    |                                                         |
| new file gets the umask               |                                                         |
| ``exclusive``: an existing file is    | `test_exclusive_never_replaces`                         |
| not replaced, the error names it      |                                                         |
| an error inside the block: the old    | `test_a_failed_write_leaves_the_target_as_it_was`       |
| content, no temporary file            |                                                         |
| ``create_dirs``                       | `test_open_dir_creates_folders_only_when_asked`         |
| removal: ``unlink`` removes a         | `test_unlink_and_rmdir_touch_only_their_target`         |
| symlink, not its target; ``rmdir`` an |                                                         |
| empty folder                          |                                                         |
"""

from __future__ import annotations

import errno
import fcntl
import os
import socket
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolrig import ToolError
from toolrig.tools import Sandbox
from toolrig.tools._sandbox import NAME_MAX, PATH_MAX

OUTSIDE_HINT = (
    "Use a path relative to the sandbox root (for example `src/app.py`), without `..` "
    "that leaves it and without symlinks that point outside it."
)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "root"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "inner.txt").write_text("inside")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("secret")
    return folder.resolve()


@pytest.fixture
def box(root: Path) -> Sandbox:
    return Sandbox(root)


def _open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else set()


@pytest.fixture
def no_leaks() -> Iterator[None]:
    before = len(_open_fds())
    yield
    assert len(_open_fds()) <= before, "a file descriptor was left open"


def _refusal(call: object, *args: object, **kwargs: object) -> ToolError:
    assert callable(call)
    with pytest.raises(ToolError) as caught:
        call(*args, **kwargs)
    return caught.value


# -- the root ------------------------------------------------------------------------------
@pytest.mark.parametrize("spelling", ["", ".", "./"])
def test_the_root_spellings(box: Sandbox, root: Path, spelling: str) -> None:
    assert box.resolve(spelling) == root
    assert box.resolve(spelling, follow_final=False) == root
    assert box.relative(box.resolve(spelling)) == "."


def test_the_root_folder_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    made = Sandbox("~/a/b", create=True)
    assert made.root == (tmp_path / "a" / "b").resolve()
    assert made.root.is_dir()
    assert Sandbox("~/a/b", create=True).root == made.root  # an existing folder is fine
    assert made.allow_hard_links is False
    assert repr(made) == f"Sandbox({str(made.root)!r})"
    assert Sandbox(tmp_path / "a", allow_hard_links=True).allow_hard_links is True
    with pytest.raises(FileNotFoundError):
        Sandbox(tmp_path / "missing")
    assert not (tmp_path / "missing").exists()  # not made unless create=True
    (tmp_path / "file").write_text("x")
    with pytest.raises(NotADirectoryError, match=r"sandbox root .*file.* is not a folder"):
        Sandbox(tmp_path / "file")


# -- refusals ------------------------------------------------------------------------------
def test_each_refusal_names_the_path_and_its_reason(box: Sandbox, root: Path) -> None:
    (root / "out").symlink_to(root.parent / "outside")
    nul = _refusal(box.resolve, "a\x00b")
    assert nul.code == "invalid_arguments"
    assert "'a\\x00b'" in nul.message and "NUL" in nul.message
    assert nul.hint == "Give a plain relative path."
    cases = {
        "/etc/passwd": "absolute paths are not allowed",
        "~/x": "absolute paths are not allowed",
        "~": "absolute paths are not allowed",
        "sub/../../outside": "`..` leads outside the sandbox root",
        "out/secret.txt": "it is or goes through a symlink pointing outside the root",
    }
    for path, reason in cases.items():
        for follow in (True, False):
            error = _refusal(box.resolve, path, follow_final=follow)
            assert error.code == "permission_denied", path
            assert error.message == (
                f"Access to `{path}` is denied: {reason}. Only files under the sandbox root "
                "can be used."
            )
            assert error.hint == OUTSIDE_HINT
            assert error.details == {"path": path}
    # "~" is only the home folder at the start; inside a name it is a character.
    assert box.resolve("a~b/~c") == root / "a~b" / "~c"


# -- length limits -------------------------------------------------------------------------
def test_length_limits_are_bytes_at_the_exact_boundary(box: Sandbox, root: Path) -> None:
    name = "n" * NAME_MAX
    assert box.resolve(name) == root / name
    for too_long in ("n" * (NAME_MAX + 1), "é" * (NAME_MAX // 2 + 1), f"sub/{'n' * 256}/x"):
        error = _refusal(box.resolve, too_long)
        assert error.code == "invalid_arguments", too_long
        assert f"at most {NAME_MAX} bytes and a path {PATH_MAX}" in error.message
        assert error.hint == "Use shorter file and folder names."
    assert box.resolve("é" * (NAME_MAX // 2)) == root / ("é" * (NAME_MAX // 2))
    # PATH_MAX bytes in all is fine, one more is not (names kept under NAME_MAX).
    names = ["p" * 200] * (PATH_MAX // 201)
    longest = "/".join(names) + "/" + "q" * (PATH_MAX - len("/".join(names)) - 1)
    assert len(longest.encode()) == PATH_MAX
    assert box.resolve(longest) == root / longest
    assert _refusal(box.resolve, longest + "q").code == "invalid_arguments"


@given(extra=st.integers(min_value=1, max_value=60), width=st.sampled_from([1, 2, 3, 4]))
def test_a_too_long_path_is_shown_cut_at_80_characters(extra: int, width: int) -> None:
    char = {1: "a", 2: "é", 3: "€", 4: "😀"}[width]
    box = Sandbox(Path(__file__).parent)
    count = NAME_MAX // width + 1  # the fewest characters that make the name too long
    for length in (count, count + extra):
        path = char * length
        error = _refusal(box.resolve, path)
        shown = error.message.split("`")[1]
        if length > 80:
            assert shown == path[:80] + "..."
        else:
            assert shown == path
        assert error.code == "invalid_arguments"


def test_a_name_too_long_for_the_file_system_when_opened(box: Sandbox, root: Path) -> None:
    target = root / ("z" * 300)  # never through resolve: open_regular meets ENAMETOOLONG
    error = _refusal(box.open_regular, target)
    assert error.code == "invalid_arguments"
    assert error.message.startswith(f"`{'z' * 80}...` is too long")
    with pytest.raises(ToolError) as caught:
        box.lstat(root / ("z" * 300))
    assert caught.value.code == "invalid_arguments"


# -- follow_final=False --------------------------------------------------------------------
def test_follow_final_false_names_the_link_not_its_target(box: Sandbox, root: Path) -> None:
    (root / "inlink").symlink_to(root / "sub" / "inner.txt")
    (root / "subdir").symlink_to(root / "sub")
    assert box.resolve("inlink") == root / "sub" / "inner.txt"
    assert box.resolve("inlink", follow_final=False) == root / "inlink"
    # the parents are resolved, the final name is kept
    (root / "sub" / "link2").symlink_to("inner.txt")
    assert box.resolve("subdir/link2", follow_final=False) == root / "sub" / "link2"
    assert box.resolve("subdir/link2") == root / "sub" / "inner.txt"
    assert box.resolve("sub/..", follow_final=False) == root
    assert box.resolve("sub/../sub", follow_final=False) == root / "sub"
    (root / "dangling").symlink_to(root / "nowhere")
    assert box.resolve("dangling", follow_final=False) == root / "dangling"


# -- opening without races -----------------------------------------------------------------
def test_a_component_on_the_way_that_is_not_a_folder(
    box: Sandbox, root: Path, no_leaks: None
) -> None:
    (root / "sub" / "deeper").mkdir()
    (root / "sub" / "deeper" / "f.txt").write_text("x")
    (root / "alias").symlink_to(root / "sub")  # a symlink inside the root, still not followed
    for way in ("alias/deeper/f.txt", "sub/inner.txt/f.txt"):
        target = root / way
        calls = (box.open_regular, lambda t: box.read_bytes(t, 10), box.unlink, box.lstat)
        for call in calls:
            error = _refusal(call, target)
            assert error.code == "permission_denied", (way, call)
            assert error.message.startswith(f"Access to `{way}` is denied: a part of it is a ")
            assert error.details == {"path": way}
    with pytest.raises(ToolError) as caught:
        box.open_dir(root / "alias" / "deeper", for_path=root / "alias" / "deeper" / "f.txt")
    assert "`alias/deeper/f.txt`" in caught.value.message
    with pytest.raises(ToolError) as caught:
        box.open_dir(root / "alias" / "deeper")
    assert "`alias/deeper`" in caught.value.message


def test_a_missing_folder_on_the_way(box: Sandbox, root: Path, no_leaks: None) -> None:
    for call in (box.open_regular, box.unlink, box.rmdir):
        error = _refusal(call, root / "gone" / "f.txt")
        assert error.code == "not_found"
        assert error.message == "`gone/f.txt` does not exist."
        assert error.hint == "List the folder to see what is there."
    assert box.lstat(root / "gone" / "f.txt") is None
    assert not (root / "gone").exists()  # nothing on the way is made by a read or a removal
    missing = _refusal(box.open_regular, root / "sub" / "nope.txt")
    assert (missing.code, missing.message) == ("not_found", "`sub/nope.txt` does not exist.")


def test_open_dir_creates_folders_only_when_asked(box: Sandbox, root: Path) -> None:
    target = root / "a" / "b" / "c.txt"
    assert _refusal(box.atomic_write, target, b"x").code == "not_found"
    assert not (root / "a").exists()
    assert box.atomic_write(target, b"data", create_dirs=True) == 4
    assert target.read_bytes() == b"data"
    fd = box.open_dir(root / "x" / "y", create=True)
    try:
        assert os.path.samestat(os.fstat(fd), os.stat(root / "x" / "y"))
    finally:
        os.close(fd)
    fd = box.open_dir(root / "x" / "y", create=True)  # existing folders are fine
    os.close(fd)
    fd = box.open_dir(root)
    try:
        assert os.path.samestat(os.fstat(fd), os.stat(root))
    finally:
        os.close(fd)


def test_descriptors_are_not_inherited_and_the_root_must_still_be_a_folder(
    box: Sandbox, root: Path
) -> None:
    for folder in (root, root / "sub"):
        fd = box.open_dir(folder)
        try:
            assert fcntl.fcntl(fd, fcntl.F_GETFD) & fcntl.FD_CLOEXEC
        finally:
            os.close(fd)
    root.rename(root.with_name("moved"))
    root.write_text("now a file")
    with pytest.raises(NotADirectoryError):
        box.open_dir(root)


def test_no_descriptor_leaks_on_failure_paths(box: Sandbox, root: Path, no_leaks: None) -> None:
    os.mkfifo(root / "pipe")
    for _ in range(3):
        for target in (root / "gone" / "x", root / "sub" / "inner.txt" / "x", root / "pipe"):
            with pytest.raises(ToolError):
                box.open_regular(target)
        with pytest.raises(FileNotFoundError):  # the last step's own error: callers word it
            box.rmdir(root / "sub" / "nope")
        with pytest.raises(FileNotFoundError):
            box.unlink(root / "sub" / "nope")
        with pytest.raises(ToolError):
            box.atomic_write(root / "sub" / "inner.txt", b"x", exclusive=True)
        with pytest.raises(OSError, match="not empty"):
            box.rmdir(root / "sub")


# -- what is read --------------------------------------------------------------------------
def test_what_is_not_a_regular_file_is_not_read(box: Sandbox, root: Path, tmp_path: Path) -> None:
    os.mkfifo(root / "pipe")
    listener = socket.socket(socket.AF_UNIX)
    short = Path("/tmp") / f"tr-sock-{os.getpid()}"
    try:
        listener.bind(str(short))
        os.rename(short, root / "sock")
        kinds = {"pipe": "a named pipe", "sock": "a socket", "sub": "a folder"}
        for name, kind in kinds.items():
            error = _refusal(box.read_bytes, root / name, 10)
            assert error.code == "invalid_arguments", name
            assert error.message.startswith(f"`{name}` is not read: it is {kind}"), error.message
            assert error.hint == (
                "Only regular files can be read; list the folder to see what is there."
            )
            assert error.details == {"path": name}
    finally:
        listener.close()
        short.unlink(missing_ok=True)


def test_a_socket_refused_by_the_open_itself(box: Sandbox, root: Path) -> None:
    """ENXIO from opening a socket (the kernel's own answer) becomes the same refusal."""
    error = box._open_error(OSError(errno.ENXIO, "no such device"), root / "s")
    assert isinstance(error, ToolError)
    assert error.code == "invalid_arguments"
    assert error.message == "`s` is not read: it is a socket, not a regular file."
    other = OSError(errno.EACCES, "denied")
    assert box._open_error(other, root / "s") is other  # anything else is passed on as it is


def test_a_second_hard_link_and_how_to_allow_it(box: Sandbox, root: Path, tmp_path: Path) -> None:
    os.link(tmp_path / "outside" / "secret.txt", root / "sub" / "hard.txt")
    error = _refusal(box.read_bytes, root / "sub" / "hard.txt", 100)
    assert error.code == "permission_denied"
    assert error.message.startswith("`sub/hard.txt` is not read: it has 2 hard links")
    assert error.hint == (
        "Files with several hard links are refused; the operator can allow them with "
        "Sandbox(..., allow_hard_links=True)."
    )
    assert error.details == {"path": "sub/hard.txt"}
    allowed = Sandbox(root, allow_hard_links=True)
    assert allowed.read_bytes(root / "sub" / "hard.txt", 100) == b"secret"


@given(limit=st.integers(min_value=0, max_value=20))
def test_read_bytes_never_reads_past_the_limit(limit: int) -> None:
    box = Sandbox(Path(__file__).parent)
    data = Path(__file__).read_bytes()
    assert box.read_bytes(Path(__file__), limit) == data[:limit]


# -- lstat ---------------------------------------------------------------------------------
def test_lstat_of_each_kind_of_target(box: Sandbox, root: Path, no_leaks: None) -> None:
    root_stat = box.lstat(root)
    assert root_stat is not None and os.path.samestat(root_stat, os.stat(root))
    assert box.lstat(root / "sub" / "missing") is None
    assert box.lstat(root / "gone" / "deeper" / "missing") is None
    (root / "link").symlink_to(root / "sub" / "inner.txt")
    link = box.lstat(root / "link")
    assert link is not None and stat.S_ISLNK(link.st_mode)
    plain = box.lstat(root / "sub" / "inner.txt")
    assert plain is not None and stat.S_ISREG(plain.st_mode) and plain.st_size == 6
    (root / "alias").symlink_to(root / "sub")
    error = _refusal(box.lstat, root / "alias" / "inner.txt")
    assert error.code == "permission_denied"


# -- atomic writes -------------------------------------------------------------------------
def test_a_replaced_file_keeps_its_mode(box: Sandbox, root: Path) -> None:
    target = root / "sub" / "inner.txt"
    for mode in (0o640, 0o2750, 0o600):
        os.chmod(target, mode)
        box.atomic_write(target, b"new")
        assert stat.S_IMODE(os.stat(target).st_mode) == mode
    umask = os.umask(0o022)
    try:
        box.atomic_write(root / "fresh.txt", b"x")
        assert stat.S_IMODE(os.stat(root / "fresh.txt").st_mode) == 0o644
        box.atomic_write(root / "fresh2.txt", b"x", exclusive=True)
        assert stat.S_IMODE(os.stat(root / "fresh2.txt").st_mode) == 0o644
    finally:
        os.umask(umask)
    assert target.read_bytes() == b"new"
    assert sorted(os.listdir(root / "sub")) == ["inner.txt"]


def test_a_symlink_replaced_by_a_write_does_not_give_its_mode(
    box: Sandbox, root: Path, tmp_path: Path
) -> None:
    """A name that became a symlink after the check is replaced by a plain file with the
    default mode: neither the link's own bits (``0o777``) nor its target's."""
    secret = tmp_path / "outside" / "secret.txt"
    os.chmod(secret, 0o600)
    (root / "link").symlink_to(secret)
    umask = os.umask(0o022)
    try:
        box.atomic_write(root / "link", b"new")
    finally:
        os.umask(umask)
    written = os.lstat(root / "link")
    assert stat.S_ISREG(written.st_mode) and stat.S_IMODE(written.st_mode) == 0o644
    assert secret.read_text() == "secret"


def test_exclusive_never_replaces(box: Sandbox, root: Path) -> None:
    target = root / "sub" / "inner.txt"
    error = _refusal(box.atomic_write, target, b"x", exclusive=True)
    assert error.code == "invalid_arguments"
    assert error.message == "`sub/inner.txt` already exists."
    assert "overwrite" in (error.hint or "")
    assert target.read_text() == "inside"
    assert box.atomic_write(root / "sub" / "new.txt", b"fresh", exclusive=True) == 5
    assert (root / "sub" / "new.txt").read_bytes() == b"fresh"
    assert os.stat(root / "sub" / "new.txt").st_nlink == 1  # the temporary name is gone
    assert sorted(os.listdir(root / "sub")) == ["inner.txt", "new.txt"]


def test_a_failed_write_leaves_the_target_as_it_was(box: Sandbox, root: Path) -> None:
    target = root / "sub" / "inner.txt"

    def half_written() -> None:
        with box.atomic_writer(target) as handle:
            handle.write(b"half")
            raise RuntimeError("stop")

    with pytest.raises(RuntimeError, match="stop"):
        half_written()
    assert target.read_text() == "inside"
    assert os.listdir(root / "sub") == ["inner.txt"]
    with box.atomic_writer(target) as handle:
        handle.write(b"whole")
        assert target.read_text() == "inside"  # not visible before the block ends
    assert target.read_bytes() == b"whole"


# -- removal -------------------------------------------------------------------------------
def test_unlink_and_rmdir_touch_only_their_target(box: Sandbox, root: Path) -> None:
    (root / "link").symlink_to(root / "sub" / "inner.txt")
    box.unlink(root / "link")
    assert not (root / "link").is_symlink()
    assert (root / "sub" / "inner.txt").read_text() == "inside"
    (root / "empty").mkdir()
    box.rmdir(root / "empty")
    assert not (root / "empty").exists()
    assert (root / "sub").is_dir()
