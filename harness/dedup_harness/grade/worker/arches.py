"""The system-call numbers the seccomp filter names, one table per architecture it knows.

x86_64 from ``arch/x86/entry/syscalls/syscall_64.tbl`` and aarch64 from
``include/uapi/asm-generic/unistd.h`` (checked against the kernel headers by the tests where they are
installed). Since Linux 5.1 every architecture numbers new calls alike: those are shared.
"""

from __future__ import annotations

import ctypes
import os

X32_SYSCALL_BIT = 0x40000000

_X86_64: dict[str, int] = {
    "ioctl": 16, "socket": 41, "socketpair": 53, "clone": 56, "fork": 57, "vfork": 58, "execve": 59,
    "kill": 62, "truncate": 76, "chmod": 90, "fchmod": 91, "chown": 92, "fchown": 93, "lchown": 94,
    "ptrace": 101, "syslog": 103, "setpgid": 109, "rt_sigqueueinfo": 129, "mknod": 133,
    "setpriority": 141, "sched_setparam": 142, "sched_setscheduler": 144, "vhangup": 153,
    "pivot_root": 155, "prctl": 157, "adjtimex": 159, "chroot": 161, "acct": 163, "settimeofday": 164,
    "mount": 165, "umount2": 166, "swapon": 167, "swapoff": 168, "reboot": 169, "sethostname": 170,
    "setdomainname": 171, "iopl": 172, "ioperm": 173, "init_module": 175, "delete_module": 176,
    "quotactl": 179, "setxattr": 188, "lsetxattr": 189, "fsetxattr": 190, "removexattr": 197,
    "lremovexattr": 198, "fremovexattr": 199, "tkill": 200, "sched_setaffinity": 203,
    "clock_settime": 227, "tgkill": 234, "kexec_load": 246, "add_key": 248, "request_key": 249,
    "keyctl": 250, "migrate_pages": 256, "mknodat": 259, "fchownat": 260, "fchmodat": 268,
    "unshare": 272, "move_pages": 279, "rt_tgsigqueueinfo": 297, "perf_event_open": 298,
    "prlimit64": 302, "open_by_handle_at": 304, "clock_adjtime": 305, "setns": 308,
    "process_vm_readv": 310, "process_vm_writev": 311, "kcmp": 312, "finit_module": 313,
    "sched_setattr": 314, "seccomp": 317, "kexec_file_load": 320, "bpf": 321, "execveat": 322,
    "userfaultfd": 323,
    "pipe": 22, "shmget": 29, "shmat": 30, "shmctl": 31, "semget": 64, "semop": 65, "semctl": 66, "shmdt": 67,
    "msgget": 68, "msgsnd": 69, "msgrcv": 70, "msgctl": 71, "setgroups": 116, "setfsuid": 122, "setfsgid": 123,
    "semtimedop": 220, "mq_open": 240, "mq_unlink": 241, "mq_timedsend": 242, "mq_timedreceive": 243,
    "mq_notify": 244, "mq_getsetattr": 245, "fallocate": 285, "pipe2": 293, "memfd_create": 319,
    "open": 2, "creat": 85, "rename": 82, "mkdir": 83, "rmdir": 84, "link": 86, "unlink": 87, "symlink": 88,
    "openat": 257, "mkdirat": 258, "unlinkat": 263, "renameat": 264, "linkat": 265, "symlinkat": 266,
    "renameat2": 316,
}  # fmt: skip

