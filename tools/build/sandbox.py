"""Confine the current process, and every process it starts, to a few folders: Linux Landlock.

Code the build runs on a contributor's behalf (the lab notebook's cells) must not change what
is published except through what it prints, and must not read the repository (``.git/config``
holds a token in CI). Landlock lets an unprivileged process give up file-system rights for
itself and its children, for good: after :func:`confine`, the process may read only the folders
named readable (the Python installation, the system's libraries) and write only inside the
folders named writable; every other path, the repository included, is refused by the kernel
(``PermissionError``), and so is every TCP connection. No root, no container, no namespace.

Landlock is in Linux since 5.13 and on by default in the common distributions' kernels
(GitHub's Ubuntu runners among them). Where it is missing (another kernel, macOS),
:func:`confine` returns False and changes nothing: the caller says so, and the checks on what
is published (:mod:`tools.site.outputs`) stay the line that catches a write.

Standard library only (``ctypes``): the kernel interface is three system calls.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Iterable
from pathlib import Path

# linux/landlock.h; the system call numbers are the same on every architecture.
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

_EXECUTE, _WRITE_FILE, _READ_FILE, _READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_MAKE = sum(1 << bit for bit in range(4, 13))  # remove and make files, folders, sockets, links
_REFER, _TRUNCATE, _IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15  # ABI 2, 3 and 5
_FILE_RIGHTS = _EXECUTE | _WRITE_FILE | _READ_FILE | _TRUNCATE | _IOCTL_DEV
_BIND_TCP, _CONNECT_TCP = 1 << 0, 1 << 1  # ABI 4

READ = _EXECUTE | _READ_FILE | _READ_DIR
WRITE = READ | _WRITE_FILE | _MAKE | _REFER | _TRUNCATE | _IOCTL_DEV
# What a Python process and its kernel need besides the installation: libraries, settings,
# the process's own /proc, devices (/dev/null, /dev/urandom; /dev/shm for shared memory).
SYSTEM_READ = ("/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc", "/opt", "/proc",
               "/sys", "/run", "/snap", "/nix")  # fmt: skip
SYSTEM_WRITE = ("/dev",)


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [
        ("allowed_access", ctypes.c_uint64),
        ("parent_fd", ctypes.c_int32),
    ]


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def abi_version() -> int:
    """The kernel's Landlock ABI version; 0 where there is none (not Linux, or turned off)."""
    try:
        version = _libc().syscall(_CREATE_RULESET, None, ctypes.c_size_t(0),
                                  ctypes.c_uint32(_CREATE_RULESET_VERSION))  # fmt: skip
    except (OSError, AttributeError):
        return 0
    return max(int(version), 0)


def confine(readable: Iterable[Path | str], writable: Iterable[Path | str]) -> bool:
    """Restrict this process and its future children to reading ``readable`` (and the system's
    folders) and writing ``writable``, with no TCP; False, changing nothing, without Landlock.

    Irreversible: call it in a process made for the confined work."""
    abi = abi_version()
    if abi < 1:
        return False
    handled = READ | _WRITE_FILE | _MAKE
    handled |= _REFER if abi >= 2 else 0
    handled |= _TRUNCATE if abi >= 3 else 0
    handled |= _IOCTL_DEV if abi >= 5 else 0
    attr = _RulesetAttr(handled, (_BIND_TCP | _CONNECT_TCP) if abi >= 4 else 0)
    size = ctypes.sizeof(attr) if abi >= 4 else ctypes.sizeof(ctypes.c_uint64)
    libc = _libc()
    ruleset = libc.syscall(_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size),
                           ctypes.c_uint32(0))  # fmt: skip
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    try:
        rules = [(p, READ) for p in (*SYSTEM_READ, *readable)]
        rules += [(p, WRITE) for p in (*SYSTEM_WRITE, *writable)]
        for path, rights in rules:
            _allow(libc, ruleset, Path(path), rights & handled)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        if libc.syscall(_RESTRICT_SELF, ruleset, ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(ruleset)
    return True


def _allow(libc: ctypes.CDLL, ruleset: int, path: Path, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # a folder this system does not have
    try:
        if not path.is_dir():
            rights &= _FILE_RIGHTS
        rule = _PathBeneathAttr(rights, fd)
        if libc.syscall(_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule),
                        ctypes.c_uint32(0)) != 0:  # fmt: skip
            raise OSError(ctypes.get_errno(), f"landlock_add_rule failed for {path}")
    finally:
        os.close(fd)
