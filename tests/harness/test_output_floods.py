"""Floods of output: whatever a submission sends, the grader's own memory stays under 1 GiB and grading goes on.

Each hostile sample here sends the grader as much as it can in one shape: documents of 7 MiB for
ever, one answer over the limit on a message, many answers of middling size, one answer just under
the limit made of the values that cost the most to rebuild, an answer nested millions deep, and a
stats dict that carries 7 MiB back with every message. They are graded in one batch as
``dedup-harness grade`` grades (``grade_batch``: each suite run forked from one warm server, the
worker in the strongest tier here) beside a correct submission, which keeps its full marks.

What is measured is each trusted suite process's own peak resident memory: the kernel's VmHWM for
that process, which the grading plugin reads from /proc/self/status as the session ends and writes
in its sidecar. It is the number that matters because it is the high-water mark, over its whole
life, of exactly the process that reads, rebuilds and keeps what the worker sends. The worker (a
process of its own, under its own memory limit) is not in it, nor is this test's process; the
``ru_maxrss`` of children would mix in the workers and every other child. A forked suite process
also counts the pages it shares with the fork server, so the number errs on the high side.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dedup_harness.core.checks import CHECKS
from dedup_harness.core.outcome import Outcome
from dedup_harness.grade import grader
from dedup_harness.grade.batch import default_jobs, grade_batch
from dedup_harness.grade.diagnosis import load_diagnoser
from dedup_harness.grade.grader import GradingOptions
from dedup_harness.grade.reports.model import GradeReport, Status
from dedup_harness.grade.scoring import equal_weights
from grading_support import hostile_source

CORRECT = Path(__file__).resolve().parent / "submissions" / "samples" / "correct_different.py"
GRADER_MEMORY = 1 << 30
TOO_LARGE = "output too large: next() on exact_dedup's output sent the grader more than"
# Each flood, and words a line of its report holds (the event of at least one check). The small values
# stay under every cap (one answer per check case, under the limit on one message): their checks fail
# on what came back.
FLOODS = {
    "flood_endless_documents": TOO_LARGE,
    "huge_reply": "output too large: paragraphs() sent the grader more than 8 MiB in one message",
    "flood_medium_replies": f"{TOO_LARGE} 16 MiB in one call",
    "flood_small_values": "paragraphs('one paragraph') should be ['one paragraph'], got ['0', '1', '2'",
    "flood_deep_nesting": "protocol: the worker sent a message nested too deeply to read",
    "flood_stats_mirror": TOO_LARGE,
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dict[str, GradeReport], dict[str, Any]]]:
    """Every flood and the correct sample in one batch; the reports, and each one's sidecar by name."""
    folder = tmp_path_factory.mktemp("floods")
    paths = [str(CORRECT)]
    for name in FLOODS:
        (folder / name).mkdir()
        (folder / name / "dedup.py").write_text(hostile_source(name), encoding="utf-8")
        paths.append(str(folder / name / "dedup.py"))
    sidecars: dict[str, Any] = {}
    original = grader.from_sidecar

    def keeping_the_sidecar(label: str, *args: Any, **kwargs: Any) -> GradeReport:
        sidecars[name_of(label)] = args[2]  # (label, result, options, data, problems)
        return original(label, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(grader, "from_sidecar", keeping_the_sidecar)
        reports = grade_batch(paths, GradingOptions(equal_weights(), load_diagnoser()), jobs=default_jobs())
    yield {name_of(report.submission): report for report in reports}, sidecars


def name_of(submission: str) -> str:
    """A sample's name: its file's, or for a flood (``<name>/dedup.py``) its folder's."""
    path = Path(submission)
    return path.parent.name if path.name == "dedup.py" else path.stem


def lines(report: GradeReport) -> list[str]:
    return [line for check in report.checks if check.feedback for line in check.feedback.problems]


def test_the_correct_submission_beside_the_floods_keeps_full_marks(graded: Any) -> None:
    reports, _ = graded
    report = reports["correct_different"]
    assert report.status is Status.GRADED and report.score == report.max_score == len(CHECKS), lines(report)


@pytest.mark.parametrize("flood", sorted(FLOODS))
def test_a_flood_is_graded_and_the_grader_stays_under_a_gibibyte(graded: Any, flood: str) -> None:
    reports, sidecars = graded
    report = reports[flood]
    peak = sidecars[flood]["grader"]["peak_bytes"]
    assert report.status is Status.GRADED, report.harness_error
    assert any(FLOODS[flood] in line for line in lines(report)), lines(report)
    assert peak < GRADER_MEMORY, f"the grader's own peak memory was {peak >> 20} MiB"
    assert any(check.outcome is not Outcome.PASSED for check in report.checks)