# asm-generic has no fork, vfork, chmod, chown, lchown, mknod, iopl or ioperm.
_AARCH64: dict[str, int] = {
    "setxattr": 5, "lsetxattr": 6, "fsetxattr": 7, "removexattr": 14, "lremovexattr": 15,
    "fremovexattr": 16, "ioctl": 29, "mknodat": 33, "umount2": 39, "mount": 40, "pivot_root": 41,
    "truncate": 45, "chroot": 51, "fchmod": 52, "fchmodat": 53, "fchownat": 54, "fchown": 55,
    "vhangup": 58, "quotactl": 60, "acct": 89, "unshare": 97, "kexec_load": 104, "init_module": 105,
    "delete_module": 106, "clock_settime": 112, "syslog": 116, "ptrace": 117, "sched_setparam": 118,
    "sched_setscheduler": 119, "sched_setaffinity": 122, "kill": 129, "tkill": 130, "tgkill": 131,
    "rt_sigqueueinfo": 138, "setpriority": 140, "reboot": 142, "setpgid": 154, "sethostname": 161,
    "setdomainname": 162, "prctl": 167, "settimeofday": 170, "adjtimex": 171, "socket": 198,
    "socketpair": 199, "add_key": 217, "request_key": 218, "keyctl": 219, "clone": 220, "execve": 221,
    "swapon": 224, "swapoff": 225, "migrate_pages": 238, "move_pages": 239, "rt_tgsigqueueinfo": 240,
    "perf_event_open": 241, "prlimit64": 261, "open_by_handle_at": 265, "clock_adjtime": 266,
    "setns": 268, "process_vm_readv": 270, "process_vm_writev": 271, "kcmp": 272, "finit_module": 273,
    "sched_setattr": 274, "seccomp": 277, "bpf": 280, "execveat": 281, "userfaultfd": 282,
    "kexec_file_load": 294,
    "mkdirat": 34, "unlinkat": 35, "symlinkat": 36, "linkat": 37, "renameat": 38, "fallocate": 47, "openat": 56,
    "pipe2": 59, "setgroups": 159, "setfsuid": 151, "setfsgid": 152, "mq_open": 180, "mq_unlink": 181,
    "mq_timedsend": 182, "mq_timedreceive": 183, "mq_notify": 184, "mq_getsetattr": 185, "msgget": 186,
    "msgctl": 187, "msgrcv": 188, "msgsnd": 189, "semget": 190, "semctl": 191, "semtimedop": 192, "semop": 193,
    "shmget": 194, "shmctl": 195, "shmat": 196, "shmdt": 197, "renameat2": 276, "memfd_create": 279,
}  # fmt: skip

_UNIFIED: dict[str, int] = {
    "pidfd_send_signal": 424, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
    "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
    "clone3": 435, "pidfd_getfd": 438, "process_madvise": 440, "mount_setattr": 442, "quotactl_fd": 443,
    "landlock_create_ruleset": 444, "landlock_add_rule": 445, "landlock_restrict_self": 446,
    "openat2": 437, "memfd_secret": 447,
    "fchmodat2": 452, "setxattrat": 463, "removexattrat": 466, "open_tree_attr": 467, "file_setattr": 469,
}  # fmt: skip


class Arch:
    """What the filter must know of one architecture.

    ``audit_arch`` is the AUDIT_ARCH_* value the kernel puts in ``seccomp_data.arch``; ``has_x32`` is
    true on x86_64, where numbers carrying X32_SYSCALL_BIT select the x32 ABI.
    """

    __slots__ = ("audit_arch", "has_x32", "name", "syscalls")

    def __init__(self, name: str, audit_arch: int, has_x32: bool, syscalls: dict[str, int]) -> None:
        self.name = name
        self.audit_arch = audit_arch
        self.has_x32 = has_x32
        self.syscalls = syscalls


ARCHES: dict[str, Arch] = {
    "x86_64": Arch("x86_64", 0xC000003E, True, {**_X86_64, **_UNIFIED}),
    "aarch64": Arch("aarch64", 0xC00000B7, False, {**_AARCH64, **_UNIFIED}),
}


def current_arch() -> Arch | None:
    """The table for this process, or None when there is none.

    A 32-bit interpreter on a 64-bit kernel reports the kernel's machine name but makes 32-bit system
    calls, so the pointer size is checked too.
    """
    if ctypes.sizeof(ctypes.c_void_p) != 8:
        return None
    return ARCHES.get(os.uname().machine)
