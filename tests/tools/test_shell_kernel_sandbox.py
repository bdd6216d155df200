"""The shell tool under the kernel sandbox (Landlock), attacked as a hostile caller would.

Every attempt below is a real process. An attempt to run a program that is not allowed targets
``/usr/bin/touch`` (or a script under the root, or the dynamic loader asked to load ``touch``)
creating a marker file *inside* the root, where writing is allowed: a marker can only appear if
the program ran. Writes outside the root, other processes' ``/proc`` entries, the user's home,
TCP, signals and abstract sockets are tried the same way, each with the legitimate use that must
still work beside it.
"""

from __future__ import annotations

import os
import shutil
import socket
import stat
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolrig.tools import ShellTool, _landlock
from toolrig.tools._confine import MIN_ABI

pytestmark = pytest.mark.skipif(
    _landlock.abi() < MIN_ABI, reason=f"the kernel offers no Landlock ABI {MIN_ABI}"
)

LOADER = os.path.realpath("/lib64/ld-linux-x86-64.so.2")
RUNNERS = {
    "env": [], "nice": [], "nohup": [], "timeout": ["5"], "stdbuf": ["-o0"], "setsid": ["-w"],
    "flock": ["lock"], "chrt": ["-o", "0"], "ionice": ["-c", "3"], "taskset": ["0x1"],
    "prlimit": ["--nofile=64"], "setpriv": ["--no-new-privs"], "unshare": [],
    "strace": ["-f", "-o", "trace.txt"], "busybox": [], "chroot": ["/"], "xargs": [],
    "script": ["-qec"],
}  # fmt: skip
"""Programs that run the program named in their arguments, with the options they need first."""
PRESENT = sorted(name for name in RUNNERS if shutil.which(name))
OTHERS = ["sh", "bash", "perl", "make", "zip", "git", "find", "cat", "ls", "grep", "head", "cp",
          "sed", "basename", "dirname", "gettext", "envsubst", "uname", "rm", "mkdir", "mv",
          "expr", "tr", "wc", "sort", "sleep"]  # fmt: skip
"""Allowed beside the runners: interpreters, programs that run commands, and what git's
shell-script subcommands (filter-branch) use."""


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "root"
    folder.mkdir()
    (folder / "a.txt").write_text("alpha\nbeta\n")
    evil = folder / "evil.sh"
    evil.write_text(f"#!/bin/sh\ntouch {folder}/pwned-script\n")
    evil.chmod(0o755)
    return folder


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    return folder


def targets(root: Path) -> dict[str, list[str]]:
    """Commands that are not allowed, each creating its own marker under the root."""
    return {
        "touch": ["/usr/bin/touch", f"{root}/pwned-touch"],
        "script": [f"{root}/evil.sh"],
        "loader": [LOADER, "/usr/bin/touch", f"{root}/pwned-loader"],
    }


def markers(*folders: Path) -> list[str]:
    return sorted(p.name for folder in folders for p in folder.rglob("pwned*"))


def hostile_shell(root: Path, **settings: object) -> ShellTool:
    allowed = [*PRESENT, *(p for p in OTHERS if shutil.which(p)), sys.executable]
    return ShellTool(
        root, allowed_programs=allowed, kernel_sandbox="required", default_timeout=20,
        read_paths=["/usr/bin/gettext.sh"],
        env={"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a",
             "GIT_COMMITTER_EMAIL": "a@b", "SHELL": "/bin/sh",
             "FILTER_BRANCH_SQUELCH_WARNING": "1"},
        **settings,  # type: ignore[arg-type]
    )  # fmt: skip


def run(shell: ShellTool, command: list[str] | str, stdin: str | None = None) -> dict[str, object]:
    result = shell.execute("execute", command=command, stdin=stdin)
    assert result.success, result
    return dict(result.unwrap())


def through(runner: str, command: list[str]) -> list[str]:
    """``command`` run by ``runner`` (``xargs`` adds what it reads, ``x``, as an argument)."""
    if runner == "script":
        return ["script", "-qec", " ".join(command), "typescript"]
    return [runner, *RUNNERS[runner], *command]


