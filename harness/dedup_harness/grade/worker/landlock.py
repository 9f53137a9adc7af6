"""Landlock for the worker: the whole file system denied but the paths it names, TCP denied, IPC scoped.

One ruleset handles every file-system right the kernel's ABI knows (one left unhandled stays allowed,
one unknown is EINVAL), TCP bind and connect with no rule (ABI 4), and the signal and
abstract-unix-socket scopes (ABI 6). Read-only paths may be read, listed and executed; read-write
ones also written, created in, removed from and truncated (no device nodes, sockets or execution). A
hidden path beneath a read-only one (the harness inside the interpreter's tree) is left out: its
parent keeps only the right to list it, its siblings keep theirs.

Pitfalls met: ``landlock_ruleset_attr`` grows with the ABI (8, 16, 24 bytes) and the kernel reads
exactly the size passed; ``landlock_path_beneath_attr`` is packed (12 bytes); Landlock binds only the
calling thread; EPERM from the version call means a container's seccomp profile blocks Landlock,
which is then unavailable, not an error.
"""

from __future__ import annotations

import ctypes
import errno
import os
import stat
import sys
from collections.abc import Iterable, Sequence

from .arches import current_arch
from .syscalls import ConfinementError, syscall

FS_EXECUTE = 1 << 0
FS_WRITE_FILE = 1 << 1
FS_READ_FILE = 1 << 2
FS_READ_DIR = 1 << 3
FS_REMOVE_DIR = 1 << 4
FS_REMOVE_FILE = 1 << 5
FS_MAKE_CHAR = 1 << 6
FS_MAKE_DIR = 1 << 7
FS_MAKE_REG = 1 << 8
FS_MAKE_SOCK = 1 << 9
FS_MAKE_FIFO = 1 << 10
FS_MAKE_BLOCK = 1 << 11
FS_MAKE_SYM = 1 << 12
FS_REFER = 1 << 13  # ABI 2
FS_TRUNCATE = 1 << 14  # ABI 3
FS_IOCTL_DEV = 1 << 15  # ABI 5

NET_BIND_TCP = 1 << 0  # ABI 4
NET_CONNECT_TCP = 1 << 1  # ABI 4

SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
SCOPE_SIGNAL = 1 << 1  # ABI 6

NEWEST_KNOWN_ABI = 7  # later ABIs are used as ABI 7: their new rights stay unhandled, never unknown
_FS_RIGHTS_SINCE = ((1, (1 << 13) - 1), (2, FS_REFER), (3, FS_TRUNCATE), (5, FS_IOCTL_DEV))
# Rights that apply to a file; the kernel rejects directory rights on one.
FILE_RIGHTS = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV
READ_ONLY_RIGHTS = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR
READ_WRITE_RIGHTS = (
    FS_READ_FILE
    | FS_READ_DIR
    | FS_WRITE_FILE
    | FS_REMOVE_DIR
    | FS_REMOVE_FILE
    | FS_MAKE_DIR
    | FS_MAKE_REG
    | FS_MAKE_FIFO
    | FS_MAKE_SYM
    | FS_REFER
    | FS_TRUNCATE
)

NR_CREATE_RULESET = 444  # the same numbers on every architecture (assigned after Linux 5.1)
NR_ADD_RULE = 445
NR_RESTRICT_SELF = 446
CREATE_RULESET_VERSION = 1 << 0
RULE_PATH_BENEATH = 1
RESTRICT_SELF_LOG_SAME_EXEC_OFF = 1 << 0  # ABI 7: do not audit-log this process's denials


class RulesetAttr(ctypes.Structure):
    """struct landlock_ruleset_attr; ABI 4 appended the net word, ABI 6 the scope word."""

    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class PathBeneathAttr(ctypes.Structure):
    """struct landlock_path_beneath_attr: packed, so 12 bytes and not 16."""

    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def abi() -> int:
    """The kernel's Landlock ABI, or 0 when Landlock cannot be used here.

    ENOSYS: the kernel lacks it; EOPNOTSUPP: not enabled at boot; EPERM: an outer seccomp filter (a
    container runtime's default profile) blocks the call.
    """
    if current_arch() is None:
        return 0
    try:
        return syscall(NR_CREATE_RULESET, 0, 0, CREATE_RULESET_VERSION)
    except OSError as exc:
        if exc.errno in (errno.ENOSYS, errno.EOPNOTSUPP, errno.EPERM):
            return 0
        raise


def handled_fs_rights(version: int) -> int:
    rights = 0
    for since, bits in _FS_RIGHTS_SINCE:
        if version >= since:
            rights |= bits
    return rights


def handled_net_rights(version: int) -> int:
    return NET_BIND_TCP | NET_CONNECT_TCP if version >= 4 else 0


