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

A session folder holds ``code/`` (the worker script and a copy of the submission root, read-only to
the worker), ``home/`` (the worker's scratch and working directory) and ``shared/`` (the grader's,
where the checks' temporary folders live, so a ``spool_dir`` a check passes is visible to both sides;
the worker may write only in the spool folders granted to it).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from dedup_harness.paths import DATA_ROOT, PACKAGE_DIR

WORKER_SCRIPT = Path(__file__).resolve().parent / "worker.py"
SESSION_PREFIX = "dedup-harness-grade-"
OWNER_FILE = "grader.pid"  # a session whose grader is gone is removed by the next grader
UID_BASE = 1_000_000  # worker uid = UID_BASE + the grader's pid: no two live graders share one
WORKER_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0", "PYTHONIOENCODING": "utf-8"}


@dataclass(frozen=True)
class Limits:
    """What one submission's worker may use."""

    call_seconds: float = 10.0
    submission_seconds: float = 120.0
    cpu_seconds: int = 120
    memory_bytes: int = 1 << 30
    file_bytes: int = 64 << 20
    open_files: int = 64
    processes: int = 32
    output_bytes: int = 16 << 10
    disk_bytes: int = 256 << 20
    tmpfs_bytes: int = 64 << 20

    def rlimits(self) -> dict[str, int]:
        return {
            "RLIMIT_AS": self.memory_bytes,
            "RLIMIT_CPU": self.cpu_seconds,
            "RLIMIT_FSIZE": self.file_bytes,
            "RLIMIT_NOFILE": self.open_files,
            "RLIMIT_NPROC": self.processes,
            "RLIMIT_CORE": 0,
        }


@dataclass
class Protections:
    """What was in force for one submission's worker: goes into the report as it is."""

    isolation: str  # "bubblewrap", "unshare" or "none"
    interpreter: str
    interpreter_version: str = ""
    user: str = ""
    network: str = ""
    process_namespace: bool = False
    harness_files_hidden: bool = False
    process_limit_enforced: bool = False
    environment: str = "scrubbed: " + ", ".join(sorted(WORKER_ENV))
    limits: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def is_root() -> bool:
    return os.geteuid() == 0


def worker_uid() -> int | None:
    """The uid the worker runs as: a dedicated one when the grader is root, else the grader's own."""
    return UID_BASE + os.getpid() if is_root() else None


def drop_privileges(uid: int | None) -> list[str]:
    if uid is None:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        raise RuntimeError("the grader runs as root but setpriv (util-linux) is missing: refusing to run submissions")
    return [
        setpriv,
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--no-new-privs",
    ]


@functools.cache
def bwrap_works() -> bool:
    """Is bubblewrap installed and able to make namespaces here (not inside a locked-down container)?"""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return False
    probe = [bwrap, *system_binds(), "--unshare-net", "--unshare-pid", "--die-with-parent", "/usr/bin/true"]
    return subprocess.run(probe, capture_output=True, timeout=20, check=False).returncode == 0


@functools.cache
def unshare_works() -> bool:
    unshare = shutil.which("unshare")
    if unshare is None or not is_root():
        return False
    with tempfile.TemporaryDirectory() as folder:
        probe = [*unshare_prefix(unshare, [Path(folder)]), "/usr/bin/true"]
        return subprocess.run(probe, capture_output=True, timeout=20, check=False).returncode == 0


def unshare_prefix(unshare: str, hide: Sequence[Path]) -> list[str]:
    """New network, pid and mount namespaces; an empty tmpfs over each folder in ``hide``, then exec."""
    mounts = [f"mount -t tmpfs -o size=4k,mode=0755 hidden {shlex.quote(str(path))}" for path in hide]
    script = " && ".join([*mounts, 'exec "$@"'])
    namespaces = ["--net", "--pid", "--fork", "--kill-child", "--mount", "--propagation", "private"]
    return [unshare, *namespaces, "/bin/sh", "-c", script, "sh"]


def harness_folders(session: Path) -> list[Path]:
    """The harness's own folders (reference, oracle, fixtures, tests), unless the session lies inside one."""
    folders = [path for path in {DATA_ROOT.resolve(), PACKAGE_DIR.resolve()} if not session.is_relative_to(path)]
    # One mount over the outer folder covers the inner one (whose mount point it hides).
    return sorted(
        path for path in folders if not any(path != other and path.is_relative_to(other) for other in folders)
    )


def system_binds() -> list[str]:
    """The read-only system tree the worker needs: /usr and the merged-/usr links."""
    args = ["--ro-bind", "/usr", "/usr", "--proc", "/proc", "--dev", "/dev"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        top = Path("/") / name
        if top.is_symlink():
            args += ["--symlink", os.readlink(top), str(top)]
        elif top.is_dir():
            args += ["--ro-bind", str(top), str(top)]
    return args


@functools.cache
def interpreter(uid: int | None) -> tuple[str, str]:
    """A Python >= 3.11 the worker's user can run (a pyenv under root's 0700 home cannot be), and its version."""
    # A venv's python may sit in a private folder; the interpreter behind it often does not.
    base = getattr(sys, "_base_executable", sys.executable)
    candidates = ["/usr/bin/python3", sys.executable, base, os.path.realpath(base), "/usr/local/bin/python3"]
    candidates.append(shutil.which("python3") or "")
    if uid is None:
        candidates.insert(0, sys.executable)
    check = "import sys, json, resource; print('%d.%d.%d' % sys.version_info[:3]); assert sys.version_info >= (3, 11)"
    for candidate in dict.fromkeys(c for c in candidates if c):
        command = [*drop_privileges(uid), candidate, "-I", "-S", "-c", check]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=20, cwd="/", check=False)
        except OSError:
            continue
        if done.returncode == 0:
            return candidate, done.stdout.strip()
    raise RuntimeError(f"no Python >= 3.11 that uid {uid} can run among {candidates}")


