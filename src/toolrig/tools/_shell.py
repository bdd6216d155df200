"""``shell``: run a command in the sandbox folder, with a time limit and output limits.

Commands are argument lists run without a shell, so ``;``, ``&&``, ``|`` or ``$(...)`` inside an
argument are plain text. A shell string is accepted only when the tool was created with
``allow_shell=True``. The command runs in its own process group under a small supervisor (see
``_supervise``): on a timeout, on too much output, when the call is cancelled, and when the
command exits, every process it started is killed, including those that left the group with
``setsid``. Where the supervisor cannot run (not Linux), the process group is killed instead.

Where Linux offers Landlock (ABI 4+), the command is confined by the kernel before it starts
(see ``_confine``): only the allowed programs run, writes stay under the root, reads under the
root and system paths, and there is no network unless ``network=True``. Elsewhere, or with
``kernel_sandbox="off"``, only the argument checks of ``_shell_policy`` apply.
"""

from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from contextlib import suppress
from typing import IO, Final, Literal

from typing_extensions import TypedDict

from toolrig.core.context._context import ToolContext
from toolrig.core.define._base import BaseTool, action
from toolrig.core.model._errors import ErrorCode, ToolError
from toolrig.core.model._spec import ToolAnnotations
from toolrig.tools._confine import KernelSandbox, kernel_sandbox_for
from toolrig.tools._sandbox import Sandbox
from toolrig.tools._shell_errors import read_status, start_error, stopped
from toolrig.tools._shell_policy import GIT_ENV, check_allowed, harden, vet
from toolrig.tools._supervise import supervised, supervisor_available

__all__ = ["ShellTool"]

DEFAULT_ENV: Final = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "USER")
_CHUNK: Final = 65536
_GRACE: Final = 0.5
_STOP_WAIT: Final = 3.0
"""Seconds the supervisor gets to kill everything before its whole group is killed instead."""


class ExecuteOutput(TypedDict):
    exit_code: int | None
    """The exit code; negative when killed by a signal; ``None`` if it never ended by itself."""
    stdout: str
    stderr: str
    stdout_bytes: int
    stderr_bytes: int
    truncated: bool
    """True when stdout or stderr was cut to the output limit (a marker shows where)."""
    duration_s: float
    sandbox: str
    """``landlock`` when the kernel confined the command; ``lists`` when only the argument
    checks of ``allowed_programs`` applied and ``none`` when nothing did (no Landlock here,
    or ``kernel_sandbox="off"``)."""


class _Capture:
    """Reads one pipe on a thread, keeping the head and tail up to a limit and counting all."""

    def __init__(self, pipe: IO[bytes], keep: int, on_flood: threading.Event, flood: int) -> None:
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0
        self._keep = keep
        self._flood = flood
        self._on_flood = on_flood
        self._thread = threading.Thread(target=self._run, args=(pipe,), daemon=True)
        self._thread.start()

    def _run(self, pipe: IO[bytes]) -> None:
        half = self._keep // 2
        with pipe:
            while chunk := pipe.read1(_CHUNK):  # type: ignore[attr-defined]
                self.total += len(chunk)
                room = half - len(self.head)
                if room > 0:
                    self.head += chunk[:room]
                    chunk = chunk[room:]
                if chunk:
                    self.tail += chunk
                    if len(self.tail) > self._keep - half:
                        del self.tail[: len(self.tail) - (self._keep - half)]
                if self.total > self._flood:
                    self._on_flood.set()

    def join(self, timeout: float) -> bool:
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def text(self) -> tuple[str, bool]:
        head = self.head.decode("utf-8", errors="replace")
        cut = self.total - len(self.head) - len(self.tail)
        if cut <= 0:
            return head + self.tail.decode("utf-8", errors="replace"), False
        tail = self.tail.decode("utf-8", errors="replace")
        return f"{head}\n[... {cut:,} bytes cut ...]\n{tail}", True