def handled_scopes(version: int) -> int:
    return SCOPE_SIGNAL | SCOPE_ABSTRACT_UNIX_SOCKET if version >= 6 else 0


def ruleset_attr_size(version: int) -> int:
    """The size of the ruleset struct this ABI reads; older kernels reject words they do not know."""
    if version >= 6:
        return 24
    return 16 if version >= 4 else 8


class FileRules:
    """Which paths went into the ruleset, and which were skipped and why."""

    __slots__ = ("read_only", "read_write", "skipped")

    def __init__(
        self, read_only: Sequence[str] = (), read_write: Sequence[str] = (), skipped: Sequence[str] = ()
    ) -> None:
        self.read_only = tuple(read_only)
        self.read_write = tuple(read_write)
        self.skipped = tuple(skipped)


def unique(paths: Iterable[str]) -> list[str]:
    """Without duplicates, in the order given."""
    return list(dict.fromkeys(os.fspath(p) for p in paths))


def inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def around_hidden(path: str, hidden: Sequence[str]) -> tuple[list[str], list[str]]:
    """``path`` as (listable-only folders, fully readable paths) that leave every ``hidden`` path out."""
    real = os.path.realpath(path)
    if any(inside(real, h) for h in hidden):
        return [], []
    if not any(inside(h, real) for h in hidden):
        return [], [path]
    listable, readable = [real], []
    try:
        names = sorted(os.listdir(real))
    except OSError:
        return [], []
    for name in names:
        more_listable, more_readable = around_hidden(os.path.join(real, name), hidden)
        listable += more_listable
        readable += more_readable
    return listable, readable


def _open_path(path: str) -> tuple[int | None, str]:
    """An O_PATH descriptor (it follows symbolic links, so /lib lands on /usr/lib), or why not."""
    try:
        return os.open(path, os.O_PATH | os.O_CLOEXEC), ""
    except FileNotFoundError:
        return None, f"{path} (does not exist)"
    except NotADirectoryError:
        return None, f"{path} (a parent is not a directory)"
    except PermissionError:
        return None, f"{path} (not reachable by this user)"


def _add_rules(ruleset_fd: int, paths: Iterable[str], access: int) -> tuple[list[str], list[str]]:
    """One rule per path (a file gets only the rights that apply to files); (added, skipped)."""
    added: list[str] = []
    skipped: list[str] = []
    for path in paths:
        path_fd, why = _open_path(path)
        if path_fd is None:
            skipped.append(why)
            continue
        try:
            rights = access if stat.S_ISDIR(os.fstat(path_fd).st_mode) else access & FILE_RIGHTS
            attr = PathBeneathAttr(rights, path_fd)
            syscall(NR_ADD_RULE, ruleset_fd, RULE_PATH_BENEATH, ctypes.addressof(attr), 0)
        finally:
            os.close(path_fd)
        added.append(os.path.abspath(path))
    return added, skipped


def restrict(
    version: int,
    read_only: Sequence[str],
    read_write: Sequence[str],
    *,
    hidden: Sequence[str] = (),
    net: int = 0,
    scoped: int = 0,
    flags: int = 0,
) -> FileRules:
    """One ruleset with everything asked for, enforced on the calling thread (no_new_privs must be set)."""
    fs = handled_fs_rights(min(version, NEWEST_KNOWN_ABI))
    listable: list[str] = []
    readable: list[str] = []
    for path in unique(read_only):
        more_listable, more_readable = around_hidden(path, [os.path.realpath(h) for h in hidden])
        listable += more_listable
        readable += more_readable
    attr = RulesetAttr(fs, net, scoped)
    ruleset_fd = syscall(NR_CREATE_RULESET, ctypes.addressof(attr), ruleset_attr_size(version), 0)
    try:
        _add_rules(ruleset_fd, unique(listable), FS_READ_DIR)
        ro, skip_ro = _add_rules(ruleset_fd, unique(readable), READ_ONLY_RIGHTS & fs)
        rw, skip_rw = _add_rules(ruleset_fd, unique(read_write), READ_WRITE_RIGHTS & fs)
        syscall(NR_RESTRICT_SELF, ruleset_fd, flags)
    finally:
        os.close(ruleset_fd)
    return FileRules(ro, rw, skip_ro + skip_rw)


def thread_count() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        threading = sys.modules.get("threading")
        return int(threading.active_count()) if threading is not None else 1


def require_single_thread() -> None:
    """Refuse while other threads live: Landlock binds only the calling thread, they would escape it."""
    count = thread_count()
    if count != 1:
        raise ConfinementError(f"confinement must come before any thread starts ({count} threads)")
