"""The worker's seccomp filter, run through a small BPF interpreter: the verdict for each call, on both arches.

Nothing is installed here: the program is assembled and executed in Python, so the policy is tested
on any machine. ``test_confinement.py`` installs it for real.
"""

from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest

from dedup_harness.grade.worker import arches, bpf, seccomp
from dedup_harness.grade.worker.confine import _extra_denied

ALLOW, EPERM, ENOSYS = seccomp.RET_ALLOW, seccomp.RET_EPERM, seccomp.RET_ENOSYS
PID = PGID = 4242
THREAD_FLAGS = 0x3D0F00  # what glibc's pthread_create passes to clone
FORK_FLAGS = 0x01200011  # CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD
S_IFCHR, S_IFIFO = 0o020000, 0o010000
# Calls our tables name that came after Linux 6.1, whose headers Debian 12 ships.
NEWER_THAN_HEADERS = {"fchmodat2", "setxattrat", "removexattrat", "open_tree_attr", "file_setattr"}

POLICY = [
    ("getpid", (), ALLOW),
    ("read", (), ALLOW),
    ("socket", (1, 1, 0), EPERM),
    ("socket", (2, 2, 0), EPERM),
    ("socketpair", (1, 1, 0), EPERM),
    ("ptrace", (16, 1), EPERM),
    ("clone", (THREAD_FLAGS,), ALLOW),
    ("clone", (FORK_FLAGS,), EPERM),
    ("clone", (THREAD_FLAGS | 0x10000000,), EPERM),
    ("clone3", (), ENOSYS),
    ("execve", (), EPERM),
    ("execveat", (), EPERM),
    ("kill", (PID, 15), ALLOW),
    ("kill", (0, 15), ALLOW),
    ("kill", (-PGID, 15), ALLOW),
    ("kill", (1, 15), EPERM),
    ("kill", (-1, 0), EPERM),
    ("kill", (PID + 1, 15), EPERM),
    ("kill", (PID | 1 << 32, 15), ALLOW),  # pid_t is 32 bits: the kernel ignores the top half
    ("tgkill", (PID, 99, 10), ALLOW),
    ("tgkill", (1, 1, 15), EPERM),
    ("tkill", (1, 15), EPERM),
    ("rt_sigqueueinfo", (1, 15, 0), EPERM),
    ("rt_tgsigqueueinfo", (PID, 5, 10, 0), ALLOW),
    ("pidfd_send_signal", (3, 15, 0, 0), EPERM),
    ("process_vm_readv", (), EPERM),
    ("unshare", (0x10000000,), EPERM),
    ("mount", (), EPERM),
    ("bpf", (), EPERM),
    ("io_uring_setup", (), EPERM),
    ("setpgid", (0, 0), EPERM),
    ("prlimit64", (0, 7, 0, 0), ALLOW),
    ("prlimit64", (1, 7, 0, 0), EPERM),
    ("setpriority", (0, 0, 5), ALLOW),
    ("setpriority", (0, 1, 5), EPERM),
    ("setpriority", (1, 0, 5), EPERM),
    ("fchmodat", (-100, 0, 0o644), ALLOW),
    ("fchmodat", (-100, 0, 0o4755), EPERM),
    ("fchmod", (3, 0o2755), EPERM),
    ("mknodat", (-100, 0, S_IFIFO | 0o600, 0), ALLOW),
    ("mknodat", (-100, 0, S_IFCHR | 0o600, 0x103), EPERM),
    ("fchownat", (), EPERM),
    ("fsetxattr", (), EPERM),
    ("ioctl", (0, 0x5401), ALLOW),
    ("ioctl", (0, 0x5412), EPERM),
    ("seccomp", (1, 0, 0), EPERM),
    ("prctl", (22, 2, 0), EPERM),  # PR_SET_SECCOMP: no filter of the submission's own
    ("prctl", (4, 0, 0), EPERM),  # PR_SET_DUMPABLE: its memory map stays the grader's to read
    ("prctl", (38, 1, 0), ALLOW),  # PR_SET_NO_NEW_PRIVS
    ("prctl", (15, 0, 0), ALLOW),  # PR_SET_NAME
]
USER_NOTIF = seccomp.RET_USER_NOTIF


