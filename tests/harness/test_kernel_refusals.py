"""The kernel tells the grader of every call the worker's filter refuses: in each setup, through libc too.

A child (``/usr/bin/python3 -I -S`` with a copy of the worker package, in one of the three setups)
confines itself as the worker does, handing the filter's listener to this process over a socket, then
makes refused calls through libc (ctypes), which no audit hook sees. Its calls are harmless if
anything let them through: signal 0 only asks whether a process exists, a socket that opens
connects nowhere. (``test_tiers`` grades the attacks through the grader, the hook silenced or not.)
"""

from __future__ import annotations

import os
import shutil
import socket
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from confined_child import run_confined

from dedup_harness.core.outcome import Outcome
from dedup_harness.core.paths import IMPL_ROOT
from dedup_harness.grade.client.proxy import SubmissionProxy
from dedup_harness.grade.kernel_refusals import KernelRefusals, Refusal, category, describe
from dedup_harness.grade.sandbox import Limits
from dedup_harness.grade.sandbox.protections import HOOK_REFUSALS, KERNEL_REFUSALS
from dedup_harness.grade.worker import arches, landlock
from dedup_harness.grade.worker.categories import NETWORK, NONE, PROCESSES, SHARED_MEMORY, SIGNALS
from dedup_harness.grade.worker.protocol import MAX_ATTEMPTS
from grading_support import grade
from machine_setups import Setup, public_folder

WORKER = Path(landlock.__file__).resolve().parent
X86 = arches.ARCHES["x86_64"]
HAND = "test_hand_example_three_documents"

CHILD = """
import ctypes, errno, json, os, sys
spec = json.loads(sys.argv[1])
sys.path.insert(0, spec["lib"])
from grading_worker import confine
from grading_worker.arches import current_arch
report = confine.confine([spec["lib"]], [], report_to=spec["fd"])
LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.syscall.restype = ctypes.c_long
NR = current_arch().syscalls
R = {"seccomp": report.as_dict()["seccomp"]}
def call(name, *args):
    result = LIBC.syscall(ctypes.c_long(NR[name]), *[ctypes.c_long(a) for a in args])
    R[name + repr(args)] = "ok" if result != -1 else errno.errorcode[ctypes.get_errno()]
print("ready", flush=True)
sys.stdin.readline()
"""


@pytest.fixture
def lib() -> Iterator[Path]:
    base = public_folder("dedup-harness-refusals-")
    try:
        shutil.copytree(WORKER, base / "grading_worker", ignore=shutil.ignore_patterns("__pycache__"))
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


def run_child(
    setup: Setup, lib: Path, body: str, *, stop_first: bool = False
) -> tuple[dict[str, str], list[Refusal], bool]:
    """CHILD + ``body`` in the setup: what it recorded, the refusals the grader heard of, whether it listened.

    With ``stop_first`` the grader stops listening once the child is confined, before its calls.
    """
    code = CHILD + textwrap.dedent(body) + "\nprint(json.dumps(R))\n"
    return run_confined(setup.prefix, code, {"lib": str(lib)}, stop_first=stop_first)


def test_refused_libc_calls_are_reported_by_the_kernel_and_allowed_ones_are_not(setup: Setup, lib: Path) -> None:
    recorded, refusals, listening = run_child(
        setup,
        lib,
        """
        call("socket", 2, 1, 0)
        call("socket", 10, 2, 0)
        call("kill", 1, 0)
        call("kill", -1, 0)
        call("prctl", 38, 1, 0, 0, 0)
        call("kill", os.getpid(), 0)
        R["own"] = R.pop(f"kill{(os.getpid(), 0)!r}")
        """,
    )
    assert listening and "each refusal reported to the grader by the kernel" in recorded["seccomp"]
    assert [recorded[key] for key in ("socket(2, 1, 0)", "socket(10, 2, 0)", "kill(1, 0)", "kill(-1, 0)")] == [
        "EPERM"
    ] * 4
    assert (recorded["prctl(38, 1, 0, 0, 0)"], recorded["own"]) == ("ok", "ok")
    assert refusals == [
        Refusal("the kernel refused socket(AF_INET, SOCK_STREAM): network (seccomp)", NETWORK),
        Refusal("the kernel refused socket(AF_INET6, SOCK_DGRAM): network (seccomp)", NETWORK),
        Refusal("the kernel refused kill(pid 1, signal 0): signals to other processes (seccomp)", SIGNALS),
        Refusal("the kernel refused kill(pid -1, signal 0): signals to other processes (seccomp)", SIGNALS),
    ]


def test_a_filter_of_the_childs_own_is_refused_and_reported(setup: Setup, lib: Path) -> None:
    """One that answered first would keep the grader from hearing of a call: it cannot be installed."""
    recorded, refusals, _ = run_child(setup, lib, 'call("seccomp", 1, 0, 0)\ncall("prctl", 22, 2, 0)\n')
    assert (recorded["seccomp(1, 0, 0)"], recorded["prctl(22, 2, 0)"]) == ("EPERM", "EPERM")
    assert refusals == [
        Refusal("the kernel refused seccomp(): filters of its own (seccomp)", NONE),
        Refusal("the kernel refused prctl(): filters of its own, or its memory hidden from the grader (seccomp)", NONE),
    ]


def test_once_the_grader_stops_listening_a_refused_call_still_fails(setup: Setup, lib: Path) -> None:
    recorded, refusals, listening = run_child(setup, lib, 'call("socket", 2, 1, 0)\n', stop_first=True)
    assert listening and recorded["socket(2, 1, 0)"] == "ENOSYS" and refusals == []


