"""`dedup-harness check`: a student's own dedup.py, found where they keep it, with grade's report."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from dedup_harness.cli import main
from dedup_harness.core.paths import IMPL_ROOT

SAMPLES = Path(__file__).resolve().parent / "submissions" / "samples"


def test_a_correct_dedup_py_in_the_working_folder_passes_with_exit_zero(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copyfile(SAMPLES / "correct_different.py", tmp_path / "dedup.py")
    monkeypatch.chdir(tmp_path)
    assert main(["check"]) == 0
    out = capsys.readouterr().out
    assert "dedup.py: 14 / 14" in out
    assert "protections" not in out, "a student's own run has no sandbox to describe"


def test_a_buggy_one_under_corpus_is_found_diagnosed_and_shown_its_smallest_case(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "corpus").mkdir()
    shutil.copyfile(SAMPLES / "keeps_last.py", tmp_path / "corpus" / "dedup.py")
    monkeypatch.chdir(tmp_path)
    assert main(["check"]) == 1
    out = capsys.readouterr().out
    assert "fails like s01: keeps the last occurrence" in out
    assert "Smallest failing case found (2 documents, 2 characters" in out
    assert out.count("Smallest failing case: the same as check 1's, above.") >= 3, "one case, printed once"


def test_a_syntax_error_is_one_plain_line_and_no_check_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "dedup.py").write_text("def exact_dedup(:\n", encoding="utf-8")
    assert main(["check", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "problem: dedup.py line 1:" in out and "0 / 14" in out


def test_nothing_to_check_is_exit_two_with_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["check"]) == 2
    assert "no ./dedup.py or ./corpus/dedup.py here" in capsys.readouterr().err
    assert main(["check", "nowhere.py"]) == 2


def test_the_reference_itself_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(IMPL_ROOT / "corpus" / "dedup.py")]) == 0


def test_the_help_gives_one_default_the_two_places_check_looks(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "(default: ./dedup.py, else ./corpus/dedup.py)" in text
    assert "(./dedup.py or ./corpus/dedup.py by default)" in text


def test_a_project_folder_grade_would_refuse_is_said_so_and_its_dedup_py_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`check .` in a project with a virtual environment: its links make grade refuse the folder as an upload
    (0 there), so check says so and exits 1; the checks still run on the folder's dedup.py."""
    shutil.copyfile(SAMPLES / "correct_plain.py", tmp_path / "dedup.py")
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "python").symlink_to(sys.executable)
    assert main(["check", str(tmp_path)]) == 1
    said = " ".join(capsys.readouterr().out.split())
    assert "14 / 14" in said
    assert "uploaded as it is, the folder gets 0 from grade" in said and ".venv/bin/python (a symbolic link)" in said
