"""merge cannot be fooled: shards of another batch or other weights, edited rows and malformed files are refused."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from dedup_harness import __version__
from dedup_harness.cli import main
from dedup_harness.core.checks import CHECKS
from dedup_harness.core.outcome import Outcome
from dedup_harness.core.provenance import Provenance
from dedup_harness.grade.grader import GradingOptions
from dedup_harness.grade.reports.model import GradeReport
from grade_fakes import buggy_report, report

NAMES = [f"sub{n}" for n in range(6)]
Grade = Callable[..., list[Path]]


def fake_batch(names: list[str], options: GradingOptions, **kwargs: Any) -> list[GradeReport]:
    """What grading would give, without running the suite: sub3 fails two checks, the rest pass."""
    made = [buggy_report(n) if n.endswith("3") else report(name=n) for n in names]
    for graded in made:  # the points of the weights this grade was given
        graded.max_score = options.weights.max_score
        graded.score = options.weights.earned(frozenset(c.name for c in graded.checks if c.outcome == "passed"))
    return made


@pytest.fixture
def grade(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Grade:
    """``grade NAMES --shard i/n --csv`` for every shard, through the command; returns the shard files."""
    monkeypatch.setattr("dedup_harness.commands.grade.grade_batch", fake_batch)
    monkeypatch.chdir(tmp_path)

    def run(names: list[str], count: int, *, weights: str = "", tag: str = "") -> list[Path]:
        argv = []
        if weights:
            Path(f"w{tag}.toml").write_text(weights, encoding="utf-8")
            argv = ["--weights", f"w{tag}.toml"]
        for name in names:
            Path(name).mkdir(exist_ok=True)
        paths = []
        for index in range(1, count + 1):
            path = tmp_path / f"shard{tag}{index}.csv"
            assert main(["grade", *names, "--shard", f"{index}/{count}", "--csv", str(path), *argv]) == 0
            paths.append(path)
        return paths

    return run


def merge(*shards: Path) -> int:
    return main(["merge", *map(str, shards), "--csv", "merged.csv"])


def one_line(capsys: Any) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def edit_row(path: Path, submission: str, **cells: str) -> None:
    """Change cells of one row, leaving every other line as grade wrote it."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    header = next(csv.reader([lines[0]]))
    for n, line in enumerate(lines):
        fields = next(csv.reader([line]))
        if n > 0 and dict(zip(header, fields, strict=True))["submission"] == submission:
            row = dict(zip(header, fields, strict=True)) | cells
            out = io.StringIO()
            csv.writer(out, lineterminator="\n").writerow(row.values())
            lines[n] = out.getvalue()
    path.write_text("".join(lines), encoding="utf-8")


def test_shards_of_honest_grades_merge(grade: Grade) -> None:
    assert merge(*grade(NAMES, 2)) == 0
    lines = Path("merged.csv").read_text(encoding="utf-8").splitlines()
    assert [row["submission"] for row in csv.DictReader(lines)] == NAMES


def test_shards_of_two_batches_are_refused_naming_both(grade: Grade, capsys: Any) -> None:
    first = grade(NAMES, 2, tag="a")
    other = grade([*NAMES[:4], "late1", "late2"], 2, tag="b")
    capsys.readouterr()
    assert merge(first[0], other[1]) == 2
    line = one_line(capsys)
    assert "sharda1.csv" in line and "shardb2.csv" in line and "different batches" in line


def test_shards_graded_with_different_weights_are_refused(grade: Grade, capsys: Any) -> None:
    plain = grade(NAMES, 2, tag="a")
    heavier = grade(NAMES, 2, weights=f"[weights]\n{CHECKS[0]} = 3\n", tag="b")
    capsys.readouterr()
    assert merge(plain[0], heavier[1]) == 2
    assert "different weights" in one_line(capsys)


