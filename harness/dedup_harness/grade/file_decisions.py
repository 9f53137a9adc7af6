"""The seccomp tier's file calls, decided by the grader: each done beneath the worker's folders, as the worker.

The seccomp tier has no Landlock, and file modes alone keep a worker neither from the other
submissions' originals (world-readable, their paths in the grade command's /proc/PID/cmdline) nor
from the world-writable folders (/tmp, /run/lock, /dev/shm), where what it writes outlives the batch.
So its filter makes every call that opens, makes or removes a name (``seccomp.DECIDED``) a
notification, and the grader does the call as Landlock would let it: the path, read from the worker's
memory and made absolute, is matched against the rules the worker sent with its listener (the paths
Landlock would have had, and the harness's folders, hidden); the file is opened with
openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS) from a descriptor of the rule's folder, so no link,
"..", or path rewritten by another thread after it was read leads outside; the descriptor is handed
over atomically (SECCOMP_IOCTL_NOTIF_ADDFD with SECCOMP_ADDFD_FLAG_SEND). Folders, links and FIFOs
are made, names removed or renamed, through parent folders opened the same way.

No call is let through (SECCOMP_USER_NOTIF_FLAG_CONTINUE): the kernel would read the path again,
after another thread could change it (the seccomp_unotify manual's warning). The deciding thread has
the worker's file-system identity (``grade.identity``). What the rules leave out is refused with
EACCES, as Landlock refuses, and listed (files). Needs Linux 5.14 (``works_here``).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import functools
import os
import stat
import struct
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dedup_harness.core.removal import printable
from dedup_harness.grade.worker import arches
from dedup_harness.grade.worker.audit import SYSTEM_READS

RESOLVE_NO_MAGICLINKS = 0x02
RESOLVE_BENEATH = 0x08
RESOLVE_IN_ROOT = 0x10
BENEATH = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS
AT_FDCWD = -100
AT_REMOVEDIR = 0x200
AT_SYMLINK_FOLLOW = 0x400
AT_EMPTY_PATH = 0x1000
PATH_MAX = 4096
PAGE = 4096
# O_LARGEFILE as the kernel spells it (Python's is 0 on 64-bit machines, where the kernel sets it anyway).
LARGEFILE = {"x86_64": 0o100000, "aarch64": 0o400000}
KNOWN_FLAGS = (
    functools.reduce(
        int.__or__,
        (getattr(os, name, 0) for name in ("O_ACCMODE", "O_CREAT", "O_EXCL", "O_NOCTTY", "O_TRUNC", "O_APPEND")),
    )
    | functools.reduce(
        int.__or__,
        (getattr(os, name, 0) for name in ("O_NONBLOCK", "O_DSYNC", "O_SYNC", "O_DIRECT", "O_DIRECTORY", "O_NOFOLLOW")),
    )
    | functools.reduce(int.__or__, (getattr(os, name, 0) for name in ("O_NOATIME", "O_CLOEXEC", "O_PATH", "O_TMPFILE")))
)
WRITES = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC
LESS_THAN_MINIMUM_KERNEL = (5, 14)  # SECCOMP_ADDFD_FLAG_SEND; openat2 came in 5.6


class Refused(Exception):
    """The call reaches outside the rules: EACCES, and a line in the report unless it only read a system file."""

    def __init__(self, path: str, *, write: bool = True) -> None:
        super().__init__(path)
        self.path = path
        # As the worker's audit hook notes a read: not of the system's files, which the interpreter and the
        # libraries it loads try on their own (OpenSSL its configuration), and Landlock refuses unlisted.
        self.listed = write or not path.startswith(SYSTEM_READS)


class Answered(Exception):
    """The call ends with this errno (ENOENT, EEXIST...), as the kernel itself would answer it."""

    def __init__(self, number: int) -> None:
        super().__init__(number)
        self.number = number


def kernel_version() -> tuple[int, int]:
    release = os.uname().release.split("-")[0].split(".")
    try:
        return int(release[0]), int(release[1])
    except (IndexError, ValueError):
        return 0, 0


def works_here() -> bool:
    """Can the grader decide the worker's file calls here (a seccomp table, Linux 5.14 or later)?"""
    return arches.current_arch() is not None and kernel_version() >= LESS_THAN_MINIMUM_KERNEL


