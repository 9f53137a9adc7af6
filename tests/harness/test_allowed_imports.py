"""What a submission may import (the standard library, ``corpus``, the allowed packages) and the words for the rest."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from dedup_harness.cli import main
from dedup_harness.grade.submission import import_problems
from dedup_harness.grade.worker.imports import in_course_words, refused, refused_imports, used

NUMPY_SAMPLE = Path(__file__).resolve().parent / "submissions" / "samples" / "correct_numpy.py"
SOURCE = """\
from __future__ import annotations

import hashlib, os.path
from collections.abc import Iterator

import numpy as np
from corpus.bloom import bits_for
from . import doc

try:
    import rich
except ImportError:
    rich = None

try:
    import xxhash
except (ValueError, ModuleNotFoundError):
    xxhash = None


def later():
    import numpy.linalg
    from pandas import DataFrame
    return DataFrame
"""


@pytest.mark.parametrize(
    ("module", "allowed", "is_refused"),
    [
        ("hashlib", (), False),
        ("os.path", (), False),
        ("_thread", (), False),
        ("corpus.bloom", (), False),
        ("numpy", (), True),
        ("numpy.linalg", ("numpy",), False),
        ("numpyx", ("numpy",), True),
        ("rich", ("numpy",), True),
    ],
)
def test_the_standard_library_corpus_and_what_is_allowed_pass_and_nothing_else(
    module: str, allowed: tuple[str, ...], is_refused: bool
) -> None:
    assert refused(module, allowed) is is_refused


def test_each_refused_module_is_found_once_at_its_first_unguarded_import() -> None:
    """numpy twice (the second in a function), pandas in a function; rich and xxhash under try/except ImportError
    are the submission's own fallbacks; a relative import is corpus's own."""
    assert [(each.top, each.line) for each in refused_imports(SOURCE, ())] == [("numpy", 6), ("pandas", 23)]
    assert [each.top for each in refused_imports(SOURCE, ("numpy", "pandas"))] == []


def test_the_problem_line_names_the_line_and_says_the_courses_rule() -> None:
    problems = import_problems(SOURCE, ("numpy",))
    assert [(p.kind, p.message) for p in problems] == [
        ("import", "dedup.py line 23 imports pandas, which this course does not allow")
    ]
    then = import_problems(SOURCE, ("pandas",), then=" (grade refuses it)")
    assert [p.message for p in then] == [
        "dedup.py line 6 imports numpy, which this course does not allow (grade refuses it)"
    ]


def test_a_source_that_does_not_parse_has_no_import_problems_its_syntax_error_is_said_instead() -> None:
    assert import_problems("import numpy\ndef f(:\n", ()) == []


def test_the_worker_imports_beforehand_only_the_allowed_modules_the_source_imports() -> None:
    assert used(SOURCE, ("numpy", "scipy")) == ["numpy"]


def test_a_module_not_found_at_run_time_is_said_in_the_courses_words_when_it_is_refused() -> None:
    missing = ModuleNotFoundError("No module named 'rich.console'", name="rich.console")
    said = in_course_words(missing, {"allowed": ["numpy"]})
    assert type(said) is ImportError and str(said) == "imports rich, which this course does not allow"
    allowed_but_broken = ModuleNotFoundError("No module named 'numpy.nothing'", name="numpy.nothing")
    assert in_course_words(allowed_but_broken, {"allowed": ["numpy"]}) is allowed_but_broken
    other = ValueError("no")
    assert in_course_words(other, {}) is other


def test_check_tells_a_student_that_grade_refuses_an_import_their_course_does_not_allow(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Their machine has numpy: the checks pass here, but the score is grade's, 0, the line says why, and the exit
    status is 1."""
    pytest.importorskip("numpy", reason="the numpy extra is not installed")
    shutil.copyfile(NUMPY_SAMPLE, tmp_path / "dedup.py")
    assert main(["check", str(tmp_path), "--json", str(tmp_path / "c.json")]) == 1
    out = " ".join(capsys.readouterr().out.split())
    said = "imports numpy, which this course does not allow (grade refuses the import, and gives every check 0; "
    assert said + "here the checks ran as if it were allowed)" in out and ": 0 / 14" in out
    report = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))["submissions"][0]
    assert {c["outcome"] for c in report["checks"]} == {"passed"} and report["score"] == 0


def test_check_with_the_courses_allow_says_nothing_of_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("numpy", reason="the numpy extra is not installed")
    shutil.copyfile(NUMPY_SAMPLE, tmp_path / "dedup.py")
    assert main(["check", str(tmp_path), "--allow", "numpy"]) == 0
    out = " ".join(capsys.readouterr().out.split())  # the title wraps at 80 columns where tmp_path's length puts it
    assert "does not allow" not in out and "14 / 14" in out