@pytest.mark.parametrize(
    ("sent", "expected"),
    [("nothing", False), ("a pipe", False)],
    ids=["the socket closed", "something that is not a listener"],
)
def test_without_a_listener_the_grader_knows_it_hears_nothing(sent: str, expected: bool) -> None:
    here, there = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    watch = KernelRefusals(here)
    if sent == "a pipe":
        read, write = os.pipe()
        socket.send_fds(there, [b"L"], [read])
        os.close(write)
    there.close()
    assert watch.listening(10) is expected
    watch.close()
    watch.close()  # once is enough: a second close does nothing


@pytest.mark.parametrize(
    ("nr", "arch", "args", "words"),
    [
        (56, X86.audit_arch, (0x01200011,), "clone() of a new process: new processes or namespaces"),
        (62, X86.audit_arch, (0xFFFFFFFF, 15), "kill(pid -1, signal 15): signals to other processes"),
        (234, X86.audit_arch, (7, 8, 9), "tgkill(pid 7, signal 9): signals to other processes"),
        (101, X86.audit_arch, (16, 1), "ptrace(): other processes"),
        (319, X86.audit_arch, (), "memfd_create(): memory outside the process"),
        (20, 0x40000003, (), "a system call of another architecture (number 20, audit arch 0x40000003)"),
        (0x40000000 | 41, X86.audit_arch, (), "an x32 system call (number 41)"),
    ],
)
def test_each_refusal_is_one_line_a_reader_understands(nr: int, arch: int, args: tuple[int, ...], words: str) -> None:
    assert describe(nr, arch, (*args, 0, 0, 0, 0, 0, 0)[:6]).startswith(f"the kernel refused {words}")


@pytest.mark.parametrize(
    ("nr", "arch", "args", "expected"),
    [
        (56, X86.audit_arch, (0x01200011,), PROCESSES),  # clone() of a new process, as fork() makes one
        (56, X86.audit_arch, (0x10000 | 0x20000000,), NONE),  # a thread into a new network namespace
        (57, X86.audit_arch, (), PROCESSES),  # fork
        (59, X86.audit_arch, (), PROCESSES),  # execve
        (41, X86.audit_arch, (2, 2), NETWORK),  # socket(AF_INET, SOCK_DGRAM)
        (53, X86.audit_arch, (1, 1), NETWORK),  # socketpair
        (62, X86.audit_arch, (0xFFFFFFFF, 15), SIGNALS),  # kill(-1)
        (234, X86.audit_arch, (7, 8, 9), SIGNALS),  # tgkill
        (424, X86.audit_arch, (3, 9), SIGNALS),  # pidfd_send_signal, listed with "other processes"
        (101, X86.audit_arch, (16, 1), NONE),  # ptrace
        (319, X86.audit_arch, (), SHARED_MEMORY),  # memfd_create
        (29, X86.audit_arch, (0, 1 << 20, 0o1600), SHARED_MEMORY),  # shmget
        (293, X86.audit_arch, (), PROCESSES),  # pipe2: multiprocessing's queues are pipes
        (285, X86.audit_arch, (3, 0, 0, 1 << 26), NONE),  # fallocate: disk, which no correct stage reserves
        (165, X86.audit_arch, (), NONE),  # mount
        (41, 0x40000003, (2, 2), NONE),  # another architecture's number 41
        (0x40000000 | 41, X86.audit_arch, (2, 2), NONE),  # x32
    ],
)
def test_each_refusal_names_the_rule_a_student_is_told_about(
    nr: int, arch: int, args: tuple[int, ...], expected: str
) -> None:
    """The category comes from the call and its arguments as the kernel gave them, never from the words."""
    assert category(nr, arch, (*args, 0, 0, 0, 0, 0, 0)[:6]) == expected


def test_without_a_kernel_channel_the_report_says_the_list_is_the_hooks_own(tmp_path: Path) -> None:
    """The ``none`` tier has no filter, so no listener: the reference (harmless) graded there says so."""
    reference = (IMPL_ROOT / "corpus" / "dedup.py").read_text(encoding="utf-8")
    graded = grade(reference, tmp_path, checks=[HAND], tier="none")
    assert graded.outcome(HAND) is Outcome.PASSED
    protections = graded.sidecar["protections"]
    assert protections["attempts_from"] == "hook" and HOOK_REFUSALS in protections["missing"]
    assert KERNEL_REFUSALS not in protections["in_force"]


class _QuietSandbox:
    """What a proxy that never starts a worker asks of its sandbox."""

    limits = Limits()

    def output_bytes(self) -> int:
        return 0


def test_a_flood_of_refusals_is_listed_up_to_the_cap_and_the_rest_is_counted() -> None:
    proxy = SubmissionProxy(_QuietSandbox(), doc_type=lambda: object)  # type: ignore[arg-type]
    for n in range(MAX_ATTEMPTS + 5):
        proxy.log.record("refused", f"the kernel refused kill(pid {n}, signal 0): signals to other processes (seccomp)")
    proxy.log.record("attempt", "tried to reach the network: open a socket (AF_INET) (refused)")
    proxy.shutdown()
    refused = [e.detail for e in proxy.events if e.kind == "refused"]
    assert len(refused) == MAX_ATTEMPTS + 1 and refused[-1] == "and 5 more, not listed one by one"
    assert [e.detail for e in proxy.events if e.kind == "attempt"] == [
        "tried to reach the network: open a socket (AF_INET) (refused)"
    ]
