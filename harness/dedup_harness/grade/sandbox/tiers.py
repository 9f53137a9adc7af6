"""The isolation tiers, strongest first, and which one this machine offers: probed once per process.

- ``bubblewrap``: new namespaces (network, pid, ipc, uts, mount); only /usr, the interpreter and the
  session exist. As root, or unprivileged where user namespaces are allowed.
- ``unshare``: new network, pid, mount and ipc namespaces, the harness's folders covered; as root with
  CAP_SYS_ADMIN, or through an unprivileged user namespace (a non-root grader, a container).
- ``landlock``: no namespace and no privilege: the worker confines itself (Landlock for files, TCP,
  signals; seccomp for sockets, processes, ptrace).
- ``seccomp``: a kernel without Landlock: seccomp alone; the harness's files are hidden only if their
  modes keep the worker's uid out (the preflight checks).
- ``none``: nothing; only with ``--unisolated``.

Every tier but ``none`` stacks the worker's own Landlock (where the kernel has it) and seccomp under
its namespaces, and the worker's audit hook over everything.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from dedup_harness.core.paths import DATA_ROOT, PACKAGE_DIR
from dedup_harness.grade.sandbox.bwrap import system_binds
from dedup_harness.grade.sandbox.interpreter import Interpreter, find
from dedup_harness.grade.sandbox.unshare import unshare_prefix
from dedup_harness.grade.sandbox.users import drop_privileges, is_root, worker_uid
from dedup_harness.grade.worker import arches, landlock

CAP_SYS_ADMIN = 21


class Tier(StrEnum):
    BUBBLEWRAP = "bubblewrap"
    UNSHARE = "unshare"
    LANDLOCK = "landlock"
    SECCOMP = "seccomp"
    NONE = "none"


STRONGEST_FIRST = (Tier.BUBBLEWRAP, Tier.UNSHARE, Tier.LANDLOCK, Tier.SECCOMP)
AUTO = "auto"


class SetupError(RuntimeError):
    """The tier asked for, or any tier, cannot run here; the message says what is missing and how to get it."""


@dataclass(frozen=True)
class WorkerSetup:
    """How every worker of this grader runs: its tier, its interpreter, and the kernel's layers."""

    tier: Tier
    interpreter: Interpreter
    landlock_abi: int
    seccomp: bool  # this architecture has a syscall table, so the filter can be installed
    passed_over: tuple[str, ...] = field(default=())  # why each stronger tier is not in use

    @property
    def user_namespace(self) -> bool:
        """Does this setup's unshare go through a user namespace?"""
        return self.tier is Tier.UNSHARE and unshare_needs_user_namespace()


def unshare_needs_user_namespace() -> bool:
    """unshare goes through a user namespace unless the grader is root with CAP_SYS_ADMIN."""
    return not (is_root() and has_cap_sys_admin())


def has_cap_sys_admin() -> bool:
    status = Path("/proc/self/status").read_text(encoding="ascii")
    effective = next(line.split()[1] for line in status.splitlines() if line.startswith("CapEff:"))
    return bool(int(effective, 16) >> CAP_SYS_ADMIN & 1)


def _runs(command: list[str]) -> bool:
    try:
        return subprocess.run(command, capture_output=True, timeout=20, cwd="/", check=False).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@functools.cache
def bwrap_works() -> bool:
    """Is bubblewrap installed and able to make its namespaces here?"""
    bwrap = shutil.which("bwrap")
    probe = [bwrap or "bwrap", *system_binds(), "--unshare-net", "--unshare-pid", "--die-with-parent", "/usr/bin/true"]
    return bwrap is not None and _runs(probe)


@functools.cache
def unshare_works(*, user_namespace: bool) -> bool:
    """Can unshare make the namespaces and cover a folder, directly or through a user namespace?"""
    if shutil.which("unshare") is None or (not user_namespace and not is_root()):
        return False
    with tempfile.TemporaryDirectory() as folder:
        Path(folder).chmod(0o755)
        as_worker = drop_privileges(worker_uid()) if user_namespace else []
        return _runs([*as_worker, *unshare_prefix([Path(folder)], user_namespace=user_namespace), "/usr/bin/true"])


@functools.cache
def landlock_abi() -> int:
    return landlock.abi()


def seccomp_known() -> bool:
    return arches.current_arch() is not None


def why_not(tier: Tier) -> str | None:
    """None when ``tier`` works here; else what is missing and how to get it."""
    if tier is Tier.BUBBLEWRAP and not bwrap_works():
        if shutil.which("bwrap") is None:
            return "bubblewrap is not installed (apt-get install bubblewrap)"
        return (
            "bubblewrap cannot make its namespaces here (no unprivileged user namespaces, or a container forbids them)"
        )
    if tier is Tier.UNSHARE and not unshare_works(user_namespace=unshare_needs_user_namespace()):
        return "unshare cannot make namespaces here: no CAP_SYS_ADMIN, and no unprivileged user namespaces"
    if tier in (Tier.LANDLOCK, Tier.SECCOMP) and not seccomp_known():
        return "the worker has no seccomp filter for this architecture (x86_64 and aarch64 only)"
    if tier is Tier.LANDLOCK and landlock_abi() == 0:
        return "the kernel has no Landlock (Linux 5.13 or later, with landlock among its LSMs)"
    return None


def choose(asked: str = AUTO) -> tuple[Tier, tuple[str, ...]]:
    """The tier asked for, or the strongest that works; and why each stronger one was passed over."""
    if asked != AUTO:
        tier = Tier(asked)
        reason = why_not(tier)
        if reason is not None:
            raise SetupError(f"the {tier} tier cannot run here: {reason}")
        return tier, ()
    passed_over: list[str] = []
    for tier in STRONGEST_FIRST:
        reason = why_not(tier)
        if reason is None:
            return tier, tuple(passed_over)
        passed_over.append(f"{tier}: {reason}")
    return Tier.NONE, tuple(passed_over)


@functools.cache
def worker_setup(asked: str = AUTO, python: str | None = None) -> WorkerSetup:
    """The setup for this grader's workers; ``python`` names the interpreter (else one is found)."""
    tier, passed_over = choose(asked)
    interpreter = Interpreter(python) if python else find(worker_uid())
    return WorkerSetup(tier, interpreter, landlock_abi(), seccomp_known(), passed_over)


def harness_folders(session: Path) -> list[Path]:
    """The harness's own folders (reference, oracle, fixtures, tests), unless the session lies inside one."""
    folders = [path for path in {DATA_ROOT.resolve(), PACKAGE_DIR.resolve()} if not session.is_relative_to(path)]
    # One mount over the outer folder covers the inner one (whose mount point it hides).
    return sorted(
        path for path in folders if not any(path != other and path.is_relative_to(other) for other in folders)
    )