def processes_of(uid: int) -> list[int]:
    """Live processes whose real uid is ``uid`` (read from /proc)."""
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            lines = status.read_text().splitlines()
        except OSError:
            continue  # it ended while we looked
        uids = next((line.split()[1:] for line in lines if line.startswith("Uid:")), [])
        if uids and int(uids[0]) == uid:
            found.append(int(status.parent.name))
    return found


PR_SET_PDEATHSIG = 1


@functools.cache
def _prctl() -> Any:
    """libc's prctl, looked up before any fork (a forked child should not load libraries)."""
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


def _set_limits(limits: dict[str, int], prctl: Any) -> None:
    for name, value in limits.items():
        kind = getattr(resource, name)
        # CPU: a soft limit sends SIGXCPU, the hard one a second later SIGKILL.
        hard = value + 1 if name == "RLIMIT_CPU" else value
        resource.setrlimit(kind, (value, hard))
    # If the grader is killed (a run past its wall time), bwrap or unshare dies with it, and their
    # namespaces take the worker along. (The signal follows the thread that started the worker:
    # start workers from the thread that lives as long as the grading does.)
    if prctl is not None:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def sweep_stale_sessions() -> None:
    """Remove what graders killed before they could clean up left: their workers and folders."""
    for marker in Path(tempfile.gettempdir()).glob(f"{SESSION_PREFIX}*/{OWNER_FILE}"):
        with contextlib.suppress(OSError, ValueError):
            pid = int(marker.read_text(encoding="utf-8"))
            if not Path(f"/proc/{pid}").exists():
                if is_root():
                    kill_uid(UID_BASE + pid)
                shutil.rmtree(marker.parent, ignore_errors=True)


def kill_uid(uid: int) -> None:
    """Kill every process of ``uid`` from inside that uid (kill -1), until none is left.

    A fork bomb forks while it dies, hence the loop.
    """
    kill = shutil.which("kill") or "kill"
    deadline = time.monotonic() + 10
    while processes_of(uid) and time.monotonic() < deadline:
        subprocess.run([*drop_privileges(uid), kill, "-KILL", "-1"], cwd="/", check=False, capture_output=True)
        time.sleep(0.05)  # the kernel takes a moment to reap what it killed


class OutputTrap:
    """Drains the worker's stdout and stderr on a thread, keeping the first ``keep`` bytes."""

    def __init__(self, fd: int, keep: int) -> None:
        self.keep = keep
        self.head = bytearray()
        self.total = 0
        self.thread = threading.Thread(target=self._drain, args=(fd,), name="worker-output", daemon=True)
        self.thread.start()

    def _drain(self, fd: int) -> None:
        with os.fdopen(fd, "rb", buffering=0) as pipe:
            while chunk := pipe.read(1 << 16):
                self.total += len(chunk)
                if len(self.head) < self.keep:
                    self.head += chunk[: self.keep - len(self.head)]

    def text(self) -> str:
        self.thread.join(timeout=1)
        text = self.head.decode("utf-8", "replace")
        if self.total > len(self.head):
            text += f"\n[... {self.total - len(self.head)} more bytes of output dropped]"
        return text


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
        self.session = Path(tempfile.mkdtemp(prefix=SESSION_PREFIX))
        self.session.chmod(0o711)
        (self.session / OWNER_FILE).write_text(str(os.getpid()), encoding="utf-8")
        self.code = self.session / "code"
        self.home = self.session / "home"
        self.shared = self.session / "shared"
        shutil.copytree(root, self.code / "root", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        shutil.copy2(WORKER_SCRIPT, self.code / "worker.py")
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
        worker = [
            self.python,
            "-I",
            "-S",
            "-B",
            "-u",  # unbuffered: what the submission printed before it was killed is not lost
            str(self.code / "worker.py"),
            str(self.code / "root"),
            str(request_fd),
            str(reply_fd),
        ]
        inner = [*drop_privileges(self.uid), *worker]
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
                preexec_fn=functools.partial(_set_limits, limits, _prctl()),
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


def describe_status(status: int | None, mode: str) -> str:
    """The worker's exit status in words. Through bubblewrap a death by signal N shows as 128 + N."""
    if status is None:
        return "is still running"
    number = -status if status < 0 else status - 128 if mode == "bubblewrap" and 128 < status < 160 else 0
    if number:
        name = signal.Signals(number).name if number in signal.Signals._value2member_map_ else f"signal {number}"
        why = {
            "SIGSEGV": " (a crash: segmentation fault)",
            "SIGXCPU": " (its CPU time ran out)",
            "SIGXFSZ": " (it wrote a file past the size limit)",
            "SIGKILL": " (killed)",
            "SIGABRT": " (aborted)",
        }.get(name, "")
        return f"was killed by {name}{why}"
    return f"exited with status {status}"
