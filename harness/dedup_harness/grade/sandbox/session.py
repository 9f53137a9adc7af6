"""Start the grading worker behind every protection its tier offers, and take it down again.

Layers, outermost first (``tiers`` says which tier this machine offers):

- the tier's namespaces: bubblewrap (only /usr, the interpreter and the session folder visible) or
  unshare (the harness's folders covered), each with new network, pid and ipc namespaces;
- ``setpriv`` to a dedicated uid (1,000,000 + the grader's pid, so parallel graders never share one)
  when the grader is root: root ignores RLIMIT_NPROC and could signal or delete anything. No
  capabilities, no new privileges;
- resource limits set before exec (address space, CPU, file size, open files, processes, no core);
  a scrubbed environment; stdout and stderr on a pipe the grader drains and truncates;
- inside the worker, before any submission code: Landlock (files: its code read-only, its home and
  the shared folder read-write, nothing else but what the interpreter needs; TCP; signal and
  abstract-socket scopes) and seccomp, where the kernel has them, whose listener comes back over a
  socket of the grader's so the kernel reports each refused call (``grade/kernel_refusals.py``);
  then its audit hook.

The interpreter is the setup's: a Python >= 3.11 the worker's user can run, by its real path (a
venv's link is not visible in a sandbox), with ``-I -S``: the standard library only.
``Protections`` records what was in force, for the report.

A session folder holds ``code/`` (the worker package and a copy of the submission root, read-only to
the worker), ``home/`` (the worker's scratch and working directory) and ``shared/`` (the grader's,
where the checks' temporary folders live, so a ``spool_dir`` a check passes is visible to both sides;
the worker may write only in the spool folders granted to it).
"""

from __future__ import annotations

import compileall
import contextlib
import functools
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dedup_harness.core import removal, scratch_dirs
from dedup_harness.grade import worker
from dedup_harness.grade.kernel_refusals import KernelRefusals
from dedup_harness.grade.sandbox.bwrap import bwrap_args
from dedup_harness.grade.sandbox.limits import Limits, prctl_function, set_limits
from dedup_harness.grade.sandbox.output import OutputTrap
from dedup_harness.grade.sandbox.protections import WORKER_ENV, describe
from dedup_harness.grade.sandbox.tiers import Tier, WorkerSetup, harness_folders, worker_setup
from dedup_harness.grade.sandbox.unshare import unshare_prefix
from dedup_harness.grade.sandbox.users import drop_privileges, kill_uid, sweep_stale_workers, tasks_of, worker_uid

WORKER_PACKAGE = Path(worker.__file__).resolve().parent
SESSION = "session"  # the session folder's kind: dedup-harness-session-<grader pid>.<start>-...
PUBLIC_TEMP = ("/tmp", "/var/tmp", "/dev/shm")


@functools.cache
def compiled_worker_package() -> Path:
    """The worker package with its bytecode, compiled once per grader where the harness is writable.

    The worker runs with -B (it never writes bytecode) and would otherwise compile its modules at
    every start, some 50 ms; an interpreter of another version ignores these files and compiles.
    """
    with contextlib.suppress(OSError):
        compileall.compile_dir(WORKER_PACKAGE, quiet=2)
    return WORKER_PACKAGE


def reachable_by_all(folder: Path) -> bool:
    """Can any user pass through ``folder`` and every folder above it?"""
    try:
        return all(path.stat().st_mode & 0o001 for path in [folder, *folder.parents])
    except OSError:
        return False


def session_parent(uid: int | None) -> Path:
    """Where session folders go: the temp folder, unless a worker of another uid could not reach into it.

    A root grader's TMPDIR may sit in a folder only root can enter (a folder the grader made with
    mkdtemp): its workers' sessions then go to the first of /tmp, /var/tmp and /dev/shm that every
    user can reach. (bubblewrap would not need it; the other tiers see the real file system.)
    """
    chosen = Path(tempfile.gettempdir())
    if uid is None or reachable_by_all(chosen):
        return chosen
    usable = (Path(p) for p in PUBLIC_TEMP if reachable_by_all(Path(p)) and os.access(p, os.W_OK | os.X_OK))
    return next(usable, chosen)


