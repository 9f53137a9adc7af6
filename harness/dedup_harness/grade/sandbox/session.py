"""Start the grading worker behind every protection its tier offers, and take it down again.

Layers, outermost first (docs/isolation.md says what each protects; ``tiers.TIERS`` which a tier has):
the tier's namespaces (bubblewrap or unshare); ``setpriv`` to a uid of the worker's own (``users``)
when the grader is root, which ignores RLIMIT_NPROC and could signal or delete anything; resource
limits set before exec, a scrubbed environment, output on a pipe the grader drains and cuts; inside
the worker, before any submission code, Landlock and seccomp (whose listener comes back over a socket
of the grader's: ``grade/kernel_refusals.py``), then its audit hook. The interpreter runs by its real
path (a venv's link is not visible in a sandbox) with ``-I -S``.

The session folder (``folder``) is a tmpfs of the process's own mount namespace where this process
grades one submission in a tier with namespaces (``own_disk``), else on the temp folder's disk under
a watch (``disk``); there the worker is paused between calls (SIGSTOP), so its threads never write
while the grader writes its own files. Either way a full disk is the submission's verdict, never its
classmate's.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import signal
import socket
import subprocess
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from dedup_harness.core import scratch_dirs, signals
from dedup_harness.core.write_watch import WatchedFolders
from dedup_harness.grade import identity, worker
from dedup_harness.grade.kernel_refusals import Decider, KernelRefusals
from dedup_harness.grade.sandbox import leftovers, own_disk
from dedup_harness.grade.sandbox.disk import LOW_SPACE, DiskWatch, WorkerDisk, space_left
from dedup_harness.grade.sandbox.folder import make_session
from dedup_harness.grade.sandbox.launch import Launch, harness_folders
from dedup_harness.grade.sandbox.limits import Limits, prctl_function, set_limits
from dedup_harness.grade.sandbox.output import OutputTrap
from dedup_harness.grade.sandbox.packages import for_worker
from dedup_harness.grade.sandbox.protections import WORKER_ENV, describe
from dedup_harness.grade.sandbox.tiers import Tier, WorkerSetup, row, worker_setup
from dedup_harness.grade.sandbox.users import (
    claim_slot,
    drop_privileges,
    kill_uid,
    release_slot,
    tasks_of,
    worker_uid,
)

T = TypeVar("T")
PAUSE_BELOW = 4 << 30  # free bytes under which a worker without a disk of its own is paused between calls


def pause_child(pid: int) -> None:
    """Stop the group led by our child ``pid`` (SIGSTOP) and return once every thread of the child has stopped.

    ``killpg`` returns at once; a thread inside a system call stops only when the call returns (a 48 MB
    write to a slow disk takes a while), and until then it may still fill the disk. So the grader waits
    for the kernel to report it stopped (``waitid`` with WSTOPPED: every thread has stopped), without
    consuming that report or an exit (WNOWAIT: ``Popen`` still reaps it). No polling.
    """
    try:
        os.killpg(pid, signal.SIGSTOP)
    except (ProcessLookupError, PermissionError):
        return
    with contextlib.suppress(ChildProcessError, InterruptedError):
        os.waitid(os.P_PID, pid, os.WSTOPPED | os.WEXITED | os.WNOWAIT)


def worker_command(python: str, code: Path, request_fd: int, reply_fd: int, settings: dict[str, Any]) -> list[str]:
    """The interpreter and the worker's arguments (see ``grade.worker``)."""
    unbuffered = "-u"  # what the submission printed before it was killed is not lost
    bootstrap = [python, "-I", "-S", "-B", unbuffered, "-c", worker.BOOTSTRAP]
    return [*bootstrap, str(code), str(code / "root"), str(request_fd), str(reply_fd), json.dumps(settings)]


@dataclass
class WorkerProcess:
    """One running worker: the process, the grader's ends of the protocol pipes, its output, its refusals."""

    process: subprocess.Popen[bytes]
    request_fd: int
    reply_fd: int
    output: list[OutputTrap]
    refusals: KernelRefusals  # what its seccomp filter refused, as the kernel tells the grader