@pytest.mark.parametrize("target", ["touch", "script", "loader"])
@pytest.mark.parametrize("runner", PRESENT)
def test_a_runner_runs_no_program_that_is_not_allowed(root: Path, runner: str, target: str) -> None:
    command = targets(root)[target]
    out = run(hostile_shell(root), through(runner, command), stdin="x\n")
    assert out["sandbox"] == "landlock"
    assert markers(root) == [], out


@pytest.mark.parametrize("runner", PRESENT)
def test_a_runner_still_runs_an_allowed_program(root: Path, runner: str) -> None:
    """The control of the test above: the runner works in the sandbox, so what stopped the
    other program was the kernel's allow-list."""
    if runner == "script":
        pytest.skip("script needs a pseudo-terminal, which the sandbox does not open")
    command = ["sh", "-c", f"echo > {root}/ok-control"]
    out = run(hostile_shell(root), through(runner, command), stdin="x\n")
    assert (root / "ok-control").exists(), out


def git_repo(shell: ShellTool, root: Path) -> None:
    for command in (["git", "init", "-q"], ["git", "add", "a.txt"], ["git", "commit", "-qm", "1"]):
        assert run(shell, command)["exit_code"] == 0
    (root / "a.txt").write_text("alpha\ngamma\n")
    assert run(shell, ["git", "commit", "-qam", "2"])["exit_code"] == 0


def program_options(root: Path, command: list[str]) -> list[list[str]]:
    """Every way found of making an allowed program run another one."""
    line = " ".join(command)
    (root / "Makefile").write_text(f"all:\n\t{line}\nshell:\n\t@true\n")
    (root / "git-evil").symlink_to(root / "evil.sh")
    return [
        ["git", "-c", f"core.pager={line}", "-p", "log"],
        ["git", "-c", f"core.fsmonitor={line}", "status"],
        ["git", "-c", f"diff.external={line}", "diff", "HEAD~1"],
        ["git", "-c", f"alias.x=!{line}", "x"],
        ["git", "-c", "protocol.ext.allow=always", "ls-remote", f"ext::{line}"],
        ["git", "-c", f"core.sshCommand={line}", "ls-remote", "ssh://h/x"],
        ["git", "rebase", "-q", "-x", line, "HEAD~1"],
        ["git", "filter-branch", "-f", "--tree-filter", line, "HEAD"],
        ["git", "difftool", "-y", "-x", line, "HEAD~1"],
        ["git", f"--exec-path={root}", "evil"],
        ["make"],
        ["make", f"SHELL={command[0]}", "shell"],
        ["zip", "-T", "-TT", line, "out.zip", "a.txt"],
        ["find", ".", "-maxdepth", "0", "-exec", *command, ";"],
        ["sh", "-c", line],
        ["bash", "-c", f"exec {line}"],
        ["perl", "-e", f"exec '{line}' or exit 3"],
        [sys.executable, "-c", f"import os; os.execv({command[0]!r}, {command!r})"],
        [sys.executable, "-c", f"import subprocess; subprocess.run({command!r})"],
        [sys.executable, "-c", f"import os; os.system({line!r})"],
    ]


@pytest.mark.parametrize("target", ["touch", "script", "loader"])
def test_options_configuration_and_interpreters_run_no_program_that_is_not_allowed(
    root: Path, target: str
) -> None:
    shell = hostile_shell(root)
    git_repo(shell, root)
    attempts = program_options(root, targets(root)[target])
    for argv in attempts:
        if shutil.which(argv[0]) is None:
            continue
        run(shell, argv)
        assert markers(root) == [], argv


def test_shell_strings_run_only_the_allowed_programs(root: Path) -> None:
    shell = ShellTool(root, allow_shell=True, allowed_programs=["echo", "cat"])
    out = run(shell, f"echo hi > b.txt; cat b.txt; /usr/bin/touch {root}/pwned; {root}/evil.sh")
    assert out["stdout"] == "hi\n" and "Permission denied" in str(out["stderr"])
    assert markers(root) == []