class ShellTool(BaseTool):
    """Run a program in the workspace folder and return its exit code, stdout and stderr."""

    name = "shell"
    tags = ("shell", "local")
    layer = "tools"
    annotations = ToolAnnotations(
        read_only=False, destructive=True, idempotent=False, open_world=True
    )

    def __init__(
        self,
        root: str | os.PathLike[str] | Sandbox,
        *,
        allow_shell: bool = False,
        allowed_programs: Sequence[str] | None = None,
        pass_env: Sequence[str] = DEFAULT_ENV,
        env: Mapping[str, str] | None = None,
        default_timeout: float = 60.0,
        max_timeout: float = 600.0,
        max_output_bytes: int = 50_000,
        kill_output_bytes: int = 20_000_000,
        kernel_sandbox: Literal["auto", "required", "off"] = "auto",
        network: bool = False,
        read_paths: Sequence[str] = (),
    ) -> None:
        """``allowed_programs``: names (looked up on ``PATH``) or paths a command may start
        with; ``None`` allows any. ``pass_env``: variables copied from this process's
        environment; ``env``: variables set for every command. ``max_output_bytes``: what is
        kept of each stream; ``kill_output_bytes``: output after which the command is killed.

        ``kernel_sandbox``: confine every command with Landlock (Linux, ABI 4 or later): it
        runs only the allowed programs, writes only under the root, reads only the root and
        system files, and has TCP only with ``network=True``. ``"auto"`` falls back to the
        argument checks alone where the kernel lacks it, ``"required"`` refuses to create the
        tool there, ``"off"`` never uses it. ``read_paths``: more folders commands may read.
        """
        super().__init__()
        self.sandbox = root if isinstance(root, Sandbox) else Sandbox(root)
        self.kernel: KernelSandbox | None = kernel_sandbox_for(
            kernel_sandbox,
            root=str(self.sandbox.root),
            network=network,
            read_paths=tuple(read_paths),
        )
        if allow_shell and allowed_programs is not None and self.kernel is None:
            raise ValueError(
                "allowed_programs cannot be enforced on shell strings without the kernel "
                "sandbox: use allow_shell=False"
            )
        self.allow_shell = allow_shell
        if allowed_programs is not None and self.kernel is None:
            check_allowed(allowed_programs)
        self.allowed_programs = None if allowed_programs is None else tuple(allowed_programs)
        self.network = network
        self.kernel_sandbox = kernel_sandbox
        self.pass_env = tuple(pass_env)
        self.env = dict(env or {})
        self.default_timeout = default_timeout
        self.max_timeout = max_timeout
        self.max_output_bytes = max_output_bytes
        self.kill_output_bytes = kill_output_bytes
        said = self.spec.description + " " + self._confinement_sentence()
        self._install(self.spec.model_copy(update={"description": said}), self._bound)

    def _confinement_sentence(self) -> str:
        """What the model is told of the sandbox, so that it does not try what will fail."""
        if self.kernel is None:
            return "Commands are not confined by the kernel (its sandbox is off or missing here)."
        net = "may use the network" if self.network else "have no network"
        if self.allowed_programs is None:
            return f"Commands write only inside the workspace and {net} (kernel sandbox)."
        return (
            "Commands run only the allowed programs, read and write only inside the workspace "
            f"(and system files), and {net} (kernel sandbox)."
        )

    @action(
        name="execute",
        output_description="Exit code, stdout and stderr (cut with a marker when long).",
    )
    def run_command(
        self,
        command: list[str] | str,
        cwd: str = ".",
        timeout: float | None = None,
        stdin: str | None = None,
        ctx: ToolContext | None = None,
    ) -> ExecuteOutput:
        """Run a program in the workspace and return its exit code, stdout and stderr.

        Give the command as a list of arguments, program first, e.g. ["git", "status"] or
        ["python", "-m", "pytest", "-q"]. No shell is involved: quote nothing and use no
        pipes or `&&`. A single shell string is accepted only if this tool allows a shell.
        A non-zero exit code is a normal result, not an error.

        Args:
            command: The program and its arguments, as a list of strings.
            cwd: Working folder relative to the workspace root.
            timeout: Seconds before the command is killed (default and maximum are set by the
                tool).
            stdin: Text sent to the command's standard input.
        """
        argv = self._argv(command)
        folder = self.sandbox.resolve(cwd)
        found = self.sandbox.lstat(folder)
        if found is None or not stat.S_ISDIR(found.st_mode):
            raise ToolError(
                f"working folder `{cwd}` is not a folder in the workspace",
                code=ErrorCode.NOT_FOUND,
                hint="Use an existing folder relative to the workspace root, or `.`.",
            )
        limit = min(timeout or self.default_timeout, self.max_timeout)
        return self._run(argv, str(folder), limit, stdin, ctx)

    def _argv(self, command: list[str] | str) -> list[str]:
        parts = [command] if isinstance(command, str) else command
        for index, part in enumerate(parts):
            if "\x00" in part:
                raise ToolError(
                    f"argument {index} of the command contains a NUL character: {part!r}",
                    code=ErrorCode.INVALID_ARGUMENTS,
                    hint="Programs cannot receive NUL characters in arguments; remove it.",
                )
        if isinstance(command, str):
            if not self.allow_shell:
                raise ToolError(
                    "A shell command string is not allowed by this tool.",
                    code=ErrorCode.PERMISSION_DENIED,
                    hint='Give the command as a list of arguments, e.g. ["ls", "-la", "src"]; '
                    "run one program per call instead of pipes or `&&`.",
                )
            return ["/bin/sh", "-c", command]
        if not command or not command[0]:
            raise ToolError(
                "The command is empty.",
                code=ErrorCode.INVALID_ARGUMENTS,
                hint='Give the program first, e.g. ["ls", "-la"].',
            )
        if self.allowed_programs is not None and not self._allowed(command[0]):
            raise ToolError(
                f"Program `{command[0]}` is not allowed.",
                code=ErrorCode.PERMISSION_DENIED,
                hint=f"Allowed programs: {', '.join(self.allowed_programs)}.",
            )
        if self.allowed_programs is None:
            return list(command)
        return harden(list(command)) if self.kernel is not None else vet(list(command))

    def _allowed(self, program: str) -> bool:
        assert self.allowed_programs is not None
        if program in self.allowed_programs:
            return True
        if os.sep in program:
            return False
        found = shutil.which(program, path=self._environment().get("PATH"))
        return found is not None and found in self.allowed_programs

    def _environment(self, argv: Sequence[str] = ()) -> dict[str, str]:
        out = {k: os.environ[k] for k in self.pass_env if k in os.environ}
        if self.kernel is not None:
            out["TMPDIR"] = self.kernel.temp_dir()
        out.update(self.env)
        if argv and self.allowed_programs is not None and os.path.basename(argv[0]) == "git":
            out.update(GIT_ENV)
        return out

    def _sandbox_name(self) -> str:
        if self.kernel is not None:
            return "landlock"
        return "none" if self.allowed_programs is None else "lists"

    def _programs(self) -> list[str] | None:
        """The allowed programs as paths (names found on the commands' ``PATH``, relative
        paths from the root), ``/bin/sh`` too for shell strings; ``None``: any program."""
        if self.allowed_programs is None:
            return None
        path = self._environment().get("PATH")
        found = ["/bin/sh"] if self.allow_shell else []
        for program in self.allowed_programs:
            if os.sep not in program:
                located = shutil.which(program, path=path)
                if located is not None:
                    found.append(located)
            else:
                found.append(os.path.join(self.sandbox.root, program))
        return found

    def _run(
        self, argv: list[str], cwd: str, limit: float, stdin: str | None, ctx: ToolContext | None
    ) -> ExecuteOutput:
        started = time.monotonic()
        rules = () if self.kernel is None else self.kernel.rules(self._programs)
        status_r, status_w = os.pipe() if supervisor_available() else (-1, -1)
        try:
            proc = subprocess.Popen(
                argv if status_w < 0 else supervised(argv, status_w, rules),
                cwd=cwd,
                env=self._environment(argv),
                stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                close_fds=True,
                pass_fds=() if status_w < 0 else (status_w,),
            )
        except OSError as exc:
            raise start_error(argv, exc.errno) from None
        finally:
            if status_w >= 0:
                os.close(status_w)
        flood = threading.Event()
        assert proc.stdout is not None
        assert proc.stderr is not None
        out = _Capture(proc.stdout, self.max_output_bytes, flood, self.kill_output_bytes)
        err = _Capture(proc.stderr, self.max_output_bytes, flood, self.kill_output_bytes)
        if stdin is not None:
            threading.Thread(target=_feed, args=(proc, stdin), daemon=True).start()
        reason = self._wait(proc, started + limit, flood, ctx)
        if reason is not None:
            _stop(proc, supervised=status_r >= 0)
        exit_code: int | None = proc.wait()
        if status_r >= 0:
            exit_code = read_status(status_r, argv)
        # Whatever the command left running must not outlive it or hold pipes.
        if not (out.join(_GRACE) and err.join(_GRACE)):
            _kill_group(proc.pid)
            out.join(_GRACE)
            err.join(_GRACE)
        stdout, cut_out = out.text()
        stderr, cut_err = err.text()
        result = ExecuteOutput(
            exit_code=None if reason is not None else exit_code,
            stdout=stdout,
            stderr=stderr,
            stdout_bytes=out.total,
            stderr_bytes=err.total,
            truncated=cut_out or cut_err,
            duration_s=round(time.monotonic() - started, 3),
            sandbox=self._sandbox_name(),
        )
        if reason is not None:
            raise stopped(reason, argv, limit, self.kill_output_bytes, result)
        return result

    @staticmethod
    def _wait(
        proc: subprocess.Popen[bytes],
        deadline: float,
        flood: threading.Event,
        ctx: ToolContext | None,
    ) -> str | None:
        while True:
            try:
                proc.wait(timeout=0.05)
                return None
            except subprocess.TimeoutExpired:
                pass
            if flood.is_set():
                return "output"
            if ctx is not None and ctx.cancelled:
                return "cancelled"
            if time.monotonic() >= deadline:
                return "timeout"


def _feed(proc: subprocess.Popen[bytes], text: str) -> None:
    assert proc.stdin is not None
    try:
        with proc.stdin:
            proc.stdin.write(text.encode("utf-8"))
    except (BrokenPipeError, OSError):
        pass


def _kill_group(pgid: int) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _stop(proc: subprocess.Popen[bytes], *, supervised: bool) -> None:
    """Kill the command and everything it started: the supervisor does it when there is one
    (it alone knows the processes that left the group); its group is killed if it does not
    finish in time, or when there is no supervisor."""
    if supervised:
        with suppress(ProcessLookupError):
            proc.send_signal(signal.SIGTERM)
        with suppress(subprocess.TimeoutExpired):
            proc.wait(_STOP_WAIT)
            return
    _kill_group(proc.pid)
