"""Grade a hostile submission beside the correct sample, in one batch of two, in one setup and tier.

The tests of what submissions graded at the same time can do to each other (``test_classmates``,
``test_disk_of_its_own``) run the ``grade`` command in a setup of ``machine_setups`` on a hostile
sample and ``samples/correct_different.py`` with ``--jobs 2``, so that both are graded at once, with
the temp folder the test chose; then read the JSON report and what the grader said on stderr.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from dedup_harness.core.checks import CHECKS
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


def grade_beside_correct(case: Case, request: pytest.FixtureRequest, hostile: str, temp: Path) -> Batch:
    """``grade HOSTILE CORRECT --jobs 2 --tier TIER`` in the case's setup, with ``temp`` as TMPDIR."""
    reason = missing_for_setups()
    if reason is not None:
        pytest.skip(reason)
    user = request.getfixturevalue("test_user") if case.setup == "user" else None
    setup = setup_for(case.setup, user)
    python = request.getfixturevalue("user_python") if case.setup == "user" else Path(sys.executable)
    base = public_folder("dedup-harness-beside-")
    try:
        for name, source in (("hostile", hostile_source(hostile)), ("correct", CORRECT.read_text(encoding="utf-8"))):
            (base / name).mkdir(mode=0o755)
            (base / name / "dedup.py").write_text(source, encoding="utf-8")
        outputs = base / "outputs"
        outputs.mkdir()
        outputs.chmod(0o777)
        command = [*setup.prefix, str(python), "-m", "dedup_harness.cli", "grade", str(base / "hostile")]
        command += [str(base / "correct"), "--jobs", "2", "--tier", case.tier, "--json", str(outputs / "grades.json")]
        if case.tier == "seccomp":  # the checkout is readable by the worker's uid: the preflight would refuse
            command.append("--unisolated")
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "HOME": str(base), "LANG": "C.UTF-8"}
        env["TMPDIR"] = str(temp)
        done = subprocess.run(command, env=env, cwd=base, capture_output=True, text=True, timeout=600, check=False)
        written = outputs / "grades.json"
        report = json.loads(written.read_text(encoding="utf-8")) if written.exists() else {}
        return Batch(case, done.returncode, done.stderr, report)
    finally:
        shutil.rmtree(base, ignore_errors=True)
