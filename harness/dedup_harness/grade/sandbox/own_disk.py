"""A submission's disk of its own: its grading process's own mount namespace, and a tmpfs on the session.

The process that grades one submission moves, before any thread starts, into a mount namespace of its
own and mounts a tmpfs of the disk limit's size on the session folder: a full disk is that
submission's alone. Its workers start inside the namespace (bubblewrap and unshare copy it); every
other process sees an empty folder; the tmpfs goes with the namespace's last process.

Root with CAP_SYS_ADMIN needs a mount namespace alone; root without it (a container) a user namespace
too, every uid and gid mapped to itself by a helper that keeps CAP_SETUID and CAP_SETGID, so the
worker's uid and the grader's reach stay as they were; a non-root grader one that maps its own uid
and gid. Mounts are made private first: nothing mounted here propagates back to the machine.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import functools
import os
import tempfile
from pathlib import Path

from dedup_harness.core.signals import forked
from dedup_harness.grade.sandbox.detect import has_cap_sys_admin
from dedup_harness.grade.sandbox.users import is_root

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
MS_NOSUID = 1 << 1
MS_NODEV = 1 << 2
MS_REC = 1 << 14
MS_PRIVATE = 1 << 18
MNT_DETACH = 2
IDENTITY = "0 0 4294967295"  # every uid (gid) to itself
INODES = 1 << 16  # files a submission may have at once: each costs the kernel memory, not blocks
HEADROOM = 8 << 20  # for the session's code (the submission's root and the worker package)


class OwnDiskError(OSError):
    """The process could not get a mount namespace of its own, or mount the tmpfs."""


@functools.cache
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        error = ctypes.get_errno()
        raise OwnDiskError(error, f"{what}: {os.strerror(error)}")


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="ascii") as file:
        file.write(text)


def _enter_with_identity_maps() -> None:
    """A user namespace whose maps a helper child writes: it keeps the caller's CAP_SETUID outside."""
    ready_read, ready_write = os.pipe()
    parent = os.getpid()
    helper = os.fork()
    if helper == 0:  # the helper: wait for the namespace, map it, leave at once
        code = 1
        with contextlib.suppress(BaseException):
            os.close(ready_write)
            os.read(ready_read, 1)
            _write(f"/proc/{parent}/uid_map", IDENTITY)
            _write(f"/proc/{parent}/gid_map", IDENTITY)
            code = 0
        os._exit(code)
    os.close(ready_read)
    try:
        _check(_libc().unshare(CLONE_NEWUSER | CLONE_NEWNS), "a user and mount namespace")
    finally:
        os.write(ready_write, b"x")
        os.close(ready_write)
        _, status = os.waitpid(helper, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise OwnDiskError(errno.EPERM, "the uid and gid maps of the grader's user namespace could not be written")


def _enter_as_user() -> None:
    uid, gid = os.geteuid(), os.getegid()
    _check(_libc().unshare(CLONE_NEWUSER | CLONE_NEWNS), "a user and mount namespace")
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")


@functools.cache
def enter() -> None:
    """Move this process into a mount namespace of its own, once; it must have a single thread."""
    if len(os.listdir("/proc/self/task")) > 1:
        raise OwnDiskError(errno.EINVAL, "a process with threads cannot enter a namespace of its own")
    if is_root() and has_cap_sys_admin():
        _check(_libc().unshare(CLONE_NEWNS), "a mount namespace")
    elif is_root():
        _enter_with_identity_maps()
    else:
        _enter_as_user()
    _check(_libc().mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "private mounts")


def mount_space(folder: Path, size: int, *, uid: int, gid: int, mode: int) -> None:
    """A tmpfs of ``size`` bytes (and the code's headroom) on ``folder``, its root owned and moded as given."""
    options = f"size={size + HEADROOM},nr_inodes={INODES},mode={mode:o},uid={uid},gid={gid}"
    flags = MS_NOSUID | MS_NODEV
    _check(_libc().mount(b"dedup-harness", os.fsencode(folder), b"tmpfs", flags, options.encode()), "a tmpfs")


def unmount(folder: Path) -> None:
    """Take the tmpfs off ``folder`` (lazily: a process still inside lets go when it ends)."""
    with contextlib.suppress(OwnDiskError):
        _check(_libc().umount2(os.fsencode(folder), MNT_DETACH), "unmount")


def _trial() -> int:
    """In a forked child: enter a namespace of its own and mount a tmpfs; 0 when both worked."""
    with tempfile.TemporaryDirectory() as folder, forked() as pid:
        if pid == 0:
            code = 1
            with contextlib.suppress(BaseException):
                enter()
                mount_space(Path(folder), 1 << 20, uid=os.geteuid(), gid=os.getegid(), mode=0o700)
                code = 0
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        return os.waitstatus_to_exitcode(status)


@functools.cache
def works() -> bool:
    """Can a grading process of this grader get a disk of its own here? (Tried once, in a child.)"""
    return _trial() == 0
