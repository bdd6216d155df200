"""A small supervisor between the shell tool and a command, so that every descendant dies.

Killing the command's process group is not enough: a descendant that called ``setsid`` (or
``setpgid``) has left the group, and a background child left running after a normal exit keeps
going. On Linux the command is started by a short Python program (`supervisor_source`, run with
``python -I -S``, about 20 ms) that makes itself a *child subreaper*
(``prctl(PR_SET_CHILD_SUBREAPER)``): every orphaned descendant, whichever session or group it
moved to, is re-parented to it rather than to init. When the command exits, or when the tool
asks (``SIGTERM``: timeout, too much output, cancellation), or when the tool's own process dies
(``PR_SET_PDEATHSIG``), it kills every process below it, found through ``/proc``, round after
round until none is left, reaps them, and reports the command's exit status on a pipe.

Given Landlock rules (see ``_confine``), the supervisor forks, and the child restricts itself
with them before ``exec``: the command and all it starts are confined, while the supervisor,
outside the sandbox, still sees and kills them. A child the kernel refuses to restrict never
runs the command.

Elsewhere (macOS, or no ``/proc``) the command runs directly in a new process group, which is
killed whole; a descendant that left the group escapes there (see ``docs/tools.md``). A
descendant may also escape by asking another service to start a program (``systemd-run``,
``at``, ``ssh``): only the operating-system user the tool runs as limits that.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Sequence
from typing import Final

__all__ = ["supervised", "supervisor_available", "supervisor_source"]

_BODY: Final = r"""
import os, signal, sys, time

class Stop(Exception):
    pass

class Refused(Exception):
    pass

DEFAULTS = (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGTERM, signal.SIGINT, signal.SIGHUP)

def spawn(argv, rules):
    if rules is None:
        return os.posix_spawnp(argv[0], argv, os.environ, setsigdef=DEFAULTS)
    (version, exec_read, no_net, scoped), paths = rules
    handled = fs_rights(version) if exec_read else WRITE
    if exec_read:
        paths.append((READ, "/proc/self"))
    # found before the fork: once restricted, Python can no longer import (os.execvpe does)
    found = [argv[0]] if "/" in argv[0] else [d + "/" + argv[0] for d in os.get_exec_path()]
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        step, code = "L", 0
        try:
            os.close(r)
            for signum in DEFAULTS:
                signal.signal(signum, signal.SIG_DFL)
            restrict(version, paths, [], handled=handled, handle_net=bool(no_net), scoped=scoped)
            if no_net:
                deny_sockets()
            step, code = "E", 2
            for path in found:
                try:
                    os.execve(path, argv, os.environ)
                except OSError as exc:
                    if exc.errno not in (2, 20) or code == 2:
                        code = exc.errno or 0
        except BaseException as exc:
            code = getattr(exc, "errno", 0) or 0
        os.write(w, ("%s%d" % (step, code)).encode())
        os._exit(127)
    os.close(w)
    failed = os.read(r, 64).decode()
    os.close(r)
    if failed:
        os.waitpid(pid, 0)
        raise Refused(failed)
    return pid

def stop(signum, frame):
    raise Stop()

def descendants(me):
    children = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/" + name + "/stat", "rb") as f:
                data = f.read()
            ppid = int(data[data.rindex(b")") + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(name))
    found, todo = [], [me]
    while todo:
        for child in children.get(todo.pop(), ()):
            found.append(child)
            todo.append(child)
    return found

def reap():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return

def kill_all(me):
    deadline = time.monotonic() + 5.0
    while time.monotonic() < deadline:
        found = descendants(me)
        if not found:
            return
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        reap()
        time.sleep(0.005)

def main():
    status_fd, parent, argv = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
    rules = None
    if argv[:1] == ["--landlock"]:
        header, count = argv[1].split(","), int(argv[2])
        paths = [rule.split(":", 1) for rule in argv[3:3 + count]]
        rules = [int(v) for v in header], [(int(r), p) for r, p in paths]
        argv = argv[3 + count:]
    os.set_inheritable(status_fd, False)
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, stop)
    me = os.getpid()
    code = ""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
        libc.prctl(1, int(signal.SIGTERM), 0, 0, 0)  # PR_SET_PDEATHSIG
        if os.getppid() != parent:
            raise Stop()
        try:
            child = spawn(argv, rules)
        except OSError as exc:
            code = "E%d" % (exc.errno or 0)
        except Refused as exc:
            code = str(exc)
        else:
            while True:
                pid, status = os.waitpid(-1, 0)
                if pid == child:
                    code = str(os.waitstatus_to_exitcode(status))
                    break
    except Stop:
        pass
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(signum, signal.SIG_IGN)
        kill_all(me)
        os.write(status_fd, code.encode() + b"\n")
    os._exit(0)

main()
"""
"""The supervisor's own part; `supervisor_source` puts the Landlock module's source before it.
``argv`` is ``status_fd parent_pid [--landlock header count rules...] program args...``; it
writes the program's exit code (negative for a signal), ``E<errno>`` when it could not start,
``L<errno>`` when the kernel refused the sandbox (the program is then not run), or nothing when
it was stopped, then a newline, to ``status_fd``."""


@functools.cache
def supervisor_source() -> str:
    """The supervisor's whole source: `_landlock` (standard library only) and `_BODY`. With
    rules, the command is started by ``fork``: the child restricts itself, then ``exec``s."""
    with open(os.path.join(os.path.dirname(__file__), "_landlock.py"), encoding="utf-8") as f:
        return f.read() + "\n" + _BODY


def supervisor_available() -> bool:
    """Whether commands can run under `SUPERVISOR` here (Linux with ``/proc``)."""
    return sys.platform.startswith("linux") and bool(sys.executable) and os.path.isdir("/proc")


def supervised(argv: list[str], status_fd: int, rules: Sequence[str] = ()) -> list[str]:
    """The command line that runs ``argv`` under the supervisor, reporting on ``status_fd``,
    restricted by ``rules`` (`Confinement.argv`) when given."""
    source = supervisor_source()
    return [
        sys.executable,
        "-I",
        "-S",
        "-c",
        source,
        str(status_fd),
        str(os.getpid()),
        *rules,
        *argv,
    ]