def _libc_syscall() -> Any:
    function = ctypes.CDLL(None, use_errno=True).syscall
    function.restype = ctypes.c_long
    return function


# Found now, not on the thread that decides: with the worker's identity it could not read the grader's own
# installation (under root's home, say), so it imports nothing and looks nothing up (text from /proc is
# parsed as bytes, with no codec to find).
SYSCALL = _libc_syscall()


class OpenHow(ctypes.Structure):
    """struct open_how (openat2)."""

    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]


def openat2(folder: int, path: str, flags: int, mode: int = 0, resolve: int = BENEATH) -> int:
    """openat2(2): ``path`` opened from the folder ``folder`` holds, resolved as ``resolve`` says; OSError if not."""
    arch = arches.current_arch()
    assert arch is not None
    how = OpenHow(flags, mode if flags & (os.O_CREAT | os.O_TMPFILE) else 0, resolve)
    number = arch.syscalls["openat2"]
    fd = SYSCALL(ctypes.c_long(number), ctypes.c_long(folder), os.fsencode(path), ctypes.byref(how), 24)
    if fd < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()), path)
    return int(fd)


def _signed(value: int) -> int:
    low = value & 0xFFFFFFFF
    return low - (1 << 32) if low >= 1 << 31 else low


def inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


@dataclass(frozen=True)
class Decision:
    """How a call ends: a descriptor of the grader's for the worker, else its result (-errno when it failed)."""

    fd: int | None = None
    result: int = 0
    refused: str | None = None  # the refusal's words, when it reached outside the rules


@dataclass(frozen=True)
class Rules:
    """What the worker may reach, as real paths: read-only, read-write (folders and files), and hidden."""

    read_only: tuple[str, ...]
    read_write: tuple[str, ...]
    hidden: tuple[str, ...]

    @classmethod
    def sent(cls, said: Mapping[str, Any], pid: int) -> Rules:
        """The worker's rules as it sent them with its listener; its /proc/self is /proc/``pid`` here."""

        def real(paths: Any) -> tuple[str, ...]:
            found = [str(p) for p in paths if isinstance(p, str)] if isinstance(paths, list) else []
            return tuple(os.path.realpath(_own_proc(p, pid, pid)) for p in found)

        return cls(real(said.get("read_only")), real(said.get("read_write")), real(said.get("hidden")))

    def place(self, target: str, *, write: bool) -> tuple[str, str]:
        """(the rule ``target`` lies beneath, the deepest; the path to open there), for reading or writing; Refused
        when none. A rule that is a file (/dev/null) is matched with the target's own links resolved."""
        rules = self.read_write if write else (*self.read_write, *self.read_only)
        for path in _as_named_then_real(target):
            found = [rule for rule in rules if inside(path, rule) and (path == rule or os.path.isdir(rule))]
            if found and not any(inside(path, hidden) for hidden in self.hidden):
                return max(found, key=len), path
        raise Refused(target, write=write)


def _as_named_then_real(path: str) -> Iterator[str]:
    yield path
    real = real_path(path)  # only where the path as named lies beneath no rule
    if real != path:
        yield real


def real_path(path: str) -> str:
    """``path`` with every link resolved: by the kernel, in one walk, where it exists (``os.path.realpath`` makes a
    Python lstat per folder, which a chain of thousands of folders, made one mkdirat at a time, made quadratic)."""
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)  # no device or FIFO opened: O_PATH
    except OSError:
        return os.path.realpath(path)
    try:
        found = os.readlink(f"/proc/self/fd/{fd}")
    finally:
        os.close(fd)
    return found if found.startswith("/") and not found.endswith(" (deleted)") else os.path.realpath(path)


