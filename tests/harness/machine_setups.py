"""The three setups graders run in, emulated on a root machine: root, a non-root user, a container.

- ``root``: as is (CI, with or without bubblewrap);
- ``user``: an unprivileged system user, through ``setpriv --reuid --regid --init-groups`` (a TA's
  laptop, a CI runner);
- ``container``: root with a container runtime's default capability set (no CAP_SYS_ADMIN), through
  ``setpriv --bounding-set ... --inh-caps -all`` (Gradescope).

Each child checks its own uid and effective capabilities against its setup, so a setup that failed
to apply fails the test instead of passing it vacuously. What a machine lacks (not Linux, not root,
no setpriv, no useradd) is a skip with its reason.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from dedup_harness.core.paths import DATA_FOLDERS, DATA_ROOT, INSTALLED, PACKAGE_DIR

SYSTEM_PYTHON = "/usr/bin/python3"
TEST_USER = "dedup-harness-test"
CONTAINER_CAPS = (
    "-all,+chown,+dac_override,+fowner,+fsetid,+kill,+setgid,+setuid,+setpcap,"
    "+net_bind_service,+net_raw,+sys_chroot,+mknod,+audit_write,+setfcap"
)
CAP_DAC_OVERRIDE = 1
CAP_SYS_ADMIN = 21
SETUPS = ("root", "user", "container")
# A file whose path the whole run's first process names (tests/conftest.py): the test user's name, written by the
# process that made it, so that the run removes it once every xdist worker is done.
TEST_USER_MADE = "DEDUP_HARNESS_TEST_USER_MADE"


@dataclass(frozen=True)
class Case:
    """One way a grade runs: a setup, bubblewrap on PATH or hidden, the tier asked for and the one expected."""

    setup: str
    bubblewrap: bool  # on PATH, or hidden from it
    tier: str  # what --tier asks for
    expected: str  # the tier the reports must name


# Every tier in every setup that offers it: root with and without bubblewrap (CI), a non-root user with
# and without it (a TA's laptop), a container's capability set without it (Gradescope), and the
# Landlock tier forced where no namespace is wanted.
CASES = [
    Case("root", True, "auto", "bubblewrap"),
    Case("root", False, "auto", "unshare"),
    Case("user", True, "auto", "bubblewrap"),
    Case("user", False, "auto", "unshare"),
    Case("container", False, "auto", "unshare"),
    Case("user", False, "landlock", "landlock"),
    Case("container", False, "landlock", "landlock"),
]


def case_id(case: Case) -> str:
    return f"{case.setup}-{'with' if case.bubblewrap else 'no'}-bwrap-{case.tier}"


@dataclass(frozen=True)
class Setup:
    """How a child is started in one setup, and who it must find itself to be."""

    name: str
    prefix: tuple[str, ...]
    uid: int
    gid: int

    def check_identity(self, uid: int, gid: int, capeff: int) -> None:
        """The child really ran in this setup (no vacuous pass)."""
        assert (uid, gid) == (self.uid, self.gid), f"{self.name}: ran as {uid}:{gid}"
        if self.name == "root":
            assert capeff >> CAP_SYS_ADMIN & 1, "root without CAP_SYS_ADMIN"
        elif self.name == "user":
            assert capeff == 0, f"the user has capabilities {capeff:#x}"
        else:
            assert not capeff >> CAP_SYS_ADMIN & 1 and capeff >> CAP_DAC_OVERRIDE & 1, f"container caps {capeff:#x}"


def missing_for_setups() -> str | None:
    """Why this machine cannot emulate the setups, or None."""
    if sys.platform != "linux":
        return "the setups are Linux-only"
    if os.geteuid() != 0:
        return "emulating the three setups needs the tests to run as root"
    if shutil.which("setpriv") is None:
        return "setpriv (util-linux) is not installed"
    return None


def for_case(case: Case, request: pytest.FixtureRequest) -> tuple[Setup, Path]:
    """The case's setup and the grader's interpreter there (the ``test_user`` and ``user_python`` fixtures
    for the non-root user); a skip, with its reason, where this machine cannot run the case."""
    reason = missing_for_setups()
    if reason is not None:
        pytest.skip(reason)
    if case.bubblewrap and shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed (apt-get install bubblewrap)")
    user = request.getfixturevalue("test_user") if case.setup == "user" else None
    python = request.getfixturevalue("user_python") if case.setup == "user" else Path(sys.executable)
    return setup_for(case.setup, user), python


def ensure_user() -> tuple[pwd.struct_passwd | None, str, bool]:
    """The test user (made now if missing): (its entry or None, why not, whether it was made here)."""
    try:
        return pwd.getpwnam(TEST_USER), "", False
    except KeyError:
        pass
    made = subprocess.run(
        ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", TEST_USER],
        capture_output=True,
        text=True,
        check=False,
    )
    if made.returncode != 0:
        with contextlib.suppress(KeyError):  # another xdist worker made it first
            return pwd.getpwnam(TEST_USER), "", False
        return None, f"cannot create the user {TEST_USER}: {made.stderr.strip()}", False
    return pwd.getpwnam(TEST_USER), "", True


def setup_for(name: str, user: pwd.struct_passwd | None) -> Setup:
    if name == "root":
        return Setup(name, (), 0, 0)
    if name == "container":
        return Setup(name, ("setpriv", "--bounding-set", CONTAINER_CAPS, "--inh-caps", "-all"), 0, 0)
    assert user is not None
    prefix = ("setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--init-groups")
    return Setup(name, prefix, user.pw_uid, user.pw_gid)


def public_folder(prefix: str) -> Path:
    """A fresh folder under /tmp that every setup's user can enter (pytest's tmp_path is 0700)."""
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    folder.chmod(0o755)
    return folder


def own_temp(base: Path) -> str:
    """A temp folder in ``base`` that every setup's user may write in, for a grader's TMPDIR: what the test user's
    processes make while they run (multiprocessing's pymp-*) stays out of /tmp, where test_batch_attacks looks for
    what its own batch left behind while other modules run beside it."""
    folder = base / "tmp"
    folder.mkdir()
    folder.chmod(0o1777)
    return str(folder)


def capeff() -> int:
    status = Path("/proc/self/status").read_text(encoding="ascii")
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("CapEff:")), 16)


def python_for_user(folder: Path, user: pwd.struct_passwd) -> tuple[Path | None, str]:
    """An interpreter the test user can run with this harness importable, or why there is none.

    ``DEDUP_HARNESS_USER_PYTHON`` names one (``.ci/run`` builds a venv from /usr/bin/python3 in a
    world-readable place). Otherwise: a venv made here from Debian's /usr/bin/python3 whose
    site-packages adds this environment's (``site.addsitedir``): the same packages, run by an
    interpreter outside root's home. It works when both are CPython 3.11 and this environment is
    readable by the user; the check below says so, or why not.
    """
    named = os.environ.get("DEDUP_HARNESS_USER_PYTHON")
    if named:
        python = Path(named)
    else:
        made = subprocess.run([SYSTEM_PYTHON, "-m", "venv", "--without-pip", str(folder)], capture_output=True)
        if made.returncode != 0:
            return None, f"cannot make a venv from {SYSTEM_PYTHON}: {made.stderr.decode()[-300:]}"
        site_packages = next(folder.glob("lib/python3*/site-packages"))
        ours = [p for p in sys.path if p.endswith(("site-packages", "dist-packages")) and Path(p).is_dir()]
        lines = [f"import site; site.addsitedir({p!r})" for p in ours]
        (site_packages / "dedup-harness-tests.pth").write_text("\n".join(lines) + "\n", encoding="utf-8")
        python = folder / "bin" / "python"
    trial = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--init-groups", str(python)]
    trial += ["-c", "import dedup_harness.cli, pytest, hypothesis, rich"]
    done = subprocess.run(trial, capture_output=True, text=True, cwd="/", check=False)
    if done.returncode != 0:
        return None, f"{user.pw_name} cannot run the harness with {python}: {done.stderr.strip()[-400:]}"
    return python, ""


VICTIM = "import signal, sys; signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGUSR1}); "
VICTIM += "print('ready', flush=True); sys.stdin.read()"


@contextlib.contextmanager
def start_victim(setup: Setup, env: Mapping[str, str]) -> Iterator[subprocess.Popen[str]]:
    """A process of the setup's user and capabilities with SIGTERM and SIGUSR1 blocked: a signal stays pending."""
    process = subprocess.Popen(
        [*setup.prefix, SYSTEM_PYTHON, "-I", "-S", "-c", VICTIM],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=dict(env),
    )
    assert process.stdout is not None and process.stdout.readline() == "ready\n"
    try:
        yield process
    finally:
        process.kill()
        process.wait()


def pending(pid: int) -> int:
    """Signals pending for a process (its own and its group's): a signal sent to it shows here until handled."""
    lines = Path(f"/proc/{pid}/status").read_text(encoding="ascii").splitlines()
    return sum(int(line.split()[1], 16) for line in lines if line.startswith(("SigPnd:", "ShdPnd:")))


def hidden_bwrap_path(folder: Path) -> str:
    """A PATH whose folder links every program of /usr/bin and /usr/sbin except bubblewrap."""
    folder.mkdir(mode=0o755)
    for source in (Path("/usr/sbin"), Path("/usr/bin")):
        for program in source.iterdir():
            target = folder / program.name
            if program.name != "bwrap" and not target.exists():
                target.symlink_to(program)
    return str(folder)


def harness_copy(folder: Path, setup: Setup, *, mode: int = 0o700) -> tuple[str, Path]:
    """This harness copied into ``folder`` of ``mode``, the setup's user's: private by default, where harnesses
    live in practice (``mktemp -d``, root's home, ``pip install --user``), or world-readable (0o755) where a test
    needs one whatever folder the checkout lies in. Returns the ``PYTHONPATH`` that imports the copy, and the
    copy's reference ``dedup.py``."""
    checkout = folder / "checkout"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(PACKAGE_DIR, checkout / "harness" / "dedup_harness", ignore=ignore)
    if not INSTALLED:  # a checkout: the data beside the program, as an editable install finds it
        for name in (*DATA_FOLDERS, "docs"):
            shutil.copytree(DATA_ROOT / name, checkout / name, ignore=ignore)
    for path in [folder, *folder.rglob("*")]:
        os.chown(path, setup.uid, setup.gid, follow_symlinks=False)
    folder.chmod(mode)
    copied = checkout / "harness" / "dedup_harness"
    return str(checkout / "harness"), (copied / "_data" if INSTALLED else checkout) / "impl" / "corpus" / "dedup.py"
