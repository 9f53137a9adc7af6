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
from dedup_harness.distribution.batch_identity import identify
from dedup_harness.distribution.shards import Shard, keyed_rows
from dedup_harness.grade.grader import GradingOptions
from dedup_harness.grade.reports import csv_report
from dedup_harness.grade.reports.model import GradeReport
from dedup_harness.grade.scoring import equal_weights
from grade_fakes import DIAGNOSER, buggy_report, report

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


def test_shards_of_honest_grades_merge(grade: Grade, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEDUP_HARNESS_SHARD_KEY", KEY.decode())  # grade keys every row it writes, merge checks each
    assert merge(*grade(NAMES, 2)) == 0
    rows = list(csv.DictReader(Path("merged.csv").read_text(encoding="utf-8").splitlines()))
    assert [row["submission"] for row in rows] == NAMES and all(len(row["row_hmac"]) == 64 for row in rows)


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


KEY = b"kept by staff"
CONSISTENT = {**dict.fromkeys(CHECKS, str(Outcome.PASSED)), "score": str(len(CHECKS)), "fails_partly_like": ""}


def written_shards(tmp_path: Path, key: bytes | None) -> list[Path]:
    """Two shard files of NAMES as ``grade --shard i/2 --csv`` writes them with ``key``, graded by fakes."""
    batch, paths = identify(NAMES, equal_weights()), []
    for index in (1, 2):
        graded = fake_batch(Shard(index, 2).select(NAMES), GradingOptions(equal_weights(), DIAGNOSER))
        rows = keyed_rows([csv_report.row(r, f"{index}/2") for r in graded], batch, key)
        paths.append(tmp_path / f"shard{index}.csv")
        paths[-1].write_text(csv_report.render(rows, batch.cells()), encoding="utf-8")
    return paths


def test_a_row_edited_consistently_is_refused_by_its_keyed_digest_naming_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DEDUP_HARNESS_SHARD_KEY", KEY.decode())
    shards = written_shards(tmp_path, KEY)
    assert merge(*shards) == 0 and "warning" not in capsys.readouterr().err
    edit_row(shards[1], "sub3", **CONSISTENT)  # every outcome passed, full marks, no pitfall: a score that follows
    assert merge(*shards) == 2
    line = one_line(capsys)
    assert "shard2.csv, line 3 (sub3): its keyed digest is missing or does not match" in line


def test_without_a_key_an_edited_row_merges_and_a_warning_line_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DEDUP_HARNESS_SHARD_KEY", raising=False)
    shards = written_shards(tmp_path, None)
    edit_row(shards[1], "sub3", **CONSISTENT)
    assert merge(*shards) == 0
    assert "merge: warning: no shard key (--shard-key FILE or $DEDUP_HARNESS_SHARD_KEY)" in capsys.readouterr().err


def test_a_key_from_a_file_checks_every_row_and_a_digest_cannot_be_dropped_or_left_unchecked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DEDUP_HARNESS_SHARD_KEY", raising=False)
    (tmp_path / "key").write_bytes(KEY + b"\n")
    shards = written_shards(tmp_path, KEY)
    with_key = ["--shard-key", str(tmp_path / "key")]
    assert main(["merge", *map(str, shards), "--csv", "merged.csv", *with_key]) == 0
    assert "warning" not in capsys.readouterr().err
    assert merge(*shards) == 2 and "merge was given no key to check it with" in one_line(capsys)
    edit_row(shards[0], "sub0", row_hmac="")
    assert main(["merge", *map(str, shards), "--csv", "merged.csv", *with_key]) == 2
    assert "shard1.csv, line 2 (sub0): its keyed digest is missing" in one_line(capsys)
