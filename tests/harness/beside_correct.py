"""Grade hostile submissions beside the correct sample, in one batch, in one setup and tier.

The tests of what submissions graded at the same time can do to each other (``test_batch_attacks``,
``test_disk_of_its_own``) run the ``grade`` command in a setup of ``machine_setups`` on hostile samples and
``samples/correct_different.py`` with ``--jobs 2`` (so that two are graded at once), with the temp folder the
test chose; then read the JSON report and what the grader said on stderr. ``grade_with_correct`` grades any
number of hostile submissions so, each made in a folder of its own by a ``Maker`` (a source written, or a
folder shaped: ``upload_shapes``), beside a ``classmate`` folder holding the correct sample that is not graded
(what a link would reach). The class folder is world-readable, as a TA's is, and lies under /tmp; a sample
that names ``CLASS = None`` is given its path.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from dedup_harness.core.checks import CHECKS
from dedup_harness.grade import file_decisions
from grading_support import hostile_bytes
from machine_setups import missing_for_setups, public_folder, setup_for

CORRECT = Path(__file__).resolve().parent / "submissions" / "samples" / "correct_different.py"


@dataclass(frozen=True)
class Case:
    setup: str  # root, user or container
    tier: str

    def __str__(self) -> str:
        return f"{self.setup}-{self.tier}"


# Every tier in every setup that offers it: root's four, a non-root user's (no unshare: it needs root), a
# container's (no bubblewrap: it needs CAP_SYS_ADMIN).
EVERY_CASE = [
    *(Case("root", tier) for tier in ("bubblewrap", "unshare", "landlock", "seccomp")),
    *(Case("user", tier) for tier in ("bubblewrap", "landlock", "seccomp")),
    *(Case("container", tier) for tier in ("unshare", "landlock", "seccomp")),
]
Maker = Callable[[Path, Path], None]  # fills a submission's (empty) folder, given the classmate's folder


@dataclass
class Batch:
    case: Case
    exit_status: int
    stderr: str
    report: dict[str, Any]
    gradescope: dict[str, Any] = field(default_factory=dict)  # each folder's results.json, when asked for
    base: Path = Path()  # where the submissions were (removed once graded)
    left: list[str] = field(default_factory=list)  # what the temp folder held once the grade was done
    later: str = ""  # what ``dedup-harness --version`` printed afterwards, in the same setup (its sweep ran too)

    def submission(self, name: str) -> dict[str, Any]:
        return next(s for s in self.report["submissions"] if Path(s["submission"]).name == name)

    def has_full_marks(self, name: str) -> bool:
        found = self.submission(name)
        return (found["status"], found["score"]) == ("graded", len(CHECKS))

    def log(self, name: str, prefix: str) -> list[str]:
        """The lines of what ``name`` printed that start with ``prefix``."""
        return [line for line in self.submission(name)["student_output"].splitlines() if line.startswith(prefix)]

    def feedback(self, name: str) -> str:
        return "\n".join(line for check in self.submission(name)["checks"] for line in check["feedback"])


def writes(source: bytes) -> Maker:
    """A submission that is one dedup.py of these bytes (``CLASS = None`` given the class folder's path)."""

    def make(folder: Path, classmate: Path) -> None:
        named = source.replace(b"CLASS = None", f"CLASS = {str(folder.parent)!r}".encode(), 1)
        (folder / "dedup.py").write_bytes(named)

    return make


def grade_beside_correct(case: Case, request: pytest.FixtureRequest, hostile: str, temp: Path) -> Batch:
    """``grade HOSTILE CORRECT --jobs 2 --tier TIER`` in the case's setup, with ``temp`` as TMPDIR: the hostile
    sample named ``hostile`` graded as the folder ``hostile``."""
    return grade_with_correct(case, request, {"hostile": writes(hostile_bytes(hostile))}, temp)


def grade_with_correct(
    case: Case,
    request: pytest.FixtureRequest,
    hostiles: Mapping[str, Maker],
    temp: Path,
    *,
    options: Sequence[str] = (),
    gradescope: bool = False,
) -> Batch:
    """``grade HOSTILE... CORRECT --jobs 2 --tier TIER OPTIONS`` in the case's setup, with ``temp`` as TMPDIR; each
    hostile submission named as ``hostiles`` names it."""
    reason = missing_for_setups()
    if reason is not None:
        pytest.skip(reason)
    user = request.getfixturevalue("test_user") if case.setup == "user" else None
    setup = setup_for(case.setup, user)
    python = request.getfixturevalue("user_python") if case.setup == "user" else Path(sys.executable)
    base = public_folder("dedup-harness-beside-")
    try:
        correct = writes(CORRECT.read_bytes())
        for name, make in {"classmate": correct, **hostiles, "correct": correct}.items():
            (base / name).mkdir(mode=0o755)
            make(base / name, base / "classmate")
        outputs = base / "outputs"
        outputs.mkdir()
        outputs.chmod(0o777)
        command = [*setup.prefix, str(python), "-m", "dedup_harness.cli", "grade", *(str(base / h) for h in hostiles)]
        command += [str(base / "correct"), "--jobs", "2", "--tier", case.tier, "--json", str(outputs / "grades.json")]
        command += [*options, *(["--gradescope", str(outputs / "gradescope")] if gradescope else [])]
        if case.tier == "seccomp" and not file_decisions.works_here():  # the checkout is readable by the worker's
            command.append("--unisolated")  # uid, and only the grader's decisions keep it out: the preflight refuses
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "HOME": str(base), "LANG": "C.UTF-8"}
        env["TMPDIR"] = str(temp)
        done = subprocess.run(command, env=env, cwd=base, capture_output=True, text=True, timeout=1800, check=False)
        written = outputs / "grades.json"
        report = json.loads(written.read_text(encoding="utf-8")) if written.exists() else {}
        results = {
            path.parent.name: json.loads(path.read_text(encoding="utf-8"))
            for path in (outputs / "gradescope").glob("*/results.json")
        }
        version = [*setup.prefix, str(python), "-m", "dedup_harness.cli", "--version"]
        later = subprocess.run(version, env=env, cwd=base, capture_output=True, text=True, timeout=60, check=False)
        return Batch(case, done.returncode, done.stderr, report, results, base, later=later.stdout)
    finally:
        shutil.rmtree(base, ignore_errors=True)
