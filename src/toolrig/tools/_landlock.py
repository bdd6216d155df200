"""Landlock, the Linux security module an unprivileged process uses to restrict itself.

Three system calls, called through ``ctypes``: make a ruleset (the rights it *handles*, which
become denied), add rules (the rights allowed beneath a file or folder, or on a TCP port), and
restrict the calling thread with it; the restriction is inherited across ``fork`` and ``execve``
and can never be lifted. See the kernel's ``Documentation/userspace-api/landlock.rst``.

Only the standard library is imported, and nothing at all from ``typing``: the shell tool's
supervisor (run with ``python -I -S``, no site-packages) executes this file's source to restrict
the command it starts. The ``landlock`` package on PyPI was measured beside it: 70-140 ms to
import (this module: ``ctypes`` alone, 4 ms) and, in 1.0.0.dev5, file-system rules only, with
neither the TCP rights (ABI 4) nor the scoping (ABI 6) the shell tool needs.
"""

from __future__ import annotations

import ctypes
import os
import stat
import struct

__all__ = [
    "EXECUTE",
    "FILE_RIGHTS",
    "NET_BIND_TCP",
    "NET_CONNECT_TCP",
    "READ",
    "SCOPE_ABSTRACT_UNIX",
    "SCOPE_SIGNAL",
    "WRITE",
    "abi",
    "deny_sockets",
    "fs_rights",
    "restrict",
]

_SYSCALLS = {"x86_64": (444, 445, 446), "aarch64": (444, 445, 446), "riscv64": (444, 445, 446)}
_CREATE_VERSION = 1  # LANDLOCK_CREATE_RULESET_VERSION
_RULE_PATH, _RULE_PORT = 1, 2
_PR_SET_NO_NEW_PRIVS = 38

EXECUTE = 1 << 0
_WRITE_FILE, _READ_FILE, _READ_DIR = 1 << 1, 1 << 2, 1 << 3
_TRUNCATE, _IOCTL_DEV = 1 << 14, 1 << 15
READ = _READ_FILE | _READ_DIR
"""Open files for reading and list folders."""
WRITE = _WRITE_FILE | (0x1FF << 4) | (1 << 13) | _TRUNCATE
"""Write, truncate, create, remove, rename and link files and folders (not ``EXECUTE``)."""
FILE_RIGHTS = EXECUTE | _WRITE_FILE | _READ_FILE | _TRUNCATE | _IOCTL_DEV
"""The rights a rule on a file (rather than a folder) may carry."""
NET_BIND_TCP, NET_CONNECT_TCP = 1, 2
SCOPE_ABSTRACT_UNIX, SCOPE_SIGNAL = 1, 2

_libc = ctypes.CDLL(None, use_errno=True)


def _calls() -> tuple[int, int, int] | None:
    return _SYSCALLS.get(os.uname().machine)


def abi() -> int:
    """The Landlock ABI version this kernel offers; 0 when it offers none."""
    calls = _calls()
    if calls is None:
        return 0
    version = _libc.syscall(calls[0], None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_VERSION))
    return max(int(version), 0)


def fs_rights(version: int) -> int:
    """Every file-system right ABI ``version`` knows (each one is handled, hence denied
    unless a rule allows it)."""
    last = {1: 12, 2: 13, 3: 14, 4: 14}.get(version, 15)
    return (1 << (last + 1)) - 1


def _check(result: int, what: str) -> int:
    if result < 0:
        code = ctypes.get_errno()
        raise OSError(code, f"landlock {what}: {os.strerror(code)}")
    return result


