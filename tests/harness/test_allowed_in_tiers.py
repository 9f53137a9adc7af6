"""``grade --allow numpy`` in every tier and setup: numpy is there for the worker, and nothing else of the grader's.

In each case of ``machine_setups`` (root with and without bubblewrap, a non-root user with and without
it, a container's capability set, the Landlock tier forced) one batch with ``--allow numpy`` grades
a correct submission whose Bloom filter keeps its bits in a numpy array, one whose ``import rich``
names a package installed beside the grader but not allowed, and one that reaches for rich at run
time (the grader's site-packages put on its path, ``importlib``) and tries to read rich's files,
and, first, one that tries to change numpy's files under the rest (one at a time: each classmate's
worker starts after its attempts). (The numpy one without ``--allow`` is refused before any worker
starts, the same in every tier: ``test_submission`` and ``test_grade_end_to_end`` hold that.)
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from machine_setups import CASES, Case, case_id, for_case, hidden_bwrap_path, own_temp, public_folder

pytest.importorskip("numpy", reason="the numpy extra is not installed")

SAMPLES = Path(__file__).resolve().parent / "submissions" / "samples"
REFUSED = "imports rich, which this course does not allow"
PEEKED = "READ THE GRADER'S PACKAGES"
ASK_SITE = "import os, rich; print(os.path.dirname(os.path.dirname(os.path.realpath(rich.__file__))))"
TAMPER = """
import os

import numpy

PACKAGE = os.path.dirname(os.path.realpath(numpy.__file__))
print(f"numpy is at {PACKAGE}")


def _try(name, action):
    try:
        action()
        print(f"{name}: TAMPERED")
    except OSError as error:
        print(f"{name}: blocked ({type(error).__name__})")


_try("append to numpy", lambda: open(os.path.join(PACKAGE, "__init__.py"), "a").close())
_try("plant a module", lambda: open(os.path.join(PACKAGE, "planted.py"), "w").close())
_try("remove a module", lambda: os.remove(os.path.join(PACKAGE, "version.py")))
_try("chmod numpy", lambda: os.chmod(os.path.join(PACKAGE, "__init__.py"), 0))
"""


def with_rich(*, at_run_time: str | None) -> str:
    """correct_plain with ``import rich``; or, given the grader's site-packages, reaching for rich there."""
    plain = (SAMPLES / "correct_plain.py").read_text(encoding="utf-8")
    if at_run_time is None:
        return plain.replace("\nimport hashlib\n", "\nimport hashlib\nimport rich\n", 1)
    reach = (
        f"\nimport importlib\nimport sys\n\nSITE = {at_run_time!r}\ntry:\n"
        f"    open(SITE + '/rich/__init__.py').close()\n    print({PEEKED!r})\nexcept OSError:\n    pass\n"
        "sys.path.append(SITE)\nRICH = importlib.import_module('rich')\n"
    )
    return plain + reach


@dataclass
class Batch:
    exit_status: int
    stderr: str
    report: dict[str, Any]

    def submission(self, name: str) -> dict[str, Any]:
        return next(s for s in self.report["submissions"] if Path(s["submission"]).name == name)


@dataclass
class Graded:
    allowed: Batch  # a_tamperer, numpy, rich, rich_at_run_time, with --allow numpy, one at a time
    case: Case
    sources: dict[str, str]

    def line_of(self, name: str, statement: str) -> int:
        return self.sources[name].splitlines().index(statement) + 1


def grade_in(
    base: Path, env: dict[str, str], case: Case, prefix: tuple[str, ...], python: Path, *, names: list[str]
) -> Batch:
    report = base / "grades.json"
    command = [*prefix, str(python), "-m", "dedup_harness.cli", "grade", *(str(base / name) for name in names)]
    command += ["--tier", case.tier, "--show-student-output", "--json", str(report)]
    command += ["--allow", "numpy", "--jobs", "1"]
    done = subprocess.run(command, env=env, cwd=base, capture_output=True, text=True, timeout=600, check=False)
    found = json.loads(report.read_text(encoding="utf-8")) if report.is_file() else {}
    return Batch(done.returncode, done.stderr, found)


