"""The worker's seccomp filter: what it refuses, assembled for one architecture, and installed.

Refused with EPERM: every socket (the worker talks over inherited pipes), ptrace and other processes'
memory, fork, vfork and exec, namespaces and mounts, kernel attack surface (bpf, io_uring,
keyrings...), administration, ownership and extended attributes, filters of its own, memory outside
the process (memfd, shared memory, System V and POSIX IPC), pipes and fallocate. ``clone`` only with
CLONE_THREAD and no CLONE_NEW* (threads, not processes); ``clone3`` gets ENOSYS, since its flags are in
memory a filter cannot read and glibc then falls back to ``clone``. Signals go only to the worker
itself (and its own process group). A foreign ABI (i386's ``int 0x80``, x32) is refused whatever the call.

With a socket to the grader each refusal is a user notification the grader answers and lists
(``grade/kernel_refusals.py``): hence no filter of the submission's own, whose error would take
precedence and keep the call off the list.
"""

from __future__ import annotations

import ctypes
import errno
import os
from collections.abc import Sequence

from .arches import X32_SYSCALL_BIT, Arch
from .bpf import ALU_AND_K, JA, JEQ_K, JGE_K, JSET_K, LD_W_ABS, OFF_ARCH, OFF_NR, Insn, Item, Label, Op, assemble, ret
from .bpf import load_arg as arg
from .syscalls import PR_SET_DUMPABLE, PR_SET_SECCOMP, ConfinementError, prctl, syscall

RET_ALLOW = 0x7FFF0000
RET_USER_NOTIF = 0x7FC00000
RET_ERRNO = 0x00050000
RET_EPERM = RET_ERRNO | errno.EPERM
RET_ENOSYS = RET_ERRNO | errno.ENOSYS

SHARED_MEMORY = "memory outside the process"
PIPES = "pipes to other processes"
# Calls that simply fail with EPERM, by the reason they go.
DENIED: dict[str, tuple[str, ...]] = {
    "network": ("socket", "socketpair"),
    "other processes": (
        "ptrace", "process_vm_readv", "process_vm_writev", "process_madvise", "pidfd_getfd", "kcmp", "setpgid",
    ),
    "signals to other processes": ("pidfd_send_signal",),
    "new programs and processes": ("fork", "vfork", "execve", "execveat"),
    "namespaces and mounts": (
        "mount", "umount2", "pivot_root", "chroot", "unshare", "setns", "fsopen", "fsconfig", "fsmount",
        "fspick", "open_tree", "open_tree_attr", "move_mount", "mount_setattr",
    ),
    "kernel attack surface": (
        "bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
        "keyctl", "add_key", "request_key",
    ),
    "administration": (
        "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "reboot", "swapon",
        "swapoff", "acct", "iopl", "ioperm", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
        "sethostname", "setdomainname", "quotactl", "quotactl_fd", "open_by_handle_at", "syslog", "vhangup",
    ),
    # Landlock does not cover ownership or extended attributes: a root worker could hand out files
    # or plant file capabilities.
    "ownership and attributes": (
        "chown", "fchown", "lchown", "fchownat", "setxattr", "lsetxattr", "fsetxattr", "removexattr",
        "lremovexattr", "fremovexattr", "setxattrat", "removexattrat", "file_setattr",
    ),
    # A filter of the submission's own that returned an error would answer before the grader is told.
    "filters of its own": ("seccomp",),
    # Memory that no resident size shows, where the memory check reads the worker's: an anonymous file,
    # shared memory, System V and POSIX IPC (System V's outlives the process, outside every limit). (POSIX
    # shared memory is a file under /dev/shm: Landlock, or the grader's decision on the seccomp tier's
    # opens, refuses it.)
    SHARED_MEMORY: (
        "memfd_create", "memfd_secret", "shmget", "shmat", "shmdt", "shmctl", "msgget", "msgsnd", "msgrcv",
        "msgctl", "semget", "semop", "semtimedop", "semctl", "mq_open", "mq_unlink", "mq_timedsend",
        "mq_timedreceive", "mq_notify", "mq_getsetattr",
    ),
    # A pipe's buffer is the kernel's memory too (a megabyte each, made larger), and a pipe is for talking to
    # another process, which the worker cannot start (multiprocessing's queues are made of them).
    PIPES: ("pipe", "pipe2"),
    # A file's blocks taken at once without a byte written: on a shared disk, faster than any watch.
    "disk space reserved without writing": ("fallocate",),
}  # fmt: skip