def run_bpf(program: list[bpf.Insn], arch: int, nr: int, args: tuple[int, ...] = ()) -> int:
    """A classic-BPF interpreter for the opcodes the filter uses: the action it returns."""
    full = (list(args) + [0] * 6)[:6]
    data = struct.pack("<iIQ6Q", nr, arch, 0, *(a & 0xFFFFFFFFFFFFFFFF for a in full))
    pc, acc = 0, 0
    while True:
        code, jt, jf, k = program[pc]
        pc += 1
        if code == bpf.LD_W_ABS:
            acc = struct.unpack_from("<I", data, k)[0]
        elif code == bpf.ALU_AND_K:
            acc &= k
        elif code == bpf.JA:
            pc += k
        elif code in (bpf.JEQ_K, bpf.JGE_K, bpf.JSET_K):
            taken = {bpf.JEQ_K: acc == k, bpf.JGE_K: acc >= k, bpf.JSET_K: bool(acc & k)}[code]
            pc += jt if taken else jf
        elif code == bpf.RET_K:
            return k
        else:
            raise AssertionError(f"unknown opcode {code:#x}")


def test_the_assembler_counts_jumps_from_the_next_instruction() -> None:
    program = bpf.assemble(
        [
            bpf.Op(bpf.JEQ_K, 7, "b", None),
            bpf.Label("a"),
            bpf.Op(bpf.RET_K, 1),
            bpf.Label("b"),
            bpf.Op(bpf.JA, jt="c"),
            bpf.Label("c"),
            bpf.Op(bpf.RET_K, 2),
        ]
    )
    assert program == [(0x15, 1, 0, 7), (0x06, 0, 0, 1), (0x05, 0, 0, 0), (0x06, 0, 0, 2)]


@pytest.mark.parametrize(
    "items",
    [
        [bpf.Op(bpf.JEQ_K, 0, "end", None), *[bpf.Op(bpf.RET_K, 0)] * 300, bpf.Label("end"), bpf.Op(bpf.RET_K)],
        [bpf.Label("x"), bpf.Op(bpf.RET_K), bpf.Label("x"), bpf.Op(bpf.RET_K)],
        [bpf.Label("x"), bpf.Op(bpf.JA, jt="x")],
    ],
    ids=["a jump too far", "a label twice", "a jump backwards"],
)
def test_the_assembler_refuses_what_it_cannot_encode(items: list[bpf.Item]) -> None:
    with pytest.raises(ValueError):
        bpf.assemble(items)


@pytest.mark.parametrize("arch_name", ["x86_64", "aarch64"])
def test_the_filter_gives_each_call_its_verdict(arch_name: str) -> None:
    arch = arches.ARCHES[arch_name]
    plain = {"getpid": {"x86_64": 39, "aarch64": 172}[arch_name], "read": {"x86_64": 0, "aarch64": 63}[arch_name]}
    numbers = {**arch.syscalls, **plain}
    program = seccomp.build_filter(arch, seccomp.SignalPolicy(PID, PGID))
    verdicts = [(name, args, run_bpf(program, arch.audit_arch, numbers[name], args)) for name, args, _ in POLICY]
    assert verdicts == POLICY


@pytest.mark.parametrize("arch_name", ["x86_64", "aarch64"])
def test_with_a_listener_every_refusal_is_a_notification_and_nothing_else_changes(arch_name: str) -> None:
    """The grader answers each notification with EPERM: the same verdicts, each one told to the grader."""
    arch = arches.ARCHES[arch_name]
    plain = {"getpid": {"x86_64": 39, "aarch64": 172}[arch_name], "read": {"x86_64": 0, "aarch64": 63}[arch_name]}
    numbers = {**arch.syscalls, **plain}
    program = seccomp.build_filter(arch, seccomp.SignalPolicy(PID, PGID), notify=True)
    verdicts = [(name, args, run_bpf(program, arch.audit_arch, numbers[name], args)) for name, args, _ in POLICY]
    assert verdicts == [(name, args, USER_NOTIF if v == EPERM else v) for name, args, v in POLICY]
    assert run_bpf(program, 0x40000003, 20) == USER_NOTIF  # a foreign ABI: told too


