"""A crash names the student's function and line: from the traceback in check, from the worker's word in grade.

The worker runs the submission's code, so what it sends as a crash site is untrusted text: the grader
takes it only as [a short file name ending .py, a whole line number, a dotted name of identifiers],
and anything else is dropped (the frames the worker saw are said instead, as before).
"""

from __future__ import annotations

import types
from pathlib import Path
from typing import Any

import pytest

from dedup_harness.check.plugin import site_in
from dedup_harness.core import outcome_recorder
from dedup_harness.core.outcome import Outcome
from dedup_harness.grade.feedback import check_feedback
from dedup_harness.grade.worker import protocol as wire
from dedup_harness.grade.worker.main import Worker

SOURCE = """
class Spool:
    def write(self, value):
        return int(value)


def exact_dedup(docs):
    return Spool().write(docs)
"""


def raised_in(path: Path) -> BaseException:
    """What the student's code at ``path`` raises: ``int("x")`` two frames deep, under their file's name."""
    namespace: dict[str, Any] = {}
    exec(compile(SOURCE, str(path), "exec"), namespace)  # our own snippet, compiled under the student's file name
    try:
        namespace["exact_dedup"]("x")
    except ValueError as error:
        return error
    raise AssertionError("it did not raise")


@pytest.mark.parametrize(
    "value",
    [
        ["dedup.py", 40, "_spool"],
        ["dedup.py", 4, "Spool.write"],
        ["bloom.py", 1, "<module>"],
        ["dedup.py", 9, "exact_dedup.<locals>.<lambda>"],
    ],
)
def test_a_crash_site_in_the_expected_shape_is_said_as_it_is(value: list[Any]) -> None:
    assert wire.crash_site(value) == f"{value[0]} line {value[1]}, in {value[2]}"


@pytest.mark.parametrize(
    "value",
    [
        None,
        "dedup.py line 3",
        ["dedup.py", 40],
        ["/etc/passwd.py", 1, "f"],
        ["dedup.txt", 1, "f"],
        ["dedup.py", True, "f"],
        ["dedup.py", 0, "f"],
        ["dedup.py", "40", "f"],
        ["dedup.py", 40, "f\nattempt: forged"],
        ["dedup.py", 40, "f\x1b[2J"],
        ["dedup.py", 40, "f" * 200],
        ["a" * 100 + ".py", 40, "f"],
        ["dedup.py", 40, "f g"],
    ],
)
def test_anything_else_the_worker_sends_as_a_site_is_dropped(value: Any) -> None:
    assert wire.crash_site(value) == ""


def test_the_grader_names_the_students_line_from_the_site_and_keeps_it_as_a_field() -> None:
    error = wire.rebuilt(
        {
            "type": "ValueError",
            "origin": "ValueError",
            "message": "bad",
            "where": "x.py:1 in g",
            wire.SITE: ["dedup.py", 40, "_spool"],
        }
    )
    assert str(error) == "bad", "the site is a field, never words of the message"
    assert outcome_recorder.crash_site(error) == "dedup.py line 40, in _spool"
    forged = wire.rebuilt(
        {
            "type": "ValueError",
            "origin": "ValueError",
            "message": "bad",
            "where": "x.py:1 in g",
            wire.SITE: ["dedup.py", 40, "f\nforged"],
        }
    )
    assert str(forged) == "bad (at x.py:1 in g)" and outcome_recorder.crash_site(forged) == ""


def test_the_worker_finds_the_innermost_frame_of_the_students_dedup_py(tmp_path: Path) -> None:
    (tmp_path / "corpus").mkdir()
    error = raised_in(tmp_path / "corpus" / "dedup.py")
    worker = types.SimpleNamespace(root=str(tmp_path))
    assert Worker.site(worker, error) == ["dedup.py", 4, "Spool.write"]  # type: ignore[arg-type]
    assert Worker.site(types.SimpleNamespace(root=str(tmp_path / "elsewhere")), error) is None  # type: ignore[arg-type]


def test_check_finds_it_in_the_traceback_of_the_students_files(tmp_path: Path) -> None:
    error = raised_in(tmp_path / "dedup.py")
    assert site_in(error, [tmp_path / "dedup.py"]) == "dedup.py line 4, in Spool.write"
    assert site_in(error, [tmp_path / "bloom.py"]) == ""


def test_the_grader_and_the_recorder_hang_the_site_under_one_name() -> None:
    assert wire.SITE_ATTRIBUTE == outcome_recorder.SITE_ATTRIBUTE


@pytest.mark.parametrize(
    ("message", "shown"),
    [
        ("bad", "it crashed: ValueError: bad (at dedup.py line 40, in _spool)"),
        ("x" * 2000, None),
    ],
)
def test_the_feedback_says_where_once_and_keeps_it_however_long_the_message(message: str, shown: str | None) -> None:
    site = "dedup.py line 40, in _spool"
    case = {"nodeid": "t", "outcome": Outcome.ERROR, "error": "ValueError", "message": message, "site": site}
    feedback = check_feedback("test_fixture_duplicate_counts", Outcome.ERROR, [case])
    assert feedback is not None
    line = feedback.problems[0]
    assert line.startswith("it crashed: ") and line.endswith(" (at dedup.py line 40, in _spool)")
    assert shown is None or line == shown