# The seccomp tier's file calls (it has no Landlock), each a notification the grader answers
# (``grade/file_decisions.py``): it opens or makes what the call names beneath the worker's folders itself, as
# the worker, and hands back the descriptor or the result; anything else is refused. Every call that opens,
# makes or removes a name: what Landlock decides in the other tiers.
DECIDED = (
    "open", "openat", "openat2", "creat", "mkdir", "mkdirat", "mknod", "mknodat", "rmdir", "unlink", "unlinkat",
    "rename", "renameat", "renameat2", "link", "linkat", "symlink", "symlinkat", "truncate",
)  # fmt: skip

SIGNALS = "signals to other processes"
# The calls allowed or refused by their arguments (``_argument_blocks`` has a block for each), and what a
# refused one was after, in the words the grader's list of refusals uses (``grade/kernel_refusals.py``).
ARGUMENT_CHECKED: dict[str, str] = {
    "clone": "new processes or namespaces",
    # PR_SET_DUMPABLE 0 would hide its memory map and its /proc/PID/mem from a grader without CAP_SYS_PTRACE (a
    # container's): the memory check could not measure it, nor the seccomp tier's grader read its file calls.
    "prctl": "filters of its own, or its memory hidden from the grader",
    "setpriority": "other processes",
    "ioctl": "typing into a terminal",
    **dict.fromkeys(
        ("prlimit64", "sched_setaffinity", "sched_setscheduler", "sched_setparam", "sched_setattr"), "other processes"
    ),
    **dict.fromkeys(("migrate_pages", "move_pages"), "other processes"),
    **dict.fromkeys(("chmod", "fchmod", "fchmodat", "fchmodat2"), "set-uid and set-gid bits"),
    **dict.fromkeys(("mknod", "mknodat"), "device nodes"),
    **dict.fromkeys(("kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo"), SIGNALS),
}

CLONE_THREAD = 0x00010000
CLONE_NEW_NAMESPACES = 0x7E020000  # NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET
S_ISUID_ISGID = 0o6000
S_IFMT = 0o170000
S_IFCHR = 0o020000
S_IFBLK = 0o060000
TIOCSTI = 0x5412  # push bytes into a terminal's input
TIOCLINUX = 0x541C

SECCOMP_SET_MODE_FILTER = 1
SECCOMP_FILTER_FLAG_TSYNC = 1
SECCOMP_FILTER_FLAG_NEW_LISTENER = 1 << 3
SECCOMP_FILTER_FLAG_TSYNC_ESRCH = 1 << 4  # with NEW_LISTENER: TSYNC fails with ESRCH, not a thread id
SECCOMP_MODE_FILTER = 2


class SignalPolicy:
    """Whom the confined process may still signal: itself, and its group when ``group`` is not None.

    ``group`` is the process group that kill(0, ...) and kill(-pgid, ...) reach, or None when that
    group is shared with someone else (the grader) and group signals must be refused.
    """

    __slots__ = ("group", "pid")

    def __init__(self, pid: int, group: int | None) -> None:
        self.pid = pid
        self.group = group


def _clone() -> list[Item]:
    """Threads only: glibc's fork() and posix_spawn() are clone() without CLONE_THREAD."""
    return [
        Label("clone"),
        arg(0),
        Op(JSET_K, CLONE_NEW_NAMESPACES, "eperm", None),
        Op(JSET_K, CLONE_THREAD, "allow", "eperm"),
    ]


def _kill(signals: SignalPolicy) -> list[Item]:
    items: list[Item] = [Label("kill"), arg(0), Op(JEQ_K, signals.pid, "allow", None)]
    if signals.group is not None:
        items += [Op(JEQ_K, 0, "allow", None), Op(JEQ_K, -signals.group & 0xFFFFFFFF, "allow", None)]
    return [*items, Op(JA, jt="eperm")]