def test_writes_outside_the_root_fail_whatever_the_option(root: Path, outside: Path) -> None:
    shell = hostile_shell(root)
    git_repo(shell, root)
    (root / "b.txt").write_text("other\n")
    (outside / "kept.txt").write_text("kept\n")
    (root / "link").symlink_to(outside)
    attempts = [
        ["git", "diff", "--no-index", f"--output={outside}/pwned-diff", "a.txt", "b.txt"],
        ["git", "diff", "--no-index", "--output=link/pwned-link", "a.txt", "b.txt"],
        ["git", "format-patch", "-o", str(outside), "HEAD~1"],
        ["sh", "-c", f"echo x > {outside}/pwned-sh"],
        ["sh", "-c", f"echo x >> {outside}/kept.txt"],
        [sys.executable, "-c", f"open({str(outside / 'pwned-py')!r}, 'w')"],
        [sys.executable, "-c", f"import os; os.rename('b.txt', {str(outside / 'pwned-mv')!r})"],
        [sys.executable, "-c", f"import os; os.truncate({str(outside / 'kept.txt')!r}, 0)"],
        [sys.executable, "-c", f"import os; os.mkdir({str(outside / 'pwned-dir')!r})"],
        ["zip", f"{outside}/pwned.zip", "a.txt"],
        ["find", ".", "-maxdepth", "0", "-fprint", f"{outside}/pwned-find"],
    ]
    for argv in attempts:
        if shutil.which(argv[0]) is not None:
            run(shell, argv)
    assert markers(outside) == []
    assert (outside / "kept.txt").read_text() == "kept\n"
    assert (root / "b.txt").exists()
    diffed = run(shell, ["git", "diff", "--no-index", "--output=d.patch", "a.txt", "b.txt"])
    assert diffed["exit_code"] == 1 and "+other" in (root / "d.patch").read_text()


def test_other_processes_and_the_users_files_are_unreadable(root: Path) -> None:
    shell = hostile_shell(root)
    for path in ("/proc/1/environ", f"/proc/{os.getpid()}/environ", f"/proc/{os.getppid()}/cmdline",
                 "/proc/1/cmdline", os.path.expanduser("~/.bashrc"), "/etc/shadow"):  # fmt: skip
        out = run(shell, ["cat", path] if shutil.which("cat") else [sys.executable, path])
        assert out["exit_code"] != 0 and out["stdout"] == "", (path, out)
    listed = run(shell, [sys.executable, "-c", "import os; print(len(os.listdir('/proc')))"])
    assert listed["exit_code"] != 0
    assert "Name:\tcat" in str(run(shell, ["cat", "/proc/self/status"])["stdout"])
    own = run(shell, ["sh", "-c", "head -c 5 /proc/$$/environ"])  # the shell's own entry
    assert own["exit_code"] == 0 and len(str(own["stdout"])) == 5


def test_signals_and_abstract_sockets_do_not_leave_the_sandbox(root: Path) -> None:
    if _landlock.abi() < 6:
        pytest.skip("scoping needs Landlock ABI 6")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    name = f"toolrig-test-{os.getpid()}"
    listener.bind("\0" + name)
    listener.listen()
    with listener:
        code = (
            "import os, socket, sys\n"
            "try:\n    os.kill(int(sys.argv[1]), 0); print('signalled')\n"
            "except PermissionError: print('no signal')\n"
            "s = socket.socket(socket.AF_UNIX)\n"
            "try:\n    s.connect('\\0' + sys.argv[2]); print('connected')\n"
            "except PermissionError: print('no socket')\n"
        )
        # with network, so that Landlock's scoping (not the socket filter) is what refuses
        shell = hostile_shell(root, network=True)
        out = run(shell, [sys.executable, "-c", code, str(os.getpid()), name])
    assert out["stdout"] == "no signal\nno socket\n", out


@pytest.fixture
def tcp_listener() -> Iterator[tuple[int, list[bytes]]]:
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(10)
    received: list[bytes] = []

    def serve() -> None:
        try:
            conn, _ = server.accept()
        except OSError:
            return
        with conn:
            received.append(conn.recv(100))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1], received
    server.close()
    thread.join(5)


