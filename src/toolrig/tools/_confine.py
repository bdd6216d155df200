"""What a shell command may touch, as the Landlock rules its process applies before ``exec``.

From the shell tool's settings: the resolved allowed programs may be executed, with what they
need to start (the ELF interpreter, their shared libraries, a script's interpreter, git's exec
path, a Python's standard library and site-packages), computed once per program and cached;
the root and the tool's private temporary folder may be read and written; a short list of
system paths may be read (the shared-library folders, ``/usr/share``, chosen files of
``/etc``, ``/dev/null`` and the like); the command's own ``/proc/self`` may be read. Nothing else
is reachable: not another process's ``/proc`` entry, not the user's home, not ``/tmp``.
Without an allow-list, execution and reading are left as they are and only writing, the
network and scoping are restricted. ``network=False`` allows no TCP bind or connect (Landlock,
ABI 4) and, since Landlock covers TCP only, no new Unix, IP, netlink or packet socket at all
(a seccomp filter: UDP and Unix sockets by path are closed too); ABI 6 adds that no signal
and no abstract Unix socket reaches a process outside the sandbox.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import struct
import subprocess
import tempfile
import threading
import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from toolrig.tools import _landlock
from toolrig.tools._landlock import EXECUTE, READ, SCOPE_ABSTRACT_UNIX, SCOPE_SIGNAL, WRITE
from toolrig.tools._supervise import supervisor_available

__all__ = ["MIN_ABI", "Confinement", "KernelSandbox", "confinement", "kernel_sandbox_for"]

MIN_ABI: Final = 4
"""The lowest ABI that can keep every promise: execute/read/write (1), rename and link (2),
truncate (3), TCP (4). Scoping (6) is used where the kernel offers it."""

_ETC: Final = (
    "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "ld.so.preload", "localtime", "timezone",
    "passwd", "group", "nsswitch.conf", "hosts", "host.conf", "resolv.conf", "gai.conf",
    "services", "protocols", "networks", "locale.alias", "locale.conf", "default/locale",
    "mime.types", "magic", "magic.mime", "ssl", "ca-certificates", "ca-certificates.conf",
    "alternatives", "inputrc", "terminfo", "os-release", "debian_version", "lsb-release",
    "environment", "manpath.config", "papersize", "perl", "python3", "gitattributes",
)  # fmt: skip
"""Files of ``/etc`` programs read to start and to format output: not its secrets (shadow,
ssh keys, credentials) — which a root-owned tool could otherwise read."""
_SYSTEM_READ: Final = (
    "/usr/share", "/usr/lib/locale", "/usr/include", "/sys/devices/system/cpu",
    "/proc/cpuinfo", "/proc/meminfo", "/proc/stat", "/proc/loadavg", "/proc/filesystems",
    "/proc/sys/kernel/osrelease", "/proc/sys/vm/overcommit_memory",
)  # fmt: skip
_DEVICES: Final = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
_PYTHON_PATHS: Final = (
    "import json, sys, sysconfig; p = {*sysconfig.get_paths().values(), sys.prefix, "
    "sys.base_prefix}; print(json.dumps(sorted(p)))"
)
_LDD_TIMEOUT: Final = 10.0


def kernel_sandbox_for(
    mode: str, *, root: str, network: bool, read_paths: tuple[str, ...]
) -> KernelSandbox | None:
    """The kernel sandbox for a shell tool's settings, or ``None`` when it is ``"off"`` or
    (with ``"auto"``) missing here; ``"required"`` raises `ValueError` naming what is missing."""
    if mode not in ("auto", "required", "off"):
        raise ValueError(f"kernel_sandbox must be 'auto', 'required' or 'off', not {mode!r}")
    if mode == "off":
        return None
    version = _landlock.abi() if supervisor_available() else 0
    if version >= MIN_ABI:
        return KernelSandbox(abi=version, root=root, network=network, read_paths=read_paths)
    if mode == "required":
        offered = f"ABI {version}" if version else "no Landlock (or not Linux)"
        raise ValueError(
            f"kernel_sandbox='required' needs Landlock ABI {MIN_ABI} or later (Linux 6.7+); "
            f"this system offers {offered}. Use kernel_sandbox='auto' to fall back to the "
            "argument checks, which do not confine what an allowed program runs or writes."
        )
    return None


class KernelSandbox:
    """One shell tool's Landlock settings, its rules (built on first use, per set of
    programs) and its private temporary folder (``TMPDIR`` of its commands)."""

    __slots__ = ("__weakref__", "_built", "_lock", "_temp", "abi", "network", "read_paths", "root")

    def __init__(self, *, abi: int, root: str, network: bool, read_paths: tuple[str, ...]) -> None:
        self.abi = abi
        self.root = root
        self.network = network
        self.read_paths = read_paths
        self._lock = threading.Lock()
        self._built: dict[tuple[str, ...] | None, list[str]] = {}
        self._temp: str | None = None

    def temp_dir(self) -> str:
        """The tool's own temporary folder, made on first use and removed with the tool."""
        with self._lock:
            if self._temp is None:
                self._temp = tempfile.mkdtemp(prefix="toolrig-shell-")
                weakref.finalize(self, shutil.rmtree, self._temp, True)
            return self._temp

    def rules(self, programs: Callable[[], list[str] | None]) -> list[str]:
        """The supervisor's arguments for the allowed ``programs`` (resolved now, so a
        change of ``PATH`` is followed; the rules for one set are built once)."""
        found = programs()
        key = None if found is None else tuple(found)
        built = self._built.get(key)
        if built is None:
            built = confinement(
                abi=self.abi,
                root=self.root,
                programs=found,
                network=self.network,
                read_paths=self.read_paths,
                write_paths=(self.temp_dir(),),
            ).argv()
            self._built[key] = built
        return built


