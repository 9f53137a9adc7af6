"""A submission that shapes its spool to break cleanup, graded for real in every tier of every setup.

``tree_planter`` plants in the first spool_dir a check hands it a chain of 3,000 nested folders made
through folder descriptors, locked folders, odd names, a FIFO, a hard link and symlinks out of the
tree (one to a sentinel folder of this test). Each case grades it with the reference's own dedup.py
beside it in one batch, the grader's TMPDIR on a folder of the test's (outside /tmp), and checks
from outside: the grader exits 0; the reference keeps full marks and lists no attempt; the planter
is graded and loses only the spool check; nothing of any session is left in the temp folder; the
sentinel is untouched; ``dedup-harness --version`` works afterwards.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from dedup_harness.core.paths import IMPL_ROOT
from grading_support import hostile_source
from machine_setups import CASES, Case, Setup, case_id, for_case, hidden_bwrap_path
from tree_shapes import fast_folder

SPOOL_CHECK = "test_the_spool_is_removed"


@dataclass
class Graded:
    exit_status: int
    stderr: str
    report: dict[str, Any]
    left_in_temp: list[str]
    sentinel: str
    version: subprocess.CompletedProcess[str]

    def submission(self, name: str) -> dict[str, Any]:
        return next(s for s in self.report["submissions"] if Path(s["submission"]).name == name)


def planter_source(sentinel: Path) -> str:
    source = hostile_source("tree_planter")
    assert '\nSENTINEL = "/nonexistent"' in source
    return source.replace('\nSENTINEL = "/nonexistent"', f"\nSENTINEL = {str(sentinel)!r}", 1)


def _in_setup(setup: Setup, python: Path, args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = [*setup.prefix, str(python), "-m", "dedup_harness.cli", *args]
    return subprocess.run(command, env=env, cwd="/", capture_output=True, text=True, timeout=300, check=False)


def grade_batch(base: Path, case: Case, setup: Setup, python: Path) -> Graded:
    temp, outputs, sentinel = base / "tmp", base / "outputs", base / "sentinel"
    for folder, mode in ((temp, 0o1777), (outputs, 0o777), (sentinel, 0o755)):
        folder.mkdir()
        folder.chmod(mode)
    (sentinel / "keep.txt").write_text("still here\n", encoding="utf-8")
    for name, source in (("reference", (IMPL_ROOT / "corpus" / "dedup.py").read_text("utf-8")),):
        (base / name).mkdir(mode=0o755)
        (base / name / "dedup.py").write_text(source, encoding="utf-8")
    (base / "planter").mkdir(mode=0o755)
    (base / "planter" / "dedup.py").write_text(planter_source(sentinel), encoding="utf-8")
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "HOME": str(base), "LANG": "C.UTF-8"}
    if not case.bubblewrap:
        env["PATH"] = hidden_bwrap_path(base / "bin")
    env["TMPDIR"] = str(temp)
    args = ["grade", str(base / "reference"), str(base / "planter"), "--tier", case.tier]
    done = _in_setup(setup, python, [*args, "--json", str(outputs / "grades.json")], env)
    report = json.loads((outputs / "grades.json").read_text(encoding="utf-8")) if done.returncode == 0 else {}
    version = _in_setup(setup, python, ["--version"], env)
    kept = (sentinel / "keep.txt").read_text(encoding="utf-8") if (sentinel / "keep.txt").exists() else ""
    return Graded(done.returncode, done.stderr, report, sorted(p.name for p in temp.iterdir()), kept, version)


@pytest.fixture(scope="module", params=CASES, ids=case_id)
def graded(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Graded:
    case: Case = request.param
    setup, python = for_case(case, request)
    with fast_folder(tmp_path_factory.mktemp("shaped")) as base:
        result = grade_batch(base, case, setup, python)
    assert result.exit_status == 0, f"grade exited {result.exit_status}:\n{result.stderr[-3000:]}"
    assert {s["protections"]["tier"] for s in result.report["submissions"]} == {case.expected}
    return result


def test_the_grader_exits_0_and_grades_both(graded: Graded) -> None:
    assert [s["status"] for s in graded.report["submissions"]] == ["graded", "graded"]
    assert "Traceback" not in graded.stderr and "could not remove" not in graded.stderr, graded.stderr[-3000:]


def test_the_reference_keeps_full_marks_and_lists_no_attempt_with_tmpdir_outside_tmp(graded: Graded) -> None:
    reference = graded.submission("reference")
    assert reference["score"] == reference["max_score"], reference
    assert reference["attempts"] == []


def test_the_planter_loses_only_the_spool_check(graded: Graded) -> None:
    lost = [c["name"] for c in graded.submission("planter")["checks"] if c["outcome"] != "passed"]
    assert lost == [SPOOL_CHECK]


def test_nothing_of_any_session_is_left_and_the_sentinel_is_untouched(graded: Graded) -> None:
    assert graded.left_in_temp == []
    assert graded.sentinel == "still here\n"


def test_a_later_version_works(graded: Graded) -> None:
    assert graded.version.returncode == 0 and graded.version.stdout.startswith("dedup-harness "), graded.version