@pytest.fixture(scope="module", params=CASES, ids=case_id)
def graded(request: pytest.FixtureRequest) -> Graded:
    case: Case = request.param
    setup, python = for_case(case, request)
    base = public_folder("dedup-harness-allowed-")
    try:
        ask = subprocess.run([*setup.prefix, str(python), "-c", ASK_SITE], capture_output=True, text=True, cwd="/")
        assert ask.returncode == 0, ask.stderr
        sources = {
            "a_tamperer": (SAMPLES / "correct_plain.py").read_text(encoding="utf-8") + TAMPER,
            "numpy": (SAMPLES / "correct_numpy.py").read_text(encoding="utf-8"),
            "rich": with_rich(at_run_time=None),
            "rich_at_run_time": with_rich(at_run_time=ask.stdout.strip()),
        }
        for name, source in sources.items():
            (base / name).mkdir(mode=0o755)
            (base / name / "dedup.py").write_text(source, encoding="utf-8")
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "HOME": str(base), "LANG": "C.UTF-8"}
        env["TMPDIR"] = own_temp(base)
        if not case.bubblewrap:
            env["PATH"] = hidden_bwrap_path(base / "bin")
        shutil.chown(base, setup.uid, setup.gid)  # the grader writes its reports here
        run = (base, env, case, setup.prefix, python)
        allowed = grade_in(*run, names=list(sources))
    finally:
        shutil.rmtree(base, ignore_errors=True)
    assert allowed.exit_status == 0, f"grade exited {allowed.exit_status}:\n{allowed.stderr[-3000:]}"
    assert {s["protections"]["tier"] for s in allowed.report["submissions"]} == {case.expected}
    return Graded(allowed, case, sources)


def test_the_numpy_submission_gets_full_marks_with_nothing_to_say(graded: Graded) -> None:
    """No problem, no attempt (numpy's own loading is not the submission's doing), and the report says what was
    allowed."""
    numpy = graded.allowed.submission("numpy")
    assert (numpy["score"], numpy["problems"], numpy["attempts"]) == (numpy["max_score"], [], []), numpy
    assert any(line.startswith("allowed packages: numpy==") for line in numpy["protections"]["in_force"])


def test_a_package_installed_beside_the_grader_but_not_allowed_is_one_line(graded: Graded) -> None:
    rich = graded.allowed.submission("rich")
    line = graded.line_of("rich", "import rich")
    assert (rich["score"], rich["problems"]) == (0, [f"dedup.py line {line} {REFUSED}"])


def test_reached_for_at_run_time_the_graders_packages_are_neither_importable_nor_readable(graded: Graded) -> None:
    """The grader's site-packages on its path and importlib: the course's words, no traceback; the files unread."""
    sneak = graded.allowed.submission("rich_at_run_time")
    assert sneak["score"] == 0 and len(sneak["problems"]) == 1, sneak["problems"]
    assert sneak["problems"][0].endswith(f"ImportError: {REFUSED}")
    assert "ModuleNotFoundError" not in json.dumps(sneak) and "Traceback" not in json.dumps(sneak)
    assert PEEKED not in sneak["student_output"]


def test_numpys_files_cannot_be_changed_under_a_classmate(graded: Graded) -> None:
    """Writing, planting and removing are refused in every tier. A chmod is refused too, and the write listed,
    unless the worker shares the grader's uid with no namespace (a non-root grader's Landlock tier): then
    the files are its own copy, in its own session. Either way the numpy submission graded next got full
    marks (above)."""
    tamperer = graded.allowed.submission("a_tamperer")
    said = tamperer["student_output"]
    for attempt in ("append to numpy", "plant a module", "remove a module"):
        assert f"{attempt}: blocked" in said, said
    if "/code/packages/numpy" in said.split("numpy is at ")[1].splitlines()[0]:  # its own copy, in its session
        return
    assert "chmod numpy: blocked" in said, said
    assert any("tried to write" in attempt and "numpy" in attempt for attempt in tamperer["attempts"])