@dataclass(frozen=True, slots=True, kw_only=True)
class Confinement:
    """The rules for one tool, encoded for the supervisor that applies them (see `argv`)."""

    abi: int
    """The kernel's Landlock ABI, which decides the rights handled."""
    paths: tuple[tuple[int, str], ...]
    """``(rights, path)`` pairs: what is allowed beneath each file or folder."""
    handle_exec_read: bool
    """False without an allow-list: execution and reading are not restricted then."""
    network: bool
    """True when TCP is left open."""

    @property
    def scoped(self) -> int:
        """The IPC scoping applied (ABI 6 and later)."""
        return SCOPE_ABSTRACT_UNIX | SCOPE_SIGNAL if self.abi >= 6 else 0

    def argv(self) -> list[str]:
        """The arguments the supervisor reads: a header, then one ``rights:path`` per rule."""
        header = f"{self.abi},{int(self.handle_exec_read)},{int(not self.network)},{self.scoped}"
        return ["--landlock", header, str(len(self.paths))] + [
            f"{rights}:{path}" for rights, path in self.paths
        ]


def confinement(
    *,
    abi: int,
    root: str,
    programs: Iterable[str] | None,
    network: bool,
    read_paths: Sequence[str] = (),
    write_paths: Sequence[str] = (),
) -> Confinement:
    """The rules for a tool whose allowed programs resolve to ``programs`` (absolute paths;
    ``None``: any program), writing under ``root`` and ``write_paths``."""
    rules: dict[str, int] = {}

    def allow(path: str, rights: int) -> None:
        rules[path] = rules.get(path, 0) | rights

    for path in (root, *write_paths):
        allow(path, READ | WRITE)
    for device in _DEVICES:
        allow(device, READ | WRITE)
    if programs is not None:
        for path in _system_read():
            allow(path, READ)
        for path in read_paths:
            allow(os.path.realpath(path), READ)
        for program in programs:
            executable, readable = needs(os.path.abspath(program), root)
            for path in executable:
                allow(path, EXECUTE | READ)
            for path in readable:
                allow(path, READ)
    return Confinement(
        abi=abi,
        paths=tuple(sorted((rights, path) for path, rights in rules.items())),
        handle_exec_read=programs is not None,
        network=network,
    )


@functools.cache
def _system_read() -> tuple[str, ...]:
    return (*(os.path.join("/etc", name) for name in _ETC), *_SYSTEM_READ)


