"""Raw system calls through libc for the worker's self-confinement: syscall(2), prctl(2), no_new_privs.

ctypes is imported only by this module, and this module only when the worker confines itself: a
worker started without confinement pays nothing for it.
"""

from __future__ import annotations

import ctypes
import os
from typing import Any

PR_SET_NO_NEW_PRIVS = 38
PR_GET_NO_NEW_PRIVS = 39
PR_SET_SECCOMP = 22
PR_SET_DUMPABLE = 4

_LIBC: Any = None


class ConfinementError(RuntimeError):
    """A protection that was asked for cannot be put in force.

    The worker fails closed: a half-applied sandbox that looks complete is worse than an error the
    grader can report.
    """


def libc() -> Any:
    """libc, loaded once, with errno kept for each call."""
    global _LIBC
    if _LIBC is None:
        _LIBC = ctypes.CDLL(None, use_errno=True)
        _LIBC.syscall.restype = ctypes.c_long
        _LIBC.prctl.restype = ctypes.c_int
    return _LIBC


def _raise_errno() -> None:
    err = ctypes.get_errno()
    raise OSError(err, os.strerror(err))


def syscall(number: int, *args: int) -> int:
    """syscall(2), every argument widened to a C long.

    syscall(2) is variadic: a plain C int would leave the upper half of a 64-bit register undefined,
    so pointers and sizes are passed as longs.
    """
    result = int(libc().syscall(ctypes.c_long(number), *(ctypes.c_long(a) for a in args)))
    if result == -1:
        _raise_errno()
    return result


def prctl(option: int, arg2: int = 0, arg3: int = 0) -> int:
    """prctl(2) through libc, which knows its number on every architecture."""
    values = (ctypes.c_ulong(arg2), ctypes.c_ulong(arg3), ctypes.c_ulong(0), ctypes.c_ulong(0))
    result = int(libc().prctl(ctypes.c_int(option), *values))
    if result == -1:
        _raise_errno()
    return result


def set_no_new_privs() -> None:
    """no_new_privs: Landlock and seccomp refuse an unprivileged caller without it.

    It also makes set-uid binaries and file capabilities useless to anything the process runs later.
    """
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    if prctl(PR_GET_NO_NEW_PRIVS) != 1:
        raise ConfinementError("no_new_privs did not stick")