def restrict(
    version: int,
    paths: list[tuple[int, str]],
    ports: list[tuple[int, int]],
    *,
    handled: int,
    handle_net: bool,
    scoped: int,
) -> None:
    """Restrict the calling process (and all it will start) to ``paths`` (``(rights, path)``:
    the rights allowed beneath that file or folder; a missing path is skipped) and ``ports``
    (``(rights, port)``). ``handled``: the file-system rights restricted (see `fs_rights`);
    ``handle_net``: restrict TCP bind and connect (ABI 4); ``scoped``: the IPC kept inside
    (ABI 6). Raises `OSError` when the kernel refuses; the process is then unchanged."""
    calls = _calls()
    if calls is None or version < 1:
        raise OSError(0, "landlock is not offered by this kernel")
    create, add_rule, restrict_self = calls
    handled &= fs_rights(version)
    net = NET_BIND_TCP | NET_CONNECT_TCP if handle_net and version >= 4 else 0
    attr = struct.pack("=QQQ", handled, net, scoped if version >= 6 else 0)
    size = 24 if version >= 6 else 16 if version >= 4 else 8
    ruleset = _check(_libc.syscall(create, attr, ctypes.c_size_t(size), 0), "create_ruleset")
    try:
        for rights, path in paths:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except FileNotFoundError:
                continue
            try:
                allowed = rights & handled
                if not stat.S_ISDIR(os.fstat(fd).st_mode):
                    allowed &= FILE_RIGHTS
                if allowed:
                    rule = struct.pack("=Qi", allowed, fd)
                    _check(_libc.syscall(add_rule, ruleset, _RULE_PATH, rule, 0), path)
            finally:
                os.close(fd)
        for rights, port in ports if net else ():
            rule = struct.pack("=QQ", rights & net, port)
            _check(_libc.syscall(add_rule, ruleset, _RULE_PORT, rule, 0), f"port {port}")
        _check(_libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
        _check(_libc.syscall(restrict_self, ruleset, 0), "restrict_self")
    finally:
        os.close(ruleset)


# seccomp: (audit arch, socket, io_uring_setup) per machine
_SECCOMP = {
    "x86_64": (0xC000003E, 41, 425),
    "aarch64": (0xC00000B7, 198, 425),
    "riscv64": (0xC00000F3, 198, 425),
}
_FAMILIES = (1, 2, 10, 16, 17)  # AF_UNIX, AF_INET, AF_INET6, AF_NETLINK, AF_PACKET


def deny_sockets() -> None:
    """Refuse (``EACCES``) every new Unix, IP, netlink or packet socket, and ``io_uring``
    (which can open sockets without the ``socket`` call), for the calling process and all it
    starts, with a seccomp filter. Landlock's network rights cover TCP only (up to ABI 7):
    UDP and connecting to a Unix socket by its path pass them. ``socketpair`` and the
    sockets already open stay usable. Raises `OSError` where seccomp is not offered."""
    found = _SECCOMP.get(os.uname().machine)
    if found is None:
        raise OSError(0, "seccomp filter not written for this machine")
    arch, socket_nr, uring_nr = found
    allow, deny, kill = 0x7FFF0000, 0x00050000 | 13, 0x80000000

    def op(code: int, jt: int, jf: int, k: int) -> bytes:
        return struct.pack("=HBBI", code, jt, jf, k)

    ld, jeq, jge, ret = 0x20, 0x15, 0x35, 0x06
    n = len(_FAMILIES)
    program = [
        op(ld, 0, 0, 4),  # arch
        op(jeq, 1, 0, arch),
        op(ret, 0, 0, kill),  # another ABI (i386, x32 through int 0x80): killed
        op(ld, 0, 0, 0),  # syscall number
        op(jge, n + 5, 0, 0x40000000),  # x32 numbers: killed
        op(jeq, n + 3, 0, uring_nr),
        op(jeq, 0, n + 1, socket_nr),
        op(ld, 0, 0, 16),  # first argument: the family
        *(op(jeq, n - i, 0, family) for i, family in enumerate(_FAMILIES)),
        op(ret, 0, 0, allow),
        op(ret, 0, 0, deny),
        op(ret, 0, 0, kill),
    ]
    code = b"".join(program)
    filters = ctypes.create_string_buffer(code, len(code))
    fprog = struct.pack("=HxxxxxxQ", len(program), ctypes.addressof(filters))
    buffer = ctypes.create_string_buffer(fprog, len(fprog))
    _check(_libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    _check(_libc.prctl(22, 2, buffer, 0, 0), "seccomp")  # PR_SET_SECCOMP, FILTER