def _own_proc(path: str, pid: int, tid: int) -> str:
    """/proc/self and /proc/thread-self as the worker means them."""
    for name, own in (("/proc/self", f"/proc/{pid}"), ("/proc/thread-self", f"/proc/{pid}/task/{tid}")):
        if inside(path, name):
            return own + path[len(name) :]
    return path


class FileDecisions:
    """Decides the file calls of one worker (``pid``), from one thread that has the worker's file-system identity."""

    def __init__(self, pid: int, rules: Rules, file_bytes: int) -> None:
        self.pid = pid
        self.rules = rules
        self.file_bytes = file_bytes  # the worker's RLIMIT_FSIZE, for truncate(2), which the grader does
        self.memory: int | None = None
        self.folders: dict[str, int] = {}  # an O_PATH descriptor of each rule that is a folder
        # Each call's arguments in the order of the *at form: the folder a relative path starts from first.
        at, creating = AT_FDCWD, os.O_CREAT | os.O_WRONLY | os.O_TRUNC
        self.calls: dict[str, Callable[[int, tuple[int, ...]], int | None]] = {
            "open": lambda tid, a: self.open(tid, at, a[0], a[1], a[2]),
            "creat": lambda tid, a: self.open(tid, at, a[0], creating, a[1]),
            "openat": lambda tid, a: self.open(tid, a[0], a[1], a[2], a[3]),
            "openat2": lambda tid, a: self.open2(tid, a[0], a[1], a[2], a[3]),
            "mkdir": lambda tid, a: self.make(tid, at, a[0], stat.S_IFDIR | a[1] & 0o7777),
            "mkdirat": lambda tid, a: self.make(tid, a[0], a[1], stat.S_IFDIR | a[2] & 0o7777),
            "mknod": lambda tid, a: self.make(tid, at, a[0], a[1]),
            "mknodat": lambda tid, a: self.make(tid, a[0], a[1], a[2]),
            "rmdir": lambda tid, a: self.remove(tid, at, a[0], AT_REMOVEDIR),
            "unlink": lambda tid, a: self.remove(tid, at, a[0], 0),
            "unlinkat": lambda tid, a: self.remove(tid, a[0], a[1], a[2]),
            "rename": lambda tid, a: self.rename(tid, (at, a[0]), (at, a[1]), 0),
            "renameat": lambda tid, a: self.rename(tid, (a[0], a[1]), (a[2], a[3]), 0),
            "renameat2": lambda tid, a: self.rename(tid, (a[0], a[1]), (a[2], a[3]), a[4]),
            "link": lambda tid, a: self.link(tid, (at, a[0]), (at, a[1]), 0),
            "linkat": lambda tid, a: self.link(tid, (a[0], a[1]), (a[2], a[3]), a[4]),
            "symlink": lambda tid, a: self.symlink(tid, a[0], at, a[1]),
            "symlinkat": lambda tid, a: self.symlink(tid, a[0], a[1], a[2]),
            "truncate": lambda tid, a: self.truncate(tid, a[0], a[1]),
        }

    def close(self) -> None:
        for fd in [*self.folders.values(), *([self.memory] if self.memory is not None else [])]:
            with contextlib.suppress(OSError):
                os.close(fd)
        self.folders.clear()
        self.memory = None

    # -- deciding -----------------------------------------------------------------------------

    def decide(self, tid: int, name: str, args: Sequence[int]) -> Decision:
        """Do (or refuse) the call ``name`` of thread ``tid``, with its arguments as the kernel gave them."""
        try:
            opened = self.calls[name](tid, tuple(args))
        except Refused as outside:
            words = f"the grader refused {name}() of {printable(outside.path)}: outside the worker's folders"
            return Decision(result=-errno.EACCES, refused=words if outside.listed else None)
        except Answered as answered:
            return Decision(result=-answered.number)
        except OSError as error:
            return Decision(result=-(error.errno or errno.EIO))
        return Decision(fd=opened)

    # -- reading the call -----------------------------------------------------------------------

    def _string(self, address: int) -> str:
        """The NUL-terminated string at ``address`` in the worker's memory."""
        if address == 0:
            raise Answered(errno.EFAULT)
        if self.memory is None:
            self.memory = os.open(f"/proc/{self.pid}/mem", os.O_RDONLY | os.O_CLOEXEC)
        data = b""
        while len(data) < PATH_MAX:
            at = address + len(data)
            try:
                piece = os.pread(self.memory, min(PAGE - at % PAGE, PATH_MAX - len(data)), at)
            except OSError:
                raise Answered(errno.EFAULT) from None
            if not piece:
                raise Answered(errno.EFAULT)
            end = piece.find(b"\0")
            if end >= 0:
                return os.fsdecode(data + piece[:end])
            data += piece
        raise Answered(errno.ENAMETOOLONG)

    def _absolute(self, tid: int, folder: int, address: int) -> str:
        """The path the call names, absolute and without "." or "..", as the worker means it."""
        path = self._string(address)
        if not path:
            raise Answered(errno.ENOENT)
        if not path.startswith("/"):
            at = "cwd" if _signed(folder) == AT_FDCWD else f"fd/{_signed(folder)}"
            try:
                base = os.readlink(f"/proc/{self.pid}/{at}")
            except OSError:
                raise Answered(errno.EBADF) from None
            if not base.startswith("/") or base.endswith(" (deleted)"):
                raise Answered(errno.ENOTDIR)
            path = f"{base}/{path}"
        return os.path.normpath(_own_proc("/" + path.lstrip("/"), self.pid, tid))

    def _umask(self) -> int:
        try:
            with open(f"/proc/{self.pid}/status", "rb") as status:
                return next((int(line.split()[1], 8) for line in status if line.startswith(b"Umask:")), 0o022)
        except OSError:
            return 0o077

    # -- where it lands -------------------------------------------------------------------------

    def _folder(self, rule: str) -> int:
        if rule not in self.folders:
            self.folders[rule] = os.open(rule, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
        return self.folders[rule]

    def _resolved(self, path: str) -> str:
        """``path`` with its folder's symbolic links resolved (its last name kept): which rule it lies beneath."""
        parent, name = os.path.split(path)
        real = real_path(parent)
        return os.path.join(real, name) if name else real

    def _opened(self, path: str, flags: int, mode: int) -> int:
        """``path`` opened beneath its rule, the file itself never outside any (Refused)."""
        write = bool(flags & WRITES) or flags & os.O_TMPFILE == os.O_TMPFILE
        rule, target = self.rules.place(self._resolved(path), write=write)
        arch = arches.current_arch()
        flags = flags & (KNOWN_FLAGS | LARGEFILE.get(arch.name if arch else "", 0)) | os.O_CLOEXEC
        mode &= 0o1777 & ~self._umask()  # no set-uid or set-gid bit, and the worker's umask
        try:
            if target == rule and not os.path.isdir(rule):  # a file of its own (/dev/null, /etc/ld.so.cache)
                fd = os.open(rule, flags | os.O_NOFOLLOW, mode)
            else:
                fd = openat2(self._folder(rule), os.path.relpath(target, rule), flags, mode)
        except OSError as error:
            if error.errno == errno.EXDEV:  # a link or ".." that would leave the rule's folder
                raise Refused(path, write=write) from None
            raise
        try:
            where = os.readlink(f"/proc/self/fd/{fd}")
            if any(inside(where, hidden) for hidden in self.rules.hidden):
                raise Refused(path, write=write)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _parent(self, tid: int, folder: int, address: int) -> tuple[int, str]:
        """(a descriptor of the folder the name goes in, beneath a read-write rule's; the name)."""
        path = self._absolute(tid, folder, address)
        parent, name = os.path.split(path)
        if not name:
            raise Answered(errno.EEXIST)
        try:
            rule, target = self.rules.place(self._resolved(parent), write=True)
        except Refused:
            raise Refused(path) from None
        if not os.path.isdir(rule):
            raise Refused(path)
        try:
            where = os.path.relpath(target, rule)
            return openat2(self._folder(rule), where, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC), name
        except OSError as error:
            if error.errno == errno.EXDEV:
                raise Refused(path) from None
            raise

    # -- the calls ------------------------------------------------------------------------------

    def open(self, tid: int, folder: int, address: int, flags: int, mode: int) -> int:
        return self._opened(self._absolute(tid, folder, address), flags & 0xFFFFFFFF, mode & 0o7777)

    def open2(self, tid: int, folder: int, address: int, how: int, size: int) -> int:
        if size < 24:
            raise Answered(errno.EINVAL)
        if self.memory is None:
            self._string(address)  # opens the worker's memory
        assert self.memory is not None
        try:
            flags, mode, resolve = struct.unpack("<QQQ", os.pread(self.memory, 24, how))
        except (OSError, struct.error):
            raise Answered(errno.EFAULT) from None
        if resolve & RESOLVE_IN_ROOT:
            raise Answered(errno.EINVAL)
        return self._opened(self._absolute(tid, folder, address), flags, mode & 0o7777)

    def make(self, tid: int, folder: int, address: int, mode: int) -> None:
        kind = stat.S_IFMT(mode)
        if kind in (stat.S_IFCHR, stat.S_IFBLK):
            raise Answered(errno.EPERM)  # no device nodes
        parent, name = self._parent(tid, folder, address)
        try:
            permissions = mode & 0o1777 & ~self._umask()
            if kind == stat.S_IFDIR:
                os.mkdir(name, permissions, dir_fd=parent)
            else:
                os.mknod(name, (kind or stat.S_IFREG) | permissions, 0, dir_fd=parent)
        finally:
            os.close(parent)

    def remove(self, tid: int, folder: int, address: int, flags: int) -> None:
        parent, name = self._parent(tid, folder, address)
        try:
            (os.rmdir if flags & AT_REMOVEDIR else os.unlink)(name, dir_fd=parent)
        finally:
            os.close(parent)

    def rename(self, tid: int, old: tuple[int, int], new: tuple[int, int], flags: int) -> None:
        source, source_name = self._parent(tid, *old)
        try:
            target, target_name = self._parent(tid, *new)
            try:
                if flags == 0:
                    os.rename(source_name, target_name, src_dir_fd=source, dst_dir_fd=target)
                else:
                    self._renameat2(source, source_name, target, target_name, flags)
            finally:
                os.close(target)
        finally:
            os.close(source)

    def _renameat2(self, source: int, source_name: str, target: int, target_name: str, flags: int) -> None:
        arch = arches.current_arch()
        assert arch is not None
        names = (os.fsencode(source_name), os.fsencode(target_name))
        call = SYSCALL
        number = ctypes.c_long(arch.syscalls["renameat2"])
        if call(number, ctypes.c_long(source), names[0], ctypes.c_long(target), names[1], ctypes.c_long(flags)) < 0:
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))

    def link(self, tid: int, old: tuple[int, int], new: tuple[int, int], flags: int) -> None:
        if flags & AT_EMPTY_PATH:
            raise Answered(errno.ENOENT)
        source, source_name = self._parent(tid, *old)
        try:
            target, target_name = self._parent(tid, *new)
            try:
                follow = bool(flags & AT_SYMLINK_FOLLOW)
                os.link(source_name, target_name, src_dir_fd=source, dst_dir_fd=target, follow_symlinks=follow)
            finally:
                os.close(target)
        finally:
            os.close(source)

    def symlink(self, tid: int, pointed: int, folder: int, address: int) -> None:
        content = self._string(pointed)  # any text: every open is resolved beneath a rule's folder
        parent, name = self._parent(tid, folder, address)
        try:
            os.symlink(content, name, dir_fd=parent)
        finally:
            os.close(parent)

    def truncate(self, tid: int, address: int, length: int) -> None:
        if length >= 1 << 63:  # negative
            raise Answered(errno.EINVAL)
        if length > self.file_bytes:
            raise Answered(errno.EFBIG)
        fd = self._opened(self._absolute(tid, AT_FDCWD, address), os.O_WRONLY, 0)
        try:
            os.ftruncate(fd, length)
        finally:
            os.close(fd)