def test_shards_graded_with_different_dependency_sets_are_refused(
    grade: Grade, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A machine of the batch with another Hypothesis release may draw other examples: its shard is refused."""
    here = grade(NAMES, 2, tag="a")
    other = Provenance(__version__, ("hypothesis==0.0.1",), "sha256:" + "0" * 64)
    monkeypatch.setattr("dedup_harness.distribution.batch_identity.here", lambda: other)
    elsewhere = grade(NAMES, 2, tag="b")
    assert next(csv.DictReader(elsewhere[1].open(encoding="utf-8")))["dependencies"] == other.digest
    capsys.readouterr()
    assert merge(here[0], elsewhere[1]) == 2
    assert "different dependency sets (sha256:" in one_line(capsys)


@pytest.mark.parametrize(
    "cells",
    [
        {"score": "13"},  # the score raised by hand
        {"score": "99"},
        {"max_score": "13"},
        {CHECKS[2]: str(Outcome.PASSED)},  # an outcome edited, the score left as it was
    ],
)
def test_a_row_whose_score_does_not_follow_is_refused_naming_it(
    grade: Grade, capsys: Any, cells: dict[str, str]
) -> None:
    shards = grade(NAMES, 2)
    holder = next(p for p in shards if ",sub3," in "," + p.read_text(encoding="utf-8").replace("\n", ","))
    edit_row(holder, "sub3", **cells)
    capsys.readouterr()
    assert merge(*shards) == 2
    line = one_line(capsys)
    assert f"{holder.name}, line " in line and "(sub3)" in line and "does not follow" in line


@pytest.mark.parametrize(
    ("damage", "says"),
    [
        (lambda p: edit_row(p, "sub0", score="lots"), "is not a number"),
        (lambda p: edit_row(p, "sub0", **{CHECKS[0]: "won"}), "outcome 'won'"),
        (lambda p: p.write_bytes(bytes(range(256)) * 8), "not a grade CSV"),
        (lambda p: p.write_bytes(p.read_bytes().replace(b",passed,", b",", 1)), "fields; the header has"),
        (lambda p: p.write_text("submission,score\nsub0,1\n", encoding="utf-8"), "not a grade CSV"),
    ],
)
def test_a_malformed_shard_is_one_clear_line(
    grade: Grade, capsys: Any, damage: Callable[[Path], None], says: str
) -> None:
    shards = grade(NAMES, 2)
    damage(shards[0])
    capsys.readouterr()
    assert merge(*shards) == 2
    line = one_line(capsys)
    assert "shard1.csv" in line and says in line


def test_a_row_whose_batch_columns_were_edited_is_refused_naming_its_line(grade: Grade, capsys: Any) -> None:
    shards = grade(NAMES, 2)
    holder = next(p for p in shards if ",sub3," in "," + p.read_text(encoding="utf-8").replace("\n", ","))
    edit_row(holder, "sub3", batch_weights=" ".join(["3"] + ["1"] * (len(CHECKS) - 1)))
    capsys.readouterr()
    assert merge(*shards) == 2
    line = one_line(capsys)
    assert f"{holder.name}, line " in line and "rows of two batches in one file" in line


def test_weights_edited_in_every_row_of_every_shard_are_refused_by_the_batch_digest(grade: Grade, capsys: Any) -> None:
    """Raise a check's weight everywhere and every score to match: the digest of the batch still names the old ones."""
    shards = grade(NAMES, 2)
    heavier = " ".join(["3"] + ["1"] * (len(CHECKS) - 1))
    for shard in shards:
        for row in csv.DictReader(shard.open(encoding="utf-8")):
            score = int(row["score"]) + (2 if row[CHECKS[0]] == Outcome.PASSED else 0)
            edit_row(shard, row["submission"], batch_weights=heavier, score=str(score), max_score=str(len(CHECKS) + 2))
    capsys.readouterr()
    assert merge(*shards) == 2
    assert "not the same ones" in one_line(capsys)
