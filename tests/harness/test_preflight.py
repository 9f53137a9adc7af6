"""The preflight: known answers through the worker before any submission, its causes, and what grade does with it.

The reference must get every answer right and the canary every one wrong, in whichever tier runs;
a worker that cannot start, an interpreter too old, a tier that does not isolate are each stopped
with words naming the cause (exit 2). Any temp folder works, and ``--unisolated`` makes every
report say so first.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from dedup_harness.commands import grade as grade_command
from dedup_harness.core.checks import CHECKS
from dedup_harness.core.paths import IMPL_ROOT
from dedup_harness.grade.preflight import Preflight, preflight
from dedup_harness.grade.sandbox.detect import landlock_abi, seccomp_known
from dedup_harness.grade.sandbox.interpreter import Interpreter, ask
from dedup_harness.grade.sandbox.tiers import Tier, WorkerSetup, weaker, why_not, worker_setup
from dedup_harness.grade.sandbox.users import worker_uid
from grading_support import tier_param
from machine_setups import harness_copy, public_folder, setup_for

REFERENCE = IMPL_ROOT / "corpus" / "dedup.py"
GRADE = [sys.executable, "-m", "dedup_harness.cli", "grade"]
FULL_MARKS = f",graded,{len(CHECKS)},{len(CHECKS)},"  # in the CSV row of a submission with full marks


@pytest.mark.parametrize("tier", [tier_param("bubblewrap"), tier_param("unshare"), tier_param("landlock")])
def test_the_reference_gets_every_answer_right_and_the_canary_every_one_wrong(tier: str) -> None:
    check = preflight(worker_setup(tier))
    assert check.failures == [] and check.leaks == []
    assert [a.right for a in check.reference] == [True] * 5
    assert [a.right for a in check.canary] == [False] * 5
    refused = {"EACCES", "ENOENT", "EPERM", "ESRCH", "ENETUNREACH", "ECONNREFUSED"}
    reads = check.probe["read"]
    assert len(reads) == 2 and set(reads.values()) <= refused, "the reference and the harness, both unreadable"
    assert {check.probe[kind] for kind in ("tcp", "udp", "signal")} <= refused


def test_a_worker_that_cannot_start_is_named_as_the_cause() -> None:
    """The issue's first failure: a venv's python is a link into a folder bubblewrap does not show."""
    venv_python = Path(sys.executable)
    if sys.prefix == sys.base_prefix or not venv_python.is_symlink():
        pytest.skip("the tests do not run from a venv whose python is a link out of the venv's folder")
    if why_not(Tier.BUBBLEWRAP) is not None:
        pytest.skip(str(why_not(Tier.BUBBLEWRAP)))
    setup = WorkerSetup(Tier.BUBBLEWRAP, Interpreter(str(venv_python)), landlock_abi(), seccomp_known())
    check = preflight(setup)
    assert check.reference == [] and len(check.failures) == 2
    assert check.failures[0].startswith("the worker could not start (bubblewrap tier)")
    assert "No such file or directory" in check.failures[0] and str(venv_python) in check.failures[0]


def _available() -> list[str]:
    return [tier.value for tier in Tier if why_not(tier) is None]


@pytest.fixture
def old_python() -> Iterator[Path]:
    """A stand-in for a base image's Python 3.10: it answers the interpreter check as 3.10.12 would."""
    folder = public_folder("dedup-harness-old-python-")
    (folder / "bin").mkdir(mode=0o755)
    script = folder / "bin" / "python3.10"
    answer = json.dumps({"version": [3, 10, 12], "prefix": str(folder)})
    script.write_text(f"#!/bin/sh\necho '{answer}'\n", encoding="utf-8")
    script.chmod(0o755)
    try:
        yield script
    finally:
        shutil.rmtree(folder)


def test_an_interpreter_older_than_3_11_is_refused_with_its_version(old_python: Path) -> None:
    assert ask(str(old_python), worker_uid()) == f"{old_python}: Python 3.10.12 is older than 3.11"
    done = subprocess.run([*GRADE, str(REFERENCE), "--worker-python", str(old_python)], capture_output=True, text=True)
    assert done.returncode == 2
    assert "Python 3.10.12 is older than 3.11" in done.stderr


def run_grade(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*GRADE, *args], capture_output=True, text=True, env={**os.environ, **(env or {})})


def test_grading_works_with_the_temp_folder_under_var_tmp() -> None:
    """The issue's second failure: TMPDIR=/var/tmp gave Errno 13 inside bubblewrap and a correct submission 0."""
    with tempfile.TemporaryDirectory(dir="/var/tmp") as folder:
        done = run_grade(str(REFERENCE), "--csv", "-", env={"TMPDIR": folder})
    assert done.returncode == 0, done.stderr
    assert FULL_MARKS in done.stdout


