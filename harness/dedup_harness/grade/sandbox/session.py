"""Start the grading worker behind every protection this machine offers, and take it down again.

Layers, outermost first:

- bubblewrap when it works here: new network, pid, ipc and uts namespaces; only /usr and the session
  folder are visible (the harness's own files are not); /tmp and the worker's home are small tmpfs.
- else, as root, ``unshare``: new network, pid and mount namespaces, with an empty tmpfs mounted over
  the harness's folders; the rest of the file system stays visible (read as an unprivileged user).
- ``setpriv`` to a dedicated uid (1,000,000 + the grader's pid, so parallel graders never share one)
  when the grader is root: root ignores RLIMIT_NPROC and could signal or delete anything. No
  capabilities, no new privileges.
- resource limits set before exec (address space, CPU, file size, open files, processes, no core);
  a scrubbed environment; stdout and stderr on a pipe the grader drains and truncates.

The interpreter is one the worker's user can run (``/usr/bin/python3`` first: a pyenv under root's
0700 home is out of its reach), with ``-I -S``: the standard library only. ``Protections`` records
what was in force, for the report.

A session folder holds ``code/`` (the worker package and a copy of the submission root, read-only to
the worker), ``home/`` (the worker's scratch and working directory) and ``shared/`` (the grader's,
where the checks' temporary folders live, so a ``spool_dir`` a check passes is visible to both sides;
the worker may write only in the spool folders granted to it).
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from dedup_harness.core import scratch_dirs
from dedup_harness.core.paths import DATA_ROOT, PACKAGE_DIR
from dedup_harness.grade import worker
from dedup_harness.grade.sandbox.limits import Limits, prctl_function, set_limits
from dedup_harness.grade.sandbox.output import OutputTrap
from dedup_harness.grade.sandbox.protections import WORKER_ENV, Protections
from dedup_harness.grade.sandbox.tiers import (
    bwrap_works,
    harness_folders,
    interpreter,
    system_binds,
    unshare_prefix,
    unshare_works,
)
from dedup_harness.grade.sandbox.users import drop_privileges, kill_uid, sweep_stale_workers, worker_uid

WORKER_PACKAGE = Path(worker.__file__).resolve().parent
SESSION = "session"  # the session folder's kind: dedup-harness-session-<grader pid>.<start>-...


def sweep_stale_sessions() -> None:
    """Remove what graders killed before they could clean up left: their workers, then their folders."""
    sweep_stale_workers()
    scratch_dirs.sweep(Path(tempfile.gettempdir()))


@dataclass
class WorkerProcess:
    """One running worker: the process, the grader's ends of the protocol pipes, its output."""

    process: subprocess.Popen[bytes]
    request_fd: int
    reply_fd: int
    output: list[OutputTrap]