def _arg_not(name: str, index: int, refused: Sequence[int]) -> list[Item]:
    """Refused only when argument ``index`` is one of ``refused``."""
    items: list[Item] = [Label(name), arg(index)]
    items += [Op(JEQ_K, value & 0xFFFFFFFF, "eperm", None) for value in refused]
    return [*items, Op(JA, jt="allow")]


def _arg_in(name: str, index: int, allowed: Sequence[int]) -> list[Item]:
    """Allowed only when argument ``index`` is one of ``allowed``."""
    items: list[Item] = [Label(name), arg(index)]
    items += [Op(JEQ_K, value & 0xFFFFFFFF, "allow", None) for value in allowed]
    return [*items, Op(JA, jt="eperm")]


def _setpriority(pid: int) -> list[Item]:
    """PRIO_PROCESS on itself only: the grader cannot be reniced."""
    return [
        Label("setpriority"),
        arg(0),
        Op(JEQ_K, 0, None, "eperm"),
        arg(1),
        Op(JEQ_K, 0, "allow", None),
        Op(JEQ_K, pid, "allow", "eperm"),
    ]


def _mode_bits(name: str, index: int) -> list[Item]:
    """No set-uid or set-gid bits, which Landlock does not police; plain chmod stays (shutil.copy uses it)."""
    return [Label(name), arg(index), Op(JSET_K, S_ISUID_ISGID, "eperm", "allow")]


def _mknod(name: str, index: int) -> list[Item]:
    """No device nodes (a root worker could reach raw disks); FIFOs are fine."""
    return [
        Label(name),
        arg(index),
        Op(ALU_AND_K, S_IFMT),
        Op(JEQ_K, S_IFCHR, "eperm", None),
        Op(JEQ_K, S_IFBLK, "eperm", "allow"),
    ]


def _ioctl() -> list[Item]:
    """Not the two requests that inject input into a terminal."""
    return [Label("ioctl"), arg(1), Op(JEQ_K, TIOCSTI, "eperm", None), Op(JEQ_K, TIOCLINUX, "eperm", "allow")]


def _argument_blocks(signals: SignalPolicy) -> list[list[Item]]:
    """Every call whose verdict depends on its arguments, one block each."""
    own = (0, signals.pid)  # 0 means "the caller" for these calls
    refused_prctl = (PR_SET_SECCOMP, PR_SET_DUMPABLE)
    blocks = [_clone(), _kill(signals), _setpriority(signals.pid), _ioctl(), _arg_not("prctl", 0, refused_prctl)]
    blocks += [_arg_in(n, 0, (signals.pid,)) for n in ("tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo")]
    blocks += [
        _arg_in(n, 0, own)
        for n in (
            "prlimit64",
            "sched_setaffinity",
            "sched_setscheduler",
            "sched_setparam",
            "sched_setattr",
            "migrate_pages",
            "move_pages",
        )
    ]
    blocks += [_mode_bits("chmod", 1), _mode_bits("fchmod", 1), _mode_bits("fchmodat", 2), _mode_bits("fchmodat2", 2)]
    return [*blocks, _mknod("mknod", 1), _mknod("mknodat", 2)]


def _dispatch(arch: Arch, blocks: list[list[Item]], extra: Sequence[str], decided: Sequence[str]) -> list[Item]:
    """The call's number against every rule; a number no rule names is allowed."""
    table = arch.syscalls
    items: list[Item] = []
    for names in [*DENIED.values(), extra]:
        items += [Op(JEQ_K, table[n], "eperm", None) for n in names if n in table]
    items.append(Op(JEQ_K, table["clone3"], "enosys", None))
    for block in blocks:
        name = block[0].name if isinstance(block[0], Label) else ""
        items.append(Op(JEQ_K, table[name], name, None))
    items += [Op(JEQ_K, table[n], "decide", None) for n in decided if n in table]
    return [*items, ret(RET_ALLOW), Label("decide"), ret(RET_USER_NOTIF)]


