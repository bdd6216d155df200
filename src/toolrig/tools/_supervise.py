"""A small supervisor between the shell tool and a command, so that every descendant dies.

Killing the command's process group is not enough: a descendant that called ``setsid`` (or
``setpgid``) has left the group, and a background child left running after a normal exit keeps
going. On Linux the command is started by a short Python program (`SUPERVISOR`, run with
``python -I -S``, about 20 ms) that makes itself a *child subreaper*
(``prctl(PR_SET_CHILD_SUBREAPER)``): every orphaned descendant, whichever session or group it
moved to, is re-parented to it rather than to init. When the command exits, or when the tool
asks (``SIGTERM``: timeout, too much output, cancellation), or when the tool's own process dies
(``PR_SET_PDEATHSIG``), it kills every process below it, found through ``/proc``, round after
round until none is left, reaps them, and reports the command's exit status on a pipe.

Elsewhere (macOS, or no ``/proc``) the command runs directly in a new process group, which is
killed whole; a descendant that left the group escapes there (see ``docs/tools.md``). A
descendant may also escape by asking another service to start a program (``systemd-run``,
``at``, ``ssh``): only the operating-system user the tool runs as limits that.
"""

from __future__ import annotations

import os
import sys
from typing import Final

__all__ = ["SUPERVISOR", "supervised", "supervisor_available"]

SUPERVISOR: Final = r"""
import os, signal, sys, time

class Stop(Exception):
    pass

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
            child = os.posix_spawnp(
                argv[0], argv, os.environ,
                setsigdef=(signal.SIGPIPE, signal.SIGXFSZ, signal.SIGTERM, signal.SIGINT),
            )
        except OSError as exc:
            code = "E%d" % (exc.errno or 0)
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
"""The supervisor's source: ``argv`` is ``status_fd parent_pid program args...``; it writes the
program's exit code (negative for a signal), ``E<errno>`` when it could not start, or nothing
when it was stopped, then a newline, to ``status_fd``."""


def supervisor_available() -> bool:
    """Whether commands can run under `SUPERVISOR` here (Linux with ``/proc``)."""
    return sys.platform.startswith("linux") and bool(sys.executable) and os.path.isdir("/proc")


def supervised(argv: list[str], status_fd: int) -> list[str]:
    """The command line that runs ``argv`` under the supervisor, reporting on ``status_fd``."""
    return [sys.executable, "-I", "-S", "-c", SUPERVISOR, str(status_fd), str(os.getpid()), *argv]