class Sandbox:
    """One submission's session folder and the way to start its worker."""

    def __init__(self, root: Path, limits: Limits, *, use_bwrap: bool = True) -> None:
        self.limits = limits
        self.uid = worker_uid()
        sweep_stale_sessions()
        self.session = Path(tempfile.mkdtemp(prefix=scratch_dirs.prefix(SESSION)))
        self.session.chmod(0o711)
        self.code = self.session / "code"
        self.home = self.session / "home"
        self.shared = self.session / "shared"
        shutil.copytree(root, self.code / "root", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        shutil.copytree(WORKER_PACKAGE, self.code / worker.PACKAGE, ignore=shutil.ignore_patterns("__pycache__"))
        self.home.mkdir()
        self._give(self.home)
        # shared/ stays the grader's (0711): the worker writes only in the spool folders granted to
        # it, and cannot rename or replace the folders the checks inspect.
        self.shared.mkdir(mode=0o711)
        self.shared.chmod(0o711)
        self._grant_read(self.code)
        self.python, version = interpreter(self.uid)
        self.mode = "bubblewrap" if use_bwrap and bwrap_works() else "unshare" if unshare_works() else "none"
        self.protections = self._protections(version)
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

    def command(self, request_fd: int, reply_fd: int) -> list[str]:
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
        ]
        inner = [*drop_privileges(self.uid), *started]
        if self.mode == "bubblewrap":
            return [*self._bwrap(), "--", *inner]
        if self.mode == "unshare":
            return [*unshare_prefix(shutil.which("unshare") or "unshare", harness_folders(self.session)), *inner]
        return inner

    def _bwrap(self) -> list[str]:
        args = [shutil.which("bwrap") or "bwrap", *system_binds()]
        args += [
            "--perms",
            "1777",
            "--size",
            str(self.limits.tmpfs_bytes),
            "--tmpfs",
            "/tmp",
            "--bind",
            str(self.session),
            str(self.session),
        ]
        # If the harness itself lives under /usr (a system-wide install), cover it.
        for private in (DATA_ROOT, PACKAGE_DIR):
            if private.resolve().is_relative_to("/usr"):
                args += ["--tmpfs", str(private.resolve())]
        if not Path(self.python).resolve().is_relative_to("/usr"):
            prefix = Path(sys.base_prefix).resolve()
            args += ["--ro-bind", str(prefix), str(prefix)]
        # Its home is a small tmpfs over the on-disk one: a disk filler meets "no space left" there.
        # bwrap makes it as root: world-writable (sticky) is how the worker's uid may write there.
        args += ["--perms", "1777", "--size", str(self.limits.tmpfs_bytes), "--tmpfs", str(self.home)]
        args += ["--chdir", str(self.home), "--clearenv"]
        for key, value in {**WORKER_ENV, "HOME": str(self.home), "TMPDIR": str(self.home)}.items():
            args += ["--setenv", key, value]
        args += ["--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
        return [*args, "--die-with-parent", "--new-session"]

    def start(self) -> WorkerProcess:
        request_read, request_write = os.pipe()
        reply_read, reply_write = os.pipe()
        output_read, output_write = os.pipe()
        limits = self.limits.rlimits()
        try:
            process = subprocess.Popen(
                self.command(request_read, reply_write),
                stdin=subprocess.DEVNULL,
                stdout=output_write,
                stderr=output_write,
                pass_fds=(request_read, reply_write),
                cwd=self.home,
                env={**WORKER_ENV, "HOME": str(self.home), "TMPDIR": str(self.home)},
                start_new_session=True,  # its own process group: a timeout kills all of it
                preexec_fn=functools.partial(set_limits, limits, prctl_function()),
            )
        finally:
            for fd in (request_read, reply_write, output_write):
                os.close(fd)
        trap = OutputTrap(output_read, self.limits.output_bytes)
        self.traps.append(trap)
        return WorkerProcess(process, request_write, reply_read, [trap])

    def stop(self, worker: WorkerProcess) -> None:
        """Kill the worker and everything it started, and close the grader's ends."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(worker.process.pid, signal.SIGKILL)
        self.kill_strays()
        try:
            worker.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            worker.process.kill()
        for fd in (worker.request_fd, worker.reply_fd):
            with contextlib.suppress(OSError):
                os.close(fd)

    def kill_strays(self) -> None:
        """Every process of the worker's uid, even one that left the process group and namespace."""
        if self.uid is not None:
            kill_uid(self.uid)

    def disk_used(self) -> int:
        total = 0
        for folder in (self.home, self.shared):
            for dirpath, _, files in os.walk(folder):
                for name in files:
                    with contextlib.suppress(OSError):
                        total += os.lstat(os.path.join(dirpath, name)).st_size
        return total

    def output(self) -> str:
        return "\n".join(trap.text() for trap in self.traps if trap.total)

    def output_bytes(self) -> int:
        return sum(trap.total for trap in self.traps)

    def close(self) -> None:
        self.kill_strays()
        shutil.rmtree(self.session, ignore_errors=True)

    # -- the report -----------------------------------------------------------------------------

    def _protections(self, version: str) -> Protections:
        p = Protections(isolation=self.mode, interpreter=self.python, interpreter_version=version)
        p.limits = {**self.limits.rlimits(), "call_seconds": self.limits.call_seconds}
        p.limits |= {"submission_seconds": self.limits.submission_seconds, "output_bytes": self.limits.output_bytes}
        p.limits |= {"disk_bytes": self.limits.disk_bytes}
        if self.uid is not None:
            p.user = f"uid {self.uid} (unprivileged, no capabilities, no new privileges)"
            p.process_limit_enforced = True
        else:
            p.user = f"uid {os.getuid()}, the grader's own (the grader is not root)"
            p.process_limit_enforced = os.getuid() != 0
            p.notes.append("the worker runs as the grader's user: it could signal or change the grader's files")
        if self.mode == "bubblewrap":
            p.network = "none: a new network namespace (bubblewrap)"
            p.process_namespace = True
            p.harness_files_hidden = True
        elif self.mode == "unshare":
            p.network = "none: a new network namespace (unshare)"
            p.process_namespace = True
            p.harness_files_hidden = True
            p.notes.append(
                "no bubblewrap: the harness's folders are covered by empty mounts, but the worker sees the rest "
                "of the file system (as its own user: it can read what is world-readable, other copies of the "
                "reference included)"
            )
        else:
            p.network = "not isolated: no bubblewrap, and unshare needs root"
            p.notes.append("no namespaces: install bubblewrap for network and file-system isolation")
        return p
