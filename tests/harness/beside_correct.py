"""Grade hostile submissions beside the correct sample, in one batch, in one setup and tier.

The tests of what submissions graded at the same time can do to each other (``test_classmates``,
``test_disk_of_its_own``, ``test_memory_forgeries``, ``test_leftovers``) run the ``grade`` command in a
setup of ``machine_setups`` on hostile samples and ``samples/correct_different.py`` with ``--jobs 2``
(so that two are graded at once), with the temp folder the test chose; then read the JSON report and
what the grader said on stderr. The class folder is world-readable, as a TA's is, and lies under
/tmp; a sample that names ``CLASS = None`` is given its path.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from dedup_harness.core.checks import CHECKS
from dedup_harness.grade import file_decisions
from grading_support import hostile_source
from machine_setups import missing_for_setups, public_folder, setup_for

CORRECT = Path(__file__).resolve().parent / "submissions" / "samples" / "correct_different.py"


@dataclass(frozen=True)
class Case:
    setup: str  # root, user or container
    tier: str

    def __str__(self) -> str:
        return f"{self.setup}-{self.tier}"


@dataclass
class Batch:
    case: Case
    exit_status: int
    stderr: str
    report: dict[str, Any]
    left: list[str] = field(default_factory=list)  # what the temp folder held once the grade was done

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


def graded_in_a_temp_of_its_own(request: pytest.FixtureRequest, hostile: str | Mapping[str, str], prefix: str) -> Batch:
    """``grade_beside_correct`` in ``request.param``'s case, with a fresh world-writable temp folder (so that every
    session in it is this batch's), removed afterwards; ``left`` says what it held then."""
    temp = public_folder(prefix)
    temp.chmod(0o1777)
    try:
        graded = grade_beside_correct(request.param, request, hostile, temp)
        graded.left = sorted(os.listdir(temp))
        return graded
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def grade_beside_correct(
    case: Case, request: pytest.FixtureRequest, hostile: str | Mapping[str, str], temp: Path
) -> Batch:
    """``grade HOSTILE... CORRECT --jobs 2 --tier TIER`` in the case's setup, with ``temp`` as TMPDIR.

    ``hostile``: a sample's name (graded as ``hostile``), or sources by the name of their folder.
    """
    reason = missing_for_setups()
    if reason is not None:
        pytest.skip(reason)
    user = request.getfixturevalue("test_user") if case.setup == "user" else None
    setup = setup_for(case.setup, user)
    python = request.getfixturevalue("user_python") if case.setup == "user" else Path(sys.executable)
    base = public_folder("dedup-harness-beside-")
    sources = {"hostile": hostile_source(hostile)} if isinstance(hostile, str) else dict(hostile)
    sources = {name: source.replace("CLASS = None", f"CLASS = {str(base)!r}", 1) for name, source in sources.items()}
    try:
        for name, source in {**sources, "correct": CORRECT.read_text(encoding="utf-8")}.items():
            (base / name).mkdir(mode=0o755)
            (base / name / "dedup.py").write_text(source, encoding="utf-8")
        outputs = base / "outputs"
        outputs.mkdir()
        outputs.chmod(0o777)
        command = [*setup.prefix, str(python), "-m", "dedup_harness.cli", "grade", *(str(base / n) for n in sources)]
        command += [str(base / "correct"), "--jobs", "2", "--tier", case.tier, "--json", str(outputs / "grades.json")]
        if case.tier == "seccomp" and not file_decisions.works_here():  # the checkout is readable by the worker's
            command.append("--unisolated")  # uid, and only the grader's decisions keep it out: the preflight refuses
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "HOME": str(base), "LANG": "C.UTF-8"}
        env["TMPDIR"] = str(temp)
        done = subprocess.run(command, env=env, cwd=base, capture_output=True, text=True, timeout=600, check=False)
        written = outputs / "grades.json"
        report = json.loads(written.read_text(encoding="utf-8")) if written.exists() else {}
        return Batch(case, done.returncode, done.stderr, report)
    finally:
        shutil.rmtree(base, ignore_errors=True)
