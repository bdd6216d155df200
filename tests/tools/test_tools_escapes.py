"""The shell tool leaves nothing running: a child that called ``setsid`` (it left the process
group) dies on a timeout and after a normal exit, as do double-forked daemons and a fork loop;
a NUL in an argument is refused as such."""

from __future__ import annotations

import os
import sys
import time
import uuid
from pathlib import Path

import pytest

from toolrig.tools import ShellTool
from toolrig.tools._supervise import supervisor_available

pytestmark = pytest.mark.skipif(
    not supervisor_available(), reason="the supervisor needs Linux and /proc"
)


def survivors(marker: str, wait: float = 2.0) -> list[int]:
    """Processes whose command line holds ``marker``, after waiting up to ``wait`` s for them
    to go."""
    deadline = time.monotonic() + wait
    while True:
        found = []
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/cmdline", "rb") as handle:
                    cmdline = handle.read()
                with open(f"/proc/{name}/stat", "rb") as handle:
                    state = handle.read().rsplit(b")", 1)[1].split()[0]
            except OSError:
                continue
            if marker.encode() in cmdline and state != b"Z":
                found.append(int(name))
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.02)


@pytest.fixture
def shell(tmp_path: Path) -> ShellTool:
    return ShellTool(tmp_path, allow_shell=True, default_timeout=10)


def _seconds() -> str:
    """A unique sleep length, so that the test finds exactly its own processes."""
    return f"3{uuid.uuid4().int % 10**6:06d}"


ESCAPES = {
    "setsid": "setsid sleep {s} &",
    "setsid, output closed": "setsid sleep {s} >/dev/null 2>&1 </dev/null &",
    "nohup": "nohup sleep {s} >/dev/null 2>&1 &",
    "double fork": "(sh -c 'sleep {s} &' &)",
    "setsid double fork": "setsid sh -c 'sleep {s} & exit 0' &",
    "new group": "python3 -c 'import os,time; os.setpgid(0,0); time.sleep({s})' &",
    "python daemon": (
        "python3 -c 'import os,time\nif os.fork(): os._exit(0)\nos.setsid()\n"
        "if os.fork(): os._exit(0)\nos.closerange(0, 1024)\ntime.sleep({s})' &"
    ),
}


@pytest.mark.parametrize("how", sorted(ESCAPES))
def test_a_detached_child_dies_on_timeout(shell: ShellTool, how: str) -> None:
    seconds = _seconds()
    command = ESCAPES[how].format(s=seconds) + "\nsleep 60"
    started = time.monotonic()
    result = shell.execute("execute", command=command, timeout=0.5)
    assert result.code == "timeout"
    assert time.monotonic() - started < 8
    assert survivors(seconds) == []


@pytest.mark.parametrize("how", sorted(ESCAPES))
def test_a_detached_child_dies_when_the_command_exits(shell: ShellTool, how: str) -> None:
    seconds = _seconds()
    started = time.monotonic()
    command = ESCAPES[how].format(s=seconds) + "\necho done"
    out = shell.execute("execute", command=command).unwrap()
    assert out["exit_code"] == 0 and out["stdout"] == "done\n"
    assert time.monotonic() - started < 8
    assert survivors(seconds) == []


def test_a_fork_loop_is_stopped_whole(shell: ShellTool) -> None:
    seconds = _seconds()
    command = f"while :; do setsid sleep {seconds} & sleep 0.01; done"
    result = shell.execute("execute", command=command, timeout=0.5)
    assert result.code == "timeout"
    assert survivors(seconds) == []


def test_exit_codes_and_signals_come_through(shell: ShellTool) -> None:
    assert shell.execute("execute", command="exit 7").unwrap()["exit_code"] == 7
    assert shell.execute("execute", command="kill -9 $$").unwrap()["exit_code"] == -9
    missing = shell.execute("execute", command=["no-such-program-xyz"])
    assert missing.code == "not_found"


@pytest.mark.parametrize(
    "command", [["echo", "a\x00b"], ["\x00"], ["ls", "-la", "x\x00"], "echo a\x00b"]
)
def test_a_nul_in_an_argument_is_invalid(shell: ShellTool, command: list[str] | str) -> None:
    result = shell.execute("execute", command=command)
    assert result.code == "invalid_arguments", result
    assert "NUL" in result.error.message


def test_the_tool_process_dying_takes_the_command_along(tmp_path: Path) -> None:
    """If the process running the tool is killed, the supervisor kills the command's tree."""
    seconds = _seconds()
    script = (
        "import sys; from toolrig.tools import ShellTool\n"
        f"ShellTool(sys.argv[1], allow_shell=True).execute('execute', "
        f"command='setsid sleep {seconds} & sleep 60', timeout=60)\n"
    )
    import subprocess

    host = subprocess.Popen([sys.executable, "-c", script, str(tmp_path)])
    try:
        deadline = time.monotonic() + 10
        while not survivors(seconds, wait=0) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert survivors(seconds, wait=0), "the command never started"
    finally:
        host.kill()
        host.wait()
    assert survivors(seconds, wait=5) == []