def test_tcp_only_with_network(root: Path, tcp_listener: tuple[int, list[bytes]]) -> None:
    port, received = tcp_listener
    code = (
        "import socket, sys\n"
        "try:\n    s = socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=5)\n"
        "except PermissionError as exc:\n    print('refused', exc.errno); sys.exit(1)\n"
        "s.sendall(b'hello'); s.close(); print('sent')\n"
    )
    closed = run(hostile_shell(root), [sys.executable, "-c", code, str(port)])
    assert closed["stdout"] == "refused 13\n" and received == [], closed
    bound = run(
        hostile_shell(root),
        [sys.executable, "-c", "import socket; socket.create_server(('127.0.0.1', 0))"],
    )
    assert bound["exit_code"] != 0
    opened = run(hostile_shell(root, network=True), [sys.executable, "-c", code, str(port)])
    assert opened["stdout"] == "sent\n", opened


def test_no_udp_and_no_unix_socket_without_network(tmp_path: Path, root: Path) -> None:
    """Landlock covers TCP only: UDP and Unix sockets by path are closed by the seccomp filter
    applied beside it, while a socket pair (no address) still works."""
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    udp.settimeout(0.5)
    path = tmp_path / "daemon.sock"
    unix = socket.socket(socket.AF_UNIX)
    unix.bind(str(path))
    unix.listen()
    code = (
        "import socket, sys\n"
        "for family, kind, address in ((socket.AF_INET, socket.SOCK_DGRAM, ('127.0.0.1', "
        "int(sys.argv[1]))), (socket.AF_UNIX, socket.SOCK_STREAM, sys.argv[2])):\n"
        "    try:\n"
        "        s = socket.socket(family, kind); s.connect(address); s.send(b'x'); print('sent')\n"
        "    except PermissionError:\n        print('refused')\n"
        "a, b = socket.socketpair(); a.send(b'ok'); print(b.recv(2).decode())\n"
    )
    argv = [sys.executable, "-c", code, str(udp.getsockname()[1]), str(path)]
    with udp, unix:
        closed = run(hostile_shell(root), argv)
        assert closed["stdout"] == "refused\nrefused\nok\n", closed
        with pytest.raises(TimeoutError):
            udp.recv(10)
        opened = run(hostile_shell(root, network=True), argv)
        assert opened["stdout"] == "sent\nsent\nok\n", opened
        assert udp.recv(10) == b"x"


def test_the_documented_uses_still_work(root: Path) -> None:
    shell = hostile_shell(root)
    git_repo(shell, root)
    (root / "a.txt").write_text("changed\n")
    assert "modified:   a.txt" in str(run(shell, ["git", "status"])["stdout"])
    assert run(shell, ["git", "log", "--oneline"])["stdout"].count("\n") == 2  # type: ignore[union-attr]
    assert "+changed" in str(run(shell, ["git", "diff"])["stdout"])
    assert "evil.sh" in str(run(shell, ["ls"])["stdout"])
    assert run(shell, ["cat", "a.txt"])["stdout"] == "changed\n"
    assert run(shell, ["grep", "-c", "hang", "a.txt"])["stdout"] == "1\n"
    (root / "sub").mkdir()
    (root / "sub" / "job.py").write_text(
        "import json, pathlib, tempfile\n"
        "pathlib.Path('out.json').write_text(json.dumps({'ok': True}))\n"
        "with tempfile.NamedTemporaryFile() as f: f.write(b'x')\n"
        "print('done')\n"
    )
    done = shell.execute("execute", command=[sys.executable, "job.py"], cwd="sub").unwrap()
    assert done["stdout"] == "done\n", done
    assert (root / "sub" / "out.json").read_text() == '{"ok": true}'


def test_sed_awk_and_grep_on_files_in_the_root(root: Path) -> None:
    shell = ShellTool(
        root, allowed_programs=["sed", "awk", "grep", "ls"], kernel_sandbox="required"
    )
    assert run(shell, ["sed", "s/alpha/omega/", "a.txt"])["stdout"] == "omega\nbeta\n"
    assert run(shell, ["sed", "-i", "s/beta/delta/", "a.txt"])["exit_code"] == 0
    assert (root / "a.txt").read_text() == "alpha\ndelta\n"
    assert run(shell, ["awk", "{ print NR, $0 }", "a.txt"])["stdout"] == "1 alpha\n2 delta\n"
    assert run(shell, ["grep", "-rn", "delta", "."])["stdout"] == "./a.txt:2:delta\n"
    listed = run(shell, ["ls", "-la"])
    assert "a.txt" in str(listed["stdout"]) and listed["exit_code"] == 0


