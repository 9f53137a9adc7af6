"""What was in force for one submission's worker, in words a TA reads: the tier and each protection.

``in_force`` lists every protection, one line each, from the outermost (the tier's namespaces, its
row of ``tiers.TIERS`` says them) to the innermost (the worker's audit hook); ``missing`` what this
tier does not stop, and each stronger tier passed over and why. The worker's own Landlock and seccomp
lines come from what it reported once confined (``confined``).
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from typing import Any

from dedup_harness.grade import rules
from dedup_harness.grade.sandbox.limits import Limits
from dedup_harness.grade.sandbox.tiers import Tier, WorkerSetup, row

WORKER_ENV = {
    "PATH": "/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "PYTHONHASHSEED": "0",
    "PYTHONIOENCODING": "utf-8",
    # An allowed package's native thread pool (numpy's OpenBLAS, OpenMP, MKL) would start a thread per core,
    # each counted against the worker's process limit: one thread each.
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    # glibc reserves an arena of 64 MiB of address space for each thread that allocates: a dozen threads or so would
    # fill the rulebook's address space with reservations. Two arenas let the rulebook's threads all start.
    "MALLOC_ARENA_MAX": "2",
    # The worker's uid has no entry in /etc/passwd: honest code that asks its user name (getpass.getuser(), a
    # spool's prefix) reads it here, as the rulebook gives it (HOME is the worker's own folder).
    "USER": rules.USER,
    "LOGNAME": rules.USER,
}
AUDIT_HOOK = (
    "audit hook: network, new processes and signals to other processes refused in the worker, each attempt noted "
    "by the worker itself (the submission can silence it)"
)
KERNEL_REFUSALS = (
    "refusals: every call the seccomp filter refuses is reported to the grader by the kernel (seccomp user "
    "notification): the submission cannot keep one off the attempts listed; what Landlock and the namespaces "
    "refuse (files) is listed from the worker's audit hook alone (in the seccomp tier the grader decides file "
    "calls itself, and lists what it refused)"
)
HOOK_REFUSALS = (
    "refusals: NOT reported to the grader by the kernel for every worker; the attempts listed are the worker's "
    "own audit hook's notes, which the submission can silence: the list may be incomplete"
)
CONFINEMENT_LINES = {"files": "files", "tcp": "TCP", "signals": "signals", "seccomp": "seccomp"}
BLIND_TO_FILES = (
    "classmates: on this kernel (before Linux 5.14) the grader cannot decide the worker's file calls: file modes "
    "alone keep it from the other submissions' originals, which it can read wherever they are world-readable, and "
    "from the world-writable folders"
)


@dataclass
class Protections:
    """What was in force for one submission's worker: goes into the report as it is."""

    tier: str
    interpreter: str
    in_force: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    interpreter_version: str = ""
    user: str = ""
    network: str = ""
    process_namespace: bool = False
    harness_files_hidden: bool = False
    process_limit_enforced: bool = False
    environment: str = "scrubbed: " + ", ".join(sorted(WORKER_ENV))
    limits: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    # Where the attempts listed come from: "kernel" (every worker's filter reported its refusals to the
    # grader), "hook" (some worker's did not: the worker's own word alone), "" (no worker started).
    attempts_from: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def confined(self, confinement: dict[str, Any] | None, version: str) -> None:
        """Add what the first worker reported once it had confined itself (None: it was not asked to); every
        later one confines itself alike."""
        self.interpreter_version = self.interpreter_version or version
        if not confinement:
            return
        lines = [f"{label}: {confinement[key]}" for key, label in CONFINEMENT_LINES.items() if key in confinement]
        self.in_force[-1:-1] = lines  # before the audit hook, which stays last
        if "files" in confinement.get("protections", []):
            self.harness_files_hidden = True
        else:  # a kernel without Landlock (or the seccomp tier): namespaces and file modes are what hide files
            self.missing.append(f"files: {confinement.get('files', 'NOT restricted')}")
        if "seccomp" not in confinement.get("protections", []):
            self.missing.append(f"seccomp: {confinement.get('seccomp', 'not installed')}")

    def refusals_reported(self, reported: bool) -> None:
        """Record whether the kernel reports this worker's refusals to the grader; one that does not decides."""
        if reported and not self.attempts_from:
            self.attempts_from = "kernel"
            self.in_force.insert(len(self.in_force) - 1, KERNEL_REFUSALS)  # before the audit hook, which stays last
        elif not reported and self.attempts_from != "hook":
            self.in_force = [line for line in self.in_force if line != KERNEL_REFUSALS]
            self.attempts_from = "hook"
            self.missing.append(HOOK_REFUSALS)


def describe(setup: WorkerSetup, uid: int | None, limits: Limits, *, own_disk: bool | None = None) -> Protections:
    """The protections a worker of ``setup`` starts with, before it confines itself.

    ``own_disk``: whether its session is a tmpfs of its own (by default: where the setup offers one).
    """
    tier = setup.tier
    p = Protections(tier=str(tier), interpreter=setup.interpreter.path, interpreter_version=setup.interpreter.version)
    p.limits = {
        **limits.rlimits(),
        "call_seconds": limits.call_seconds,
        "submission_seconds": limits.submission_seconds,
    }
    p.limits |= {"output_bytes": limits.output_bytes, "disk_bytes": limits.disk_bytes}
    p.in_force = list(row(tier).in_force) + ([setup.packages.in_force()] if setup.packages else [])
    namespaces = row(tier).namespaces
    p.process_namespace = p.harness_files_hidden = namespaces
    if namespaces:
        p.network = f"none: a new network namespace ({tier})"
    else:
        p.network = "none: no socket can be opened (seccomp)" if setup.seccomp and tier is not Tier.NONE else "open"
    if uid is not None:
        # Not the number: it follows the grader's pid, and the same submission must get the same report.
        p.user = "a uid of its own (unprivileged, no capabilities, no new privileges)"
        p.process_limit_enforced = True
    else:
        p.user = f"uid {os.getuid()}, the grader's own (the grader is not root)"
        p.process_limit_enforced = os.getuid() != 0
        if not namespaces:
            p.notes.append("the worker runs as the grader's user: only Landlock and seccomp keep it from the grader")
    p.in_force.append(f"user: {p.user}")
    p.in_force.append(disk_words(setup.own_disk if own_disk is None else own_disk, limits))
    if setup.blind_to_files:
        p.missing.append(BLIND_TO_FILES)
    if setup.one_at_a_time:
        why = (
            "the grader cannot decide the worker's file calls on this kernel"
            if setup.blind_to_files
            else "the workers share the grader's uid, and no namespace or Landlock keeps them out of each other's "
            "sessions"
        )
        p.notes.append(f"graded one submission at a time: {why}")
    p.in_force.append(AUDIT_HOOK)
    p.missing += [f"stronger tier not available: {reason}" for reason in setup.passed_over]
    return p


def disk_words(own_disk: bool, limits: Limits) -> str:
    """Whose disk the worker writes, and how much of it."""
    mib = limits.disk_bytes >> 20
    if own_disk:
        return f"disk: a tmpfs of its own ({mib} MiB), mounted only in its grader's namespace"
    return f"disk: the temp folder's, its session's blocks watched against {mib} MiB"
