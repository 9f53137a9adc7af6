"""The worker's file-system identity on one thread of the grader: what the grader reads or opens as the worker.

A root grader reads its worker's memory map (/proc/PID/smaps, shown under ptrace's rules) and, in the
seccomp tier, opens and makes files for it. A container's root has no CAP_SYS_PTRACE, and a file it
opened would get root's rights. Both come right when the thread takes the worker's uid and gid as its
file-system identity (setfsuid, setfsgid: ptrace's check compares those) and drops its supplementary
groups. The raw system calls change the calling thread alone (glibc's setgroups would change every
thread). A non-root grader shares its worker's uid and needs none of this.
"""

from __future__ import annotations

import codecs
import ctypes
import functools
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from dedup_harness.grade.worker.arches import current_arch

T = TypeVar("T")


class IdentityError(OSError):
    """The thread could not take the worker's file-system identity."""


@functools.cache
def _syscall() -> Any:
    function = ctypes.CDLL(None, use_errno=True).syscall
    function.restype = ctypes.c_long
    return function


def take(uid: int) -> None:
    """The calling thread's file-system uid and gid become ``uid`` (the worker's gid is its uid), with no groups.

    From then on the thread cannot read the grader's own installation (it may lie under root's home): the
    codecs its readers of /proc use are looked up first, and nothing it runs may import anything new.
    """
    for name in ("ascii", "utf-8"):
        codecs.lookup(name)
    arch = current_arch()
    if arch is None:
        raise IdentityError("no system-call table for this processor")
    call, numbers = _syscall(), arch.syscalls
    if call(ctypes.c_long(numbers["setgroups"]), ctypes.c_long(0), ctypes.c_void_p(None)) != 0:
        raise IdentityError(ctypes.get_errno(), "setgroups on the grader's thread")
    call(ctypes.c_long(numbers["setfsgid"]), ctypes.c_long(uid))
    call(ctypes.c_long(numbers["setfsuid"]), ctypes.c_long(uid))
    # Each returns the previous value whatever happened: asking with -1 tells what is in force.
    now = [call(ctypes.c_long(numbers[name]), ctypes.c_long(-1)) for name in ("setfsuid", "setfsgid")]
    if now != [uid, uid]:
        raise IdentityError(f"the grader's thread has file-system ids {now}, not the worker's {uid}")


def run_as(uid: int | None, action: Callable[[], T]) -> T:
    """``action()`` on a thread of its own with the file-system identity of ``uid`` (None: here, as it is)."""
    if uid is None:
        return action()
    result: list[T] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            take(uid)
            result.append(action())
        except BaseException as error:  # raised again in the caller's thread
            failed.append(error)

    thread = threading.Thread(target=run, name="as-the-worker", daemon=True)
    thread.start()
    thread.join()
    if failed:
        raise failed[0]
    return result[0]