def test_python_runs_pytest_on_a_project_in_the_root(root: Path) -> None:
    (root / "test_x.py").write_text(
        "def test_ok(tmp_path):\n    (tmp_path / 'f').write_text('x')\n"
    )
    shell = ShellTool(root, allowed_programs=[sys.executable], kernel_sandbox="required",
                      default_timeout=60)  # fmt: skip
    out = run(shell, [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "test_x.py"])
    assert out["exit_code"] == 0 and "1 passed" in str(out["stdout"]), out


def test_required_refuses_a_kernel_without_landlock(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An older kernel cannot run here: its answer (no Landlock) is what is replaced."""
    monkeypatch.setattr(_landlock, "abi", lambda: 0)
    with pytest.raises(ValueError, match="Landlock ABI 4"):
        ShellTool(root, allowed_programs=["ls"], kernel_sandbox="required")
    fallback = ShellTool(root, allowed_programs=["ls"])
    assert run(fallback, ["ls"])["sandbox"] == "lists"
    with pytest.raises(ValueError, match="would allow every program"):
        ShellTool(root, allowed_programs=["ls", "env"])


def test_without_an_allow_list_writes_and_tcp_are_still_confined(
    root: Path, outside: Path, tcp_listener: tuple[int, list[bytes]]
) -> None:
    shell = ShellTool(root, default_timeout=20)
    out = run(shell, ["sh", "-c", f"/usr/bin/id -u; touch ok; touch {outside}/pwned"])
    assert out["stdout"] == f"{os.getuid()}\n" and (root / "ok").exists()
    assert markers(outside) == []
    port, received = tcp_listener
    code = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5)"
    assert run(shell, [sys.executable, "-c", code])["exit_code"] != 0 and received == []
    assert shell.kernel is not None and stat.S_ISDIR(os.stat(shell.kernel.temp_dir()).st_mode)
    tmp = run(shell, [sys.executable, "-c", "import tempfile; print(tempfile.mkstemp()[1])"])
    assert str(tmp["stdout"]).startswith(shell.kernel.temp_dir())


def test_the_same_options_run_an_allowed_program(root: Path) -> None:
    """The control of the test above: with an allowed program as the command, each way runs
    it, so the kernel is what refused. Not controlled: the pager (git starts it only for a
    terminal), ``--exec-path`` (its helper is the script) and ``make SHELL=``."""
    shell = hostile_shell(root)
    git_repo(shell, root)
    made = root / "ok-control"
    missed = []
    find = str(shutil.which("find"))
    for argv in program_options(root, [find, str(root / "a.txt"), "-fprint", str(made)]):
        if shutil.which(argv[0]) is None or "-p" in argv or "shell" in argv:
            continue
        if any(arg.startswith("--exec-path") for arg in argv):
            continue
        run(shell, argv)
        if not made.exists():
            missed.append(" ".join(argv)[:40])
        made.unlink(missing_ok=True)
    assert missed == [], missed


def test_an_allowed_program_under_the_root_is_never_run_to_build_the_rules(
    root: Path, outside: Path
) -> None:
    """The rules of a program are found by running it (``git --exec-path``, a Python's paths)
    only outside the root: one under it may have been rewritten by a command, and would run
    unconfined."""
    for name in ("python3", "git"):
        (root / name).write_text(f"#!/bin/sh\ntouch {outside}/pwned-{name}\necho ran\n")
        (root / name).chmod(0o755)
    shell = ShellTool(root, allowed_programs=["./python3", "./git"], kernel_sandbox="required")
    out = run(shell, ["./python3"])
    assert markers(outside) == []
    assert out["stdout"] == "ran\n" and "Permission denied" in str(out["stderr"])
    assert "Permission denied" in str(run(shell, ["./git"])["stderr"])
    assert markers(outside) == []


def test_the_description_tells_the_model_what_is_confined(root: Path) -> None:
    confined = ShellTool(root, allowed_programs=["ls"]).spec.description
    assert "run only the allowed programs" in confined and "have no network" in confined
    opened = ShellTool(root, network=True).spec.description
    assert "write only inside the workspace" in opened and "may use the network" in opened
    assert "not confined" in ShellTool(root, kernel_sandbox="off").spec.description
