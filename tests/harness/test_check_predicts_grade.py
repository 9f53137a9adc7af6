"""`check` predicts `grade`: every sample submission, correct, buggy or refused, gets the same score from both.

`grade` grades them in one batch in the strongest tier this machine offers; `check` runs each on
the student's side, in-process, as the non-root test user (the refused samples are code the grader
refuses: never run unconfined as root). Their scores agree, and `check` exits 0 exactly where grade
gives full marks. The student's machine is also played without what only Linux has: `check` runs
with /proc hidden behind an empty mount (its own mount namespace) and with the Linux-only names of
`os` taken away, and still grades, notices, and leaves a live process's scratch alone. macOS itself
is not at hand here.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import textwrap
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from dedup_harness.cli import main
from dedup_harness.core import scratch_dirs
from dedup_harness.core.checks import CHECKS
from dedup_harness.grade.rules import SENTENCES
from dedup_harness.grade.worker.categories import NETWORK
from machine_setups import own_temp, public_folder

SUBMISSIONS = Path(__file__).resolve().parent / "submissions"
# Correct, buggy, refused, and ordinary code (48 threads, 80 open files, a user name) that the rulebook allows.
SAMPLES = sorted(path for kind in ("samples", "refused", "ordinary") for path in (SUBMISSIONS / kind).glob("*.py"))
ALLOW = ["--allow", "numpy"]  # correct_numpy's course allows it; no other sample imports it
# What a student's laptop lacks of Linux's os module (macOS has none of these).
LINUX_ONLY = (
    "O_PATH",
    "O_TMPFILE",
    "sched_getaffinity",
    "sched_setaffinity",
    "pidfd_open",
    "memfd_create",
    "eventfd",
    "splice",
    "copy_file_range",
    "posix_fadvise",
    "getxattr",
    "setxattr",
    "listxattr",
    "removexattr",
    "pipe2",
)
NOT_LINUX = textwrap.dedent(
    f"""
    import os, select
    for name in {LINUX_ONLY!r}:
        if hasattr(os, name):
            delattr(os, name)
    if hasattr(select, "epoll"):
        delattr(select, "epoll")
    """
)


@pytest.fixture(scope="module")
def students_side() -> Iterator[Path]:
    """A folder every user can enter, a subfolder per sample holding it as its dedup.py."""
    folder = public_folder("dedup-harness-predicts-")
    for sample in SAMPLES:
        (folder / sample.stem).mkdir(mode=0o777)
        shutil.copyfile(sample, folder / sample.stem / "dedup.py")
        (folder / sample.stem).chmod(0o777)
    own_temp(folder)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def as_student(
    user: pwd.struct_passwd, python: Path, folder: Path, *args: str, temp: Path, prefix: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    """``dedup-harness check`` run by the test user in ``folder`` (after ``prefix``: a namespace's set-up)."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(temp), "TMPDIR": str(temp), "LANG": "C.UTF-8", **_extra_env(temp)}
    identity = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--init-groups"]
    command = [*prefix, *identity, "env", *(f"{k}={v}" for k, v in env.items()), str(python), "-m"]
    command += ["dedup_harness.cli", "check", *args]
    return subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=300, check=False)


def _extra_env(temp: Path) -> dict[str, str]:
    return {"PYTHONPATH": str(temp / "not-linux")} if (temp / "not-linux").is_dir() else {}


def checked(user: pwd.struct_passwd, python: Path, folder: Path, temp: Path) -> tuple[int, dict[str, Any]]:
    out = folder / "check.json"
    done = as_student(user, python, folder, ".", "--json", str(out), *ALLOW, temp=temp)
    assert out.is_file(), done.stdout[-2000:] + done.stderr[-2000:]
    return done.returncode, json.loads(out.read_text(encoding="utf-8"))["submissions"][0]