def build_filter(
    arch: Arch,
    signals: SignalPolicy,
    extra_denied: Sequence[str] = (),
    *,
    notify: bool = False,
    decide_files: bool = False,
) -> list[Insn]:
    """The whole program for one architecture; ``extra_denied`` names more calls to refuse with EPERM.

    The architecture is checked first: numbers mean other calls on i386 (``int 0x80``) and x32. With
    ``notify`` every refusal but clone3's ENOSYS is a user notification, for the listener to answer;
    with ``decide_files`` (and ``notify``) so is every call of ``DECIDED``, for the grader to decide.
    """
    if decide_files and not notify:
        raise ValueError("the grader decides the file calls only through a listener")
    decided = DECIDED if decide_files else ()
    items: list[Item] = [Op(LD_W_ABS, OFF_ARCH), Op(JEQ_K, arch.audit_arch, None, "eperm"), Op(LD_W_ABS, OFF_NR)]
    if arch.has_x32:
        items.append(Op(JGE_K, X32_SYSCALL_BIT, "eperm", None))
    blocks = [
        b
        for b in _argument_blocks(signals)
        if isinstance(b[0], Label) and b[0].name in arch.syscalls and b[0].name not in decided
    ]
    items += _dispatch(arch, blocks, extra_denied, decided)
    for block in blocks:
        items += block
    refused = RET_USER_NOTIF if notify else RET_EPERM
    items += [Label("allow"), ret(RET_ALLOW), Label("eperm"), ret(refused), Label("enosys"), ret(RET_ENOSYS)]
    return assemble(items)


class SockFilter(ctypes.Structure):
    """struct sock_filter."""

    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class SockFprog(ctypes.Structure):
    """struct sock_fprog: a length and a pointer to the instructions."""

    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(SockFilter))]


def install(arch: Arch, program: Sequence[Insn], *, listener: bool = False) -> int | None:
    """Load the program with seccomp(2), synchronised onto every thread (prctl on kernels before 3.17).

    With ``listener``, the notification listener's descriptor (OSError where the kernel has none).
    """
    array = (SockFilter * len(program))(*(SockFilter(c, t, f, k) for c, t, f, k in program))
    prog = SockFprog(len(program), ctypes.cast(array, ctypes.POINTER(SockFilter)))
    flags = SECCOMP_FILTER_FLAG_TSYNC
    if listener:
        flags |= SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_TSYNC_ESRCH
    try:
        result = syscall(arch.syscalls["seccomp"], SECCOMP_SET_MODE_FILTER, flags, ctypes.addressof(prog))
    except OSError as exc:
        if exc.errno != errno.ENOSYS or listener:
            raise
        result = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(prog))
    if listener:
        return result
    if result != 0:
        raise ConfinementError(f"seccomp could not synchronise thread {result}")
    return None


def install_filter(
    arch: Arch,
    signals: SignalPolicy,
    extra: Sequence[str] = (),
    *,
    report_to: int | None,
    files: dict[str, list[str]] | None = None,
) -> bool:
    """Install the filter; True when each refusal goes to the grader as a notification on ``report_to``.

    ``report_to`` (a unix socket to the grader, or None) is closed here whatever happens. A kernel
    without listeners (before 5.7) gets the filter that answers EPERM itself; if the hand-over fails,
    no one answers and a refused call fails with ENOSYS instead. A call is refused either way.
    ``files``: the file calls go to the grader too (``DECIDED``), which decides them by these rules (the
    paths Landlock would have been given: ``read_only``, ``read_write``, ``hidden``); without a listener
    no file could be opened, so that is a ``ConfinementError``.
    """
    import array  # before the filter: from then on an import opens its files through the grader
    import json
    import socket

    if report_to is None:
        if files is not None:
            raise ConfinementError("the grader decides the file calls only through a listener")
        install(arch, build_filter(arch, signals, extra))
        return False
    try:
        program = build_filter(arch, signals, extra, notify=True, decide_files=files is not None)
        listener = install(arch, program, listener=True)
    except OSError as error:
        os.close(report_to)
        if files is not None:
            raise ConfinementError(f"no seccomp listener for the grader to decide the file calls: {error}") from None
        install(arch, build_filter(arch, signals, extra))
        return False
    assert listener is not None
    try:
        with socket.socket(fileno=report_to) as channel:
            rights = array.array("i", [listener]).tobytes()
            said = json.dumps({"files": files}).encode() if files is not None else b"L"
            channel.sendmsg([said], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, rights)])
    except OSError as error:
        if files is not None:
            raise ConfinementError(f"the seccomp listener could not be handed to the grader: {error}") from None
        return False
    finally:
        os.close(listener)  # only the grader holds it
    return True