@functools.cache
def needs(given: str, root: str) -> tuple[frozenset[str], frozenset[str]]:
    """``(executable, readable)``: the real paths the program at ``given`` (an absolute path)
    needs to run, itself first: its ELF interpreter and libraries, or its script
    interpreter's; git's exec path; a Python's library folders (asked of the program as
    ``given``: a virtual environment's ``python`` is a link to the base one, and only the
    path it is started by tells it which environment it is in). A program under ``root``,
    which commands may have rewritten, is never run, not even by ``ldd``: only the ELF
    interpreter named in its header is added."""
    program = os.path.realpath(given)
    probe = not program.startswith(root.rstrip("/") + "/")
    executable, readable = {program}, set[str]()
    try:
        with open(program, "rb") as handle:
            head = handle.read(4096)
    except OSError:
        return frozenset(executable), frozenset()
    if head.startswith(b"#!"):
        for interpreter in _script_interpreters(head):
            more_exec, more_read = needs(interpreter, root)
            executable |= more_exec
            readable |= more_read
    elif head.startswith(b"\x7fELF") and not probe:
        executable |= _elf_interpreter(program)
    elif head.startswith(b"\x7fELF"):
        loader, libraries = _ldd(program)
        executable |= loader
        readable |= libraries | {os.path.dirname(lib) for lib in libraries}
    if not probe:
        return frozenset(executable), frozenset(readable)
    name = os.path.basename(given)
    if name == "git" or name.startswith("git-"):
        helpers = _output([program, "--exec-path"])
        if helpers:
            executable.add(os.path.realpath(helpers.strip()))
    elif name.startswith("python"):
        found = _output([given, "-I", "-c", _PYTHON_PATHS])
        for path in json.loads(found) if found else ():
            readable.add(os.path.realpath(path))
            readable.add(os.path.join(path, "pyvenv.cfg"))
    return frozenset(executable), frozenset(readable)


def _script_interpreters(head: bytes) -> list[str]:
    """The programs a ``#!`` line runs: its interpreter, and for ``/usr/bin/env NAME`` the
    program ``NAME`` found on ``PATH`` too."""
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if not words:
        return []
    found = [os.path.realpath(words[0])]
    if os.path.basename(words[0]) == "env":
        name = next((w for w in words[1:] if not w.startswith("-")), None)
        located = shutil.which(name) if name else None
        if located:
            found.append(os.path.realpath(located))
    return found


def _elf_interpreter(program: str) -> set[str]:
    """The ``PT_INTERP`` path of a 64-bit little-endian ELF file, read from its header."""
    try:
        with open(program, "rb") as f:
            header = f.read(64)
            if len(header) < 64 or header[4:6] != b"\x02\x01":
                return set()
            (phoff,) = struct.unpack_from("<Q", header, 0x20)
            size, count = struct.unpack_from("<HH", header, 0x36)
            for index in range(min(count, 64)):
                f.seek(phoff + index * size)
                kind, _, offset, _, _, filesz = struct.unpack("<IIQQQQ", f.read(40))
                if kind == 3:  # PT_INTERP
                    f.seek(offset)
                    path = f.read(min(filesz, 4096)).split(b"\0", 1)[0]
                    return {os.path.realpath(os.fsdecode(path))}
    except (OSError, struct.error):
        return set()
    return set()


def _ldd(program: str) -> tuple[set[str], set[str]]:
    """``(loader, libraries)`` of a dynamic ELF program, as real paths, from ``ldd``."""
    out = _output(["ldd", program]) or ""
    loader, libraries = set[str](), set[str]()
    for line in out.splitlines():
        words = line.split()
        if len(words) >= 3 and words[1] == "=>" and words[2].startswith("/"):
            libraries.add(os.path.realpath(words[2]))
        elif words and words[0].startswith("/"):
            loader.add(os.path.realpath(words[0]))
    return loader, libraries


def _output(argv: list[str]) -> str | None:
    try:
        done = subprocess.run(
            argv,
            capture_output=True,
            timeout=_LDD_TIMEOUT,
            check=False,
            env={"PATH": os.environ.get("PATH", os.defpath), "LC_ALL": "C"},
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.decode("utf-8", "replace") if done.returncode == 0 else None