@pytest.fixture(scope="module")
def graded(students_side: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Every sample graded in one batch, in the strongest tier this machine offers (the grader's own sandbox)."""
    pytest.importorskip("numpy", reason="correct_numpy's course allows numpy, which is not installed here")
    out = tmp_path_factory.mktemp("grade") / "g.json"
    folders = [str(students_side / sample.stem) for sample in SAMPLES]
    assert main(["grade", *folders, *ALLOW, "--json", str(out)]) == 0
    reports = json.loads(out.read_text(encoding="utf-8"))["submissions"]
    return {Path(r["submission"]).name: r for r in reports}


@pytest.fixture(scope="module")
def checked_all(
    students_side: Path, test_user: pwd.struct_passwd, user_python: Path
) -> dict[str, tuple[int, dict[str, Any]]]:
    """Every sample through ``check``, as the test user, two at a time: its exit status and its report."""

    def one(stem: str) -> tuple[int, dict[str, Any]]:
        return checked(test_user, user_python, students_side / stem, students_side / "tmp")

    stems = [sample.stem for sample in SAMPLES]
    with ThreadPoolExecutor(2) as pool:
        return dict(zip(stems, pool.map(one, stems), strict=True))


@pytest.mark.parametrize("stem", [sample.stem for sample in SAMPLES])
def test_every_sample_gets_the_same_score_from_check_as_from_grade(
    stem: str, checked_all: dict[str, tuple[int, dict[str, Any]]], graded: dict[str, dict[str, Any]]
) -> None:
    (status, report), grade = checked_all[stem], graded[stem]
    lost_here = [c["name"] for c in report["checks"] if c["score"] < c["max_score"]]
    lost_there = [c["name"] for c in grade["checks"] if c["score"] < c["max_score"]]
    assert (report["score"], lost_here) == (grade["score"], lost_there), (report["checks"], grade["checks"])
    assert status == (0 if grade["score"] == grade["max_score"] else 1)


@pytest.mark.parametrize("stem", sorted(sample.stem for sample in (SUBMISSIONS / "refused").glob("*.py")))
def test_each_refused_sample_is_told_in_graders_sentence_as_grade_tells_it(
    stem: str, checked_all: dict[str, tuple[int, dict[str, Any]]], graded: dict[str, dict[str, Any]]
) -> None:
    status, report = checked_all[stem]
    said_here = {line for c in report["checks"] for line in c["feedback"] if line in SENTENCES.values()}
    said_there = {line for c in graded[stem]["checks"] for line in c["feedback"] if line in SENTENCES.values()}
    assert status == 1 and said_here == said_there and said_here
    assert report["attempts"]


def hide_proc() -> tuple[str, ...]:
    """The command prefix that runs a child in a mount namespace of its own with an empty tmpfs over /proc."""
    return ("unshare", "-m", "sh", "-c", 'mount --make-rprivate / && mount -t tmpfs none /proc && exec "$@"', "--")


def test_with_proc_hidden_and_linux_only_os_names_gone_check_grades_notices_and_sweeps_only_the_dead(
    students_side: Path, test_user: pwd.struct_passwd, user_python: Path, tmp_path: Path
) -> None:
    if shutil.which("unshare") is None or os.geteuid() != 0:
        pytest.skip("hiding /proc needs root and unshare (util-linux)")
    temp = students_side / "tmp-no-proc"
    (temp / "not-linux").mkdir(parents=True)
    (temp / "not-linux" / "sitecustomize.py").write_text(NOT_LINUX, encoding="utf-8")
    for path in (temp, temp / "not-linux"):
        path.chmod(0o777)
    (temp / "not-linux" / "sitecustomize.py").chmod(0o644)
    alive = temp / f"{scratch_dirs.PREFIX}run-{os.getpid()}.{scratch_dirs.owner_tag().split('.')[1]}-livefold"
    dead = temp / f"{scratch_dirs.PREFIX}run-99999999.0-deadfold"
    for folder in (alive, dead):
        folder.mkdir()
        os.chown(folder, test_user.pw_uid, test_user.pw_gid)  # the student could remove either: only the dead go
    probe = "import os, pathlib; print(pathlib.Path('/proc/self/stat').exists(), hasattr(os, 'O_PATH'))"
    done = subprocess.run(
        [*hide_proc(), "env", f"PYTHONPATH={temp / 'not-linux'}", str(user_python), "-c", probe],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.stdout.split() == ["False", "False"], done.stderr  # the run below really lacks both
    correct = students_side / "correct_plain"
    done = as_student(test_user, user_python, correct, temp=temp, prefix=hide_proc())
    assert done.returncode == 0 and "dedup.py: 14 / 14" in done.stdout, done.stdout[-3000:] + done.stderr[-3000:]
    assert alive.is_dir() and not dead.exists()
    refused = students_side / "udp_metrics"
    done = as_student(test_user, user_python, refused, temp=temp, prefix=hide_proc())
    said = " ".join(done.stdout.split())
    assert done.returncode == 1 and " ".join(SENTENCES[NETWORK].split()) in said, done.stdout[-3000:] + done.stderr
    assert sorted(p.name for p in temp.iterdir()) == sorted(["not-linux", alive.name]), "check left no scratch"
    assert all(c in done.stdout for c in ("attempt: tried to reach the network",)), done.stdout[-2000:]
    assert len(CHECKS) == 14