def sweep_stale_sessions(parent: Path) -> None:
    """Remove what graders killed before they could clean up left: their workers, then their folders."""
    sweep_stale_workers()
    scratch_dirs.sweep(parent)


@dataclass
class WorkerProcess:
    """One running worker: the process, the grader's ends of the protocol pipes, its output, its refusals."""

    process: subprocess.Popen[bytes]
    request_fd: int
    reply_fd: int
    output: list[OutputTrap]
    refusals: KernelRefusals  # what its seccomp filter refused, as the kernel tells the grader


class Sandbox:
    """One submission's session folder and the way to start its worker."""

    def __init__(self, root: Path, limits: Limits, setup: WorkerSetup | None = None) -> None:
        self.limits = limits
        self.setup = setup or worker_setup()
        self.tier = self.setup.tier
        self.uid = worker_uid()
        parent = session_parent(self.uid)
        sweep_stale_sessions(parent)
        self.session = Path(tempfile.mkdtemp(prefix=scratch_dirs.prefix(SESSION), dir=parent))
        self.session.chmod(0o711)
        self.code = self.session / "code"
        self.home = self.session / "home"
        self.shared = self.session / "shared"
        shutil.copytree(root, self.code / "root", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        shutil.copytree(compiled_worker_package(), self.code / worker.PACKAGE)
        self.home.mkdir()
        self._give(self.home)
        # shared/ stays the grader's (0711): the worker writes only in the spool folders granted to
        # it, and cannot rename or replace the folders the checks inspect.
        self.shared.mkdir(mode=0o711)
        self.shared.chmod(0o711)
        self._grant_read(self.code)
        self.python = self.setup.interpreter.path
        self.protections = describe(self.setup, self.uid, limits)
        self.traps: list[OutputTrap] = []

    # -- permissions ----------------------------------------------------------------------------

    def _give(self, path: Path) -> None:
        """Make ``path`` the worker's own (its uid), so it can write there and nowhere else we own."""
        if self.uid is not None:
            os.chown(path, self.uid, self.uid)
        path.chmod(0o700)

    def _grant_read(self, folder: Path) -> None:
        for path in [folder, *folder.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)

    def grant_spool_dir(self, path: Path) -> bool:
        """Let the worker write in a check's folder under ``shared/``; False if it lies elsewhere."""
        target = path.resolve()
        if not target.is_relative_to(self.shared) or not target.is_dir():
            return False
        for parent in target.relative_to(self.shared).parents:
            folder = self.shared / parent
            folder.chmod(folder.stat().st_mode | 0o011)
        if self.uid is not None:
            os.chown(target, self.uid, self.uid)
        return True

    # -- starting -------------------------------------------------------------------------------

    def settings(self) -> dict[str, Any]:
        """What the worker is asked to do to itself before any submission code runs."""
        if self.tier is Tier.NONE or not (self.setup.landlock_abi or self.setup.seccomp):
            return {}
        confine = {
            "landlock": self.setup.landlock_abi > 0 and self.tier is not Tier.SECCOMP,
            "seccomp": self.setup.seccomp,
            "require_landlock": self.tier is Tier.LANDLOCK,
            # Its own /proc entry (Landlock follows the link to /proc/<its pid>): nobody else's.
            "read_only": [str(self.code), "/proc/self"],
            "read_write": [str(self.home), str(self.shared)],
            "hidden": [str(path) for path in harness_folders(self.session)],
        }
        return {"confine": confine}

    def environment(self) -> dict[str, str]:
        return {**WORKER_ENV, "HOME": str(self.home), "TMPDIR": str(self.home)}

    def command(self, request_fd: int, reply_fd: int, refusals_fd: int | None = None) -> list[str]:
        settings = {**self.settings(), **({"refusals_fd": refusals_fd} if refusals_fd is not None else {})}
        started = [
            self.python,
            "-I",
            "-S",
            "-B",
            "-u",  # unbuffered: what the submission printed before it was killed is not lost
            "-c",
            worker.BOOTSTRAP,
            str(self.code),
            str(self.code / "root"),
            str(request_fd),
            str(reply_fd),
            json.dumps(settings),
        ]
        as_worker = drop_privileges(self.uid)
        if self.tier is Tier.BUBBLEWRAP:
            sandbox = bwrap_args(
                shutil.which("bwrap") or "bwrap",
                session=self.session,
                home=self.home,
                prefix=self.setup.interpreter.prefix,
                hidden=harness_folders(self.session),
                env=self.environment(),
                tmpfs_bytes=self.limits.tmpfs_bytes,
            )
            return [*sandbox, "--", *as_worker, *started]
        if self.tier is Tier.UNSHARE and self.setup.user_namespace:
            return [*as_worker, *unshare_prefix(harness_folders(self.session), user_namespace=True), *started]
        if self.tier is Tier.UNSHARE:
            return [*unshare_prefix(harness_folders(self.session), user_namespace=False), *as_worker, *started]
        return [*as_worker, *started]

    def start(self) -> WorkerProcess:
        request_read, request_write = os.pipe()
        reply_read, reply_write = os.pipe()
        output_read, output_write = os.pipe()
        refusals_here, refusals_there = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        limits = self.limits.rlimits()
        if self.uid is None:  # the grader's own user: the limit counts its other tasks too
            limits["RLIMIT_NPROC"] += tasks_of(os.getuid())
        try:
            process = subprocess.Popen(
                self.command(request_read, reply_write, refusals_there.fileno()),
                stdin=subprocess.DEVNULL,
                stdout=output_write,
                stderr=output_write,
                pass_fds=(request_read, reply_write, refusals_there.fileno()),
                cwd=self.home,
                env=self.environment(),
                start_new_session=True,  # its own process group: a timeout kills all of it
                preexec_fn=functools.partial(set_limits, limits, prctl_function()),
            )
        except BaseException:
            refusals_here.close()
            raise
        finally:
            for fd in (request_read, reply_write, output_write):
                os.close(fd)
            refusals_there.close()
        trap = OutputTrap(output_read, self.limits.output_bytes)
        self.traps.append(trap)
        return WorkerProcess(process, request_write, reply_read, [trap], KernelRefusals(refusals_here))

    def stop(self, worker: WorkerProcess) -> None:
        """Kill the worker and everything it started, and close the grader's ends."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(worker.process.pid, signal.SIGKILL)
        try:  # reaped first: in a tier without namespaces it is of the worker's uid, and a zombie counts
            worker.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            worker.process.kill()
        self.kill_strays()
        worker.refusals.close()
        for fd in (worker.request_fd, worker.reply_fd):
            with contextlib.suppress(OSError):
                os.close(fd)

    def kill_strays(self) -> None:
        """Every process of the worker's uid, even one that left the process group and namespace."""
        if self.uid is not None:
            kill_uid(self.uid)

    def disk_used(self) -> int:
        """The disk the worker's folders take: allocated blocks (a sparse file counts what it holds), any depth."""
        return sum(removal.allocated_bytes(folder) for folder in (self.home, self.shared))

    def output(self) -> str:
        return "\n".join(trap.text() for trap in self.traps if trap.total)

    def output_bytes(self) -> int:
        return sum(trap.total for trap in self.traps)

    def close(self) -> None:
        """Kill what is left of the worker and remove the session, whatever the submission made of it."""
        self.kill_strays()
        scratch_dirs.remove(self.session)  # what stays is a line on stderr; the next sweep tries again
