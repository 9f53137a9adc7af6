"""How each tier is detected on this machine: tried once per process, the answer is why not (or None).

A tier is detected by doing what its worker's command does, on ``/usr/bin/true``: bubblewrap making
its namespaces, unshare covering a folder (directly as root with CAP_SYS_ADMIN, else through a user
namespace as the worker's user), the kernel answering Landlock's version call, the worker having a
seccomp table for this processor. Each ``detect_*`` returns None where the tier runs here, else what
is missing and how to get it, in words for the person grading.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import tempfile
from pathlib import Path

from dedup_harness.core.procfs import has_capability
from dedup_harness.grade.sandbox.bwrap import system_binds
from dedup_harness.grade.sandbox.unshare import unshare_prefix
from dedup_harness.grade.sandbox.users import drop_privileges, is_root, worker_uid
from dedup_harness.grade.worker import arches, landlock

CAP_SYS_ADMIN = 21


def has_cap_sys_admin() -> bool:
    return has_capability(CAP_SYS_ADMIN)


def unshare_needs_user_namespace() -> bool:
    """unshare goes through a user namespace unless the grader is root with CAP_SYS_ADMIN."""
    return not (is_root() and has_cap_sys_admin())


def _runs(command: list[str]) -> bool:
    try:
        return subprocess.run(command, capture_output=True, timeout=20, cwd="/", check=False).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@functools.cache
def bwrap_works() -> bool:
    """Is bubblewrap installed and able to make its namespaces here?"""
    bwrap = shutil.which("bwrap")
    trial = [bwrap or "bwrap", *system_binds(), "--unshare-net", "--unshare-pid", "--die-with-parent", "/usr/bin/true"]
    return bwrap is not None and _runs(trial)


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


def detect_bubblewrap() -> str | None:
    if bwrap_works():
        return None
    if shutil.which("bwrap") is None:
        return "bubblewrap is not installed (apt-get install bubblewrap)"
    return "bubblewrap cannot make its namespaces here (no unprivileged user namespaces, or a container forbids them)"


def detect_unshare() -> str | None:
    if unshare_works(user_namespace=unshare_needs_user_namespace()):
        return None
    return "unshare cannot make namespaces here: no CAP_SYS_ADMIN, and no unprivileged user namespaces"


def detect_seccomp() -> str | None:
    if seccomp_known():
        return None
    return "the worker has no seccomp filter for this architecture (x86_64 and aarch64 only)"


def detect_landlock() -> str | None:
    if not seccomp_known():
        return detect_seccomp()
    if landlock_abi() == 0:
        return "the kernel has no Landlock (Linux 5.13 or later, with landlock among its LSMs)"
    return None


def detect_nothing() -> str | None:
    """The ``none`` tier needs nothing (the preflight then refuses it unless ``--unisolated``)."""
    return None