def test_foreign_abis_are_refused_whatever_the_call() -> None:
    """i386 (int 0x80) and x32 numbers mean other calls: every one is refused."""
    x86 = arches.ARCHES["x86_64"]
    program = seccomp.build_filter(x86, seccomp.SignalPolicy(PID, PGID))
    assert run_bpf(program, 0x40000003, 20) == EPERM  # AUDIT_ARCH_I386 getpid
    assert run_bpf(program, x86.audit_arch, 0x40000000 | 39) == EPERM  # x32 getpid
    assert run_bpf(program, x86.audit_arch, 39) == ALLOW
    arm = arches.ARCHES["aarch64"]
    assert run_bpf(seccomp.build_filter(arm, seccomp.SignalPolicy(1, 1)), 0x40000028, 20) == EPERM


def test_an_old_landlock_abi_also_gets_path_truncate_refused() -> None:
    """Landlock before ABI 3 does not police truncate(2): seccomp refuses it there, not ftruncate."""
    x86 = arches.ARCHES["x86_64"]
    assert (_extra_denied(2), _extra_denied(3), _extra_denied(0)) == (("truncate",), (), ())
    strict = seccomp.build_filter(x86, seccomp.SignalPolicy(PID, PGID), ("truncate",))
    plain = seccomp.build_filter(x86, seccomp.SignalPolicy(PID, PGID))
    assert run_bpf(plain, x86.audit_arch, 76) == ALLOW
    assert (run_bpf(strict, x86.audit_arch, 76), run_bpf(strict, x86.audit_arch, 77)) == (EPERM, ALLOW)


def test_a_shared_process_group_gets_no_group_signals() -> None:
    """When the worker does not lead its group (the grader is in it), kill(0) and kill(-pgid) are refused."""
    x86 = arches.ARCHES["x86_64"]
    program = seccomp.build_filter(x86, seccomp.SignalPolicy(PID, None))
    verdicts = [run_bpf(program, x86.audit_arch, 62, (target, 10)) for target in (0, -PGID, PID)]
    assert verdicts == [EPERM, EPERM, ALLOW]


@pytest.mark.parametrize(
    ("arch_name", "header", "pattern"),
    [
        ("x86_64", "/usr/include/x86_64-linux-gnu/asm/unistd_64.h", r"#define __NR_(\w+)\s+(\d+)"),
        ("aarch64", "/usr/include/asm-generic/unistd.h", r"#define __NR(?:3264)?_(\w+)\s+(\d+)"),
    ],
)
def test_each_syscall_number_matches_the_kernel_headers(arch_name: str, header: str, pattern: str) -> None:
    if not Path(header).exists():
        pytest.skip(f"{header} is not installed (linux-libc-dev)")
    numbers = {m[1]: int(m[2]) for m in re.finditer(pattern, Path(header).read_text(encoding="utf-8"))}
    table = arches.ARCHES[arch_name].syscalls
    assert {name for name in table if name not in numbers} <= NEWER_THAN_HEADERS
    assert {n: table[n] for n in table if n in numbers} == {n: numbers[n] for n in table if n in numbers}


def test_the_kernel_structures_have_the_kernels_sizes() -> None:
    import ctypes

    from dedup_harness.grade.worker import landlock

    types = (landlock.PathBeneathAttr, landlock.RulesetAttr, seccomp.SockFilter, seccomp.SockFprog)
    assert [ctypes.sizeof(t) for t in types] == [12, 24, 8, 16]


def test_the_calls_checked_by_their_arguments_are_the_ones_the_refusals_list_gives_reasons_for() -> None:
    """Each argument block of the filter has its words in ``ARGUMENT_CHECKED``, and no words go without a block."""
    blocks = seccomp._argument_blocks(seccomp.SignalPolicy(PID, PGID))
    named = {block[0].name for block in blocks if isinstance(block[0], bpf.Label)}
    assert named == set(seccomp.ARGUMENT_CHECKED)