class Sandbox:
    """One submission's session folder and the way to start its worker.

    ``own_namespace``: the calling process grades this submission alone and has a single thread (the
    grading plugin's suite process), so it may move into a mount namespace of its own and give the
    session a tmpfs there, where the setup offers one.
    """

    def __init__(
        self, root: Path, limits: Limits, setup: WorkerSetup | None = None, *, own_namespace: bool = False
    ) -> None:
        self.limits = limits
        self.setup = setup or worker_setup()
        self.tier = self.setup.tier
        self.slot = claim_slot()
        self.uid = worker_uid(self.slot)
        self.own_disk = own_namespace and self.setup.own_disk
        try:
            self.session = make_session(root, self.uid, own=self.own_disk, disk_bytes=limits.disk_bytes)
        except BaseException:
            release_slot(self.slot)
            raise
        self.code = self.session / "code"
        self.home = self.session / "home"
        self.shared = self.session / "shared"
        self.disk = WorkerDisk(self.home, self.shared, limits.disk_bytes, own=self.own_disk)
        self.watch: DiskWatch | None = None
        self.running: int | None = None  # the running worker's process group
        self.paused = False
        self.stillness = threading.Lock()  # pausing between calls and holding still for the watch, one at a time
        self.python = self.setup.interpreter.path
        self.protections = describe(self.setup, self.uid, limits, own_disk=self.own_disk)
        self.traps: list[OutputTrap] = []
        shares_uid = self.uid is None and not row(self.tier).namespaces  # nothing keeps it off the run's copy
        own_copy = self.code / "packages" if shares_uid else None
        try:
            self.packages = for_worker(self.setup.packages, root, own_copy=own_copy)
        except BaseException:  # no room for its copy of them: nothing of this session is left behind
            self.close()
            raise

    # -- permissions ----------------------------------------------------------------------------

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
        self.disk.granted.append(target)
        return True

    def as_worker(self, action: Callable[[], T]) -> T:
        """``action()`` with the worker's file-system identity (``identity``): /proc shows it what the worker's own."""
        return identity.run_as(self.uid, action)

    # -- starting -------------------------------------------------------------------------------

    def settings(self) -> dict[str, Any]:
        """What the worker is asked to do to itself before any submission code runs, and what it may import."""
        found = {"packages": self.packages} if self.packages else {}
        if self.tier is Tier.NONE or not (self.setup.landlock_abi or self.setup.seccomp):
            return found
        confine = {
            "landlock": self.setup.landlock_abi > 0 and self.tier is not Tier.SECCOMP,
            "seccomp": self.setup.seccomp,
            "require_landlock": self.tier is Tier.LANDLOCK,
            # Its own /proc entry (Landlock follows the link to /proc/<its pid>): nobody else's.
            "read_only": [str(self.code), "/proc/self", *([self.packages["path"]] if self.packages else [])],
            "read_write": [str(self.home), str(self.shared)],
            "hidden": [str(path) for path in harness_folders(self.session)],
            "grader_decides_files": self.decides_files,
        }
        return {**found, "confine": confine}

    @property
    def decides_files(self) -> bool:
        """Does the grader decide this worker's file calls (the seccomp tier, where the kernel lets it)?"""
        return self.tier is Tier.SECCOMP and self.setup.decides_files

    def environment(self) -> dict[str, str]:
        return {**WORKER_ENV, "HOME": str(self.home), "TMPDIR": str(self.home)}

    def command(self, request_fd: int, reply_fd: int, refusals_fd: int | None = None) -> list[str]:
        settings = {**self.settings(), **({"refusals_fd": refusals_fd} if refusals_fd is not None else {})}
        passed = (request_fd, reply_fd, *((refusals_fd,) if refusals_fd is not None else ()))
        launch = Launch(
            worker=worker_command(self.python, self.code, request_fd, reply_fd, settings),
            as_worker=drop_privileges(self.uid),
            uid=self.uid,
            session=self.session,
            home=self.home,
            interpreter_prefix=self.setup.interpreter.prefix,
            env=self.environment(),
            temp_bytes=self.limits.tmpfs_bytes,
            user_namespace=self.setup.user_namespace,
            own_disk=self.own_disk,
            hidden=harness_folders(self.session),
            packages=Path(self.setup.packages.folder) if self.setup.packages else None,
            passed_fds=passed,
        )
        return row(self.tier).command(launch)

    def start(self) -> WorkerProcess:
        request_read, request_write = os.pipe()
        reply_read, reply_write = os.pipe()
        output_read, output_write = os.pipe()
        refusals_here, refusals_there = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)  # one message, whole
        limits = self.limits.rlimits()
        if self.uid is None:  # the grader's own user: the limit counts its other tasks too
            limits["RLIMIT_NPROC"] += tasks_of(os.getuid())
        # deferred: Popen runs the at-fork callbacks (preexec_fn), where a signal's exception would be dropped
        with signals.deferred():
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
            self.watch = DiskWatch(self.disk, functools.partial(self._stop_for_disk, process.pid), self.held)
            self.running = process.pid
            decider = Decider(process.pid, self.uid, self.limits.file_bytes) if self.decides_files else None
        return WorkerProcess(process, request_write, reply_read, [trap], KernelRefusals(refusals_here, decider))

    def stop(self, worker: WorkerProcess) -> None:
        """Kill the worker and everything it started, and close the grader's ends."""
        if self.watch is not None:
            self.watch.end()
            self.watch = None
        self.running = None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(worker.process.pid, signal.SIGKILL)
        try:  # reaped first: in a tier without namespaces it is of the worker's uid, and a zombie counts
            worker.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            worker.process.kill()
        self.kill_strays()
        worker.refusals.close()
        if self.disk.overrun() is not None:  # stopped for another reason with its disk full: room for the rest
            self.disk.reclaim()
        for fd in (worker.request_fd, worker.reply_fd):
            with contextlib.suppress(OSError):
                os.close(fd)

    def pause(self) -> None:
        """Between calls, where the session shares a nearly full disk: the worker stops (SIGSTOP).

        Its threads would otherwise go on writing while the grader writes its own files there. The
        grader waits until the whole worker has stopped (a thread may be inside a long write), then,
        if that left the disk short of space, has the watch look at once. With more than
        ``PAUSE_BELOW`` free, no write between two looks of the watch could fill the disk, and the
        worker runs on (a pause costs a round trip through the scheduler). (In the tiers with
        namespaces the disk is its own, and the worker is not our child.)
        """
        if self.running is None or row(self.tier).namespaces or space_left(self.home) > PAUSE_BELOW:
            return
        with self.stillness:
            pause_child(self.running)
            self.paused = True
        if self.watch is not None and space_left(self.home) < LOW_SPACE:
            self.watch.look()

    def resume(self) -> None:
        """A call is about to be made: a paused worker runs again (SIGCONT)."""
        with self.stillness:
            if self.paused and self.running is not None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.running, signal.SIGCONT)
            self.paused = False

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """The worker stopped while its disk watch walks what it wrote (the tiers without namespaces, where it
        is our child): no write lands between the look and the walk. A worker paused between calls stays so."""
        with self.stillness:
            here = self.running if not self.paused and not row(self.tier).namespaces else None
            if here is not None:
                pause_child(here)
            try:
                yield
            finally:
                if here is not None:
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.killpg(here, signal.SIGCONT)

    def kill_strays(self) -> None:
        """Every process of the worker's uid, even one that left the process group and namespace."""
        if self.uid is not None:
            kill_uid(self.uid)

    def writes(self) -> WatchedFolders:
        """A watch over everywhere the worker may write (``core.write_watch``): its home (its temp folder and working
        folder) and the session's shared folder (every spool folder a check handed it), as many entries as its disk
        may hold."""
        folders = {self.home: "the worker's home, its temp folder", self.shared: "the session"}
        return WatchedFolders(folders, limit=own_disk.INODES + 1)

    # -- the disk -------------------------------------------------------------------------------

    def disk_overrun(self, *, look_now: bool = False) -> str | None:
        """None while the worker keeps within its disk; else the verdict's words ("disk full: ...").

        While a worker runs, its watch looks on its own schedule and this only reads what it found (a
        look walks every folder the worker made); ``look_now`` has it look at once.
        """
        if self.watch is not None:
            if look_now:
                self.watch.look()
            return self.watch.verdict
        return self.disk.overrun()

    def _stop_for_disk(self, pid: int) -> None:
        """The disk watch's stop: the worker and everything it started killed, what it wrote removed."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
        self.kill_strays()
        self.disk.reclaim()

    def reclaim(self) -> None:
        """Once the worker is stopped: remove what it wrote, so the checks after this one have room."""
        self.disk.reclaim()

    # -- its output, and the end ----------------------------------------------------------------

    def output(self) -> str:
        return "\n".join(trap.text() for trap in self.traps if trap.total)

    def output_bytes(self) -> int:
        return sum(trap.total for trap in self.traps)

    def close(self) -> None:
        """Kill what is left of the worker and remove the session, whatever the submission made of it."""
        if self.running is not None:  # a worker no one stopped: a signal ended the run as it started
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.running, signal.SIGKILL)
        self.kill_strays()
        if self.uid is not None and not row(self.tier).namespaces:
            leftovers.remove_everything_of(self.uid)  # in the world-writable folders and in System V IPC
        if self.own_disk:
            own_disk.unmount(self.session)
        scratch_dirs.remove(self.session)  # what stays is a line on stderr; the next sweep tries again
        release_slot(self.slot)