def test_grading_works_with_the_temp_folder_in_a_folder_only_the_grader_can_enter() -> None:
    """A folder the grader made (mode 0700): a worker of another uid, without bubblewrap, could not reach it."""
    tier = "landlock" if "landlock" in _available() else "auto"
    with tempfile.TemporaryDirectory() as private:
        Path(private).chmod(0o700)
        done = run_grade(str(REFERENCE), "--tier", tier, "--csv", "-", env={"TMPDIR": private})
    assert done.returncode == 0, done.stderr
    assert FULL_MARKS in done.stdout


def test_a_tier_that_does_not_hide_the_reference_is_refused_with_what_is_missing() -> None:
    """The none tier leaves a world-readable harness in view (as seccomp alone does on a kernel before 5.14): graded
    from a copy of the harness in a public folder, wherever the checkout lies."""
    base = public_folder("dedup-harness-public-copy-")
    try:
        pythonpath, _ = harness_copy(base / "harness", setup_for("root", None), mode=0o755)
        done = run_grade(str(REFERENCE), "--tier", "none", env={"PYTHONPATH": pythonpath})
    finally:
        shutil.rmtree(base, ignore_errors=True)
    assert done.returncode == 2
    assert "refusing to run submissions: the none tier does not isolate the worker here" in done.stderr
    assert "the worker can read the harness's own files" in done.stderr
    assert "install bubblewrap" in done.stderr and "--unisolated" in done.stderr


def test_in_the_seccomp_tier_the_graders_decisions_hide_the_world_readable_reference() -> None:
    """No Landlock, no namespace: the grader refuses the worker's open of the reference itself."""
    if why_not(Tier.SECCOMP) is not None or not worker_setup("seccomp").decides_files:
        pytest.skip("the grader decides the seccomp tier's file calls only on Linux 5.14 or later")
    done = run_grade(str(REFERENCE), "--tier", "seccomp")
    assert done.returncode == 0, done.stderr
    assert "refusing to run submissions" not in done.stderr


def test_unisolated_grading_says_so_first_in_every_report_and_a_batch_pays_one_preflight(tmp_path: Path) -> None:
    out = {name: tmp_path / name for name in ("g.json", "g.csv", "g.xml", "gs")}
    args = ["--tier", "none", "--unisolated", "--json", str(out["g.json"]), "--csv", str(out["g.csv"])]
    args += ["--junit", str(out["g.xml"]), "--gradescope", str(out["gs"])]
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "dedup.py").write_bytes(REFERENCE.read_bytes())
    done = run_grade(str(REFERENCE), str(tmp_path / "b"), *args)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("preflight (") == 1
    assert done.stdout.lstrip().startswith("WARNING: graded WITHOUT isolation (--unisolated, none tier)")
    document = json.loads(out["g.json"].read_text(encoding="utf-8"))
    assert next(iter(document)) == "isolation_warning" and document["isolation_warning"].startswith("graded WITHOUT")
    assert all(s["warning"] == document["isolation_warning"] for s in document["submissions"])
    rows = out["g.csv"].read_text(encoding="utf-8").splitlines()[2:]  # after the batch line and the header
    assert rows and all(row.startswith('"graded WITHOUT isolation') for row in rows)
    junit = out["g.xml"].read_text(encoding="utf-8").splitlines()
    assert junit[1].startswith("<!-- WARNING: graded WITHOUT isolation")
    for results in out["gs"].glob("*/results.json"):
        assert json.loads(results.read_text(encoding="utf-8"))["output"].startswith("WARNING: graded WITHOUT")
    assert [s["score"] for s in document["submissions"]] == [len(CHECKS)] * 2


def test_a_tier_chosen_automatically_whose_preflight_fails_gives_way_to_the_next_and_says_why() -> None:
    """The unshare tier that could not cover a harness in a private folder: grade tries the next tier that runs
    here before it refuses, and the preflight's lines name the tier passed over and why."""
    available = [Tier(name) for name in _available() if name != "none"]
    if len(available) < 2:
        pytest.skip(f"one tier at most runs here ({', '.join(available) or 'none'})")
    first = worker_setup(available[0].value)
    failed = Preflight(first, failures=["the worker could not start (unshare tier): mount: cannot mount hidden"])
    fallback = weaker(first, grade_command.failed(failed))
    assert fallback is not None and fallback.tier is available[1]
    assert fallback.interpreter == first.interpreter
    said = f"{available[0]}: its preflight failed: {failed.failures[0]}"
    assert said in fallback.passed_over
    lines = grade_command.preflight_line(Preflight(fallback, seconds=0.25)).splitlines()
    assert lines[0].startswith(f"preflight (0.2 s): {available[1]} ")
    assert f"preflight: passed over {said}" in " ".join(" ".join(lines[1:]).split())
    assert max(len(line) for line in lines) <= 80
    assert grade_command.preflight_line(failed).startswith(f"preflight (0.0 s): failed in the {available[0]} tier")
    assert weaker(worker_setup(available[-1].value), "its preflight failed: no") is None
