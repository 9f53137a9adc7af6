"""A student's own doc.py, hashing.py and bloom.py: grade and check use them only where the course grades with them
(``--own-deps``, which a kit built with it carries), and check tells what they would give otherwise.

A correct ``dedup.py`` beside a ``bloom.py`` whose index is ``h & m_bytes`` (datatrove's line) fails
``check`` in a kit built with ``--own-deps``; a ``dedup.py`` importing a helper of its own
``corpus/hashing.py`` gets 0 from check as from grade, and check says theirs would give full marks.
The report's first line says which module came from where, and the checks know the filter under test
is not the course's (``Subject.own_filter``). The correct ``dedup.py`` is a sample submission.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from dedup_harness.cli import main
from dedup_harness.commands.check import REF_DEPS_WORDS, WITH_OWN
from dedup_harness.core.impl_roots import OWN_MODULES, modules_words, own_modules, under_test
from dedup_harness.core.impl_under_test import PLUGIN, UNDER_TEST_KEY, impl_args, own_args
from dedup_harness.core.paths import IMPL_ROOT, OWN_DEPS_MARK, SUITE_DIR
from dedup_harness.distribution import gradescope_bundle, prairielearn_bundle
from dedup_harness.distribution.gradescope_bundle import SCRIPTS
from dedup_harness.distribution.student_kit import kit_files
from dedup_harness.grade.submission import prepare

SAMPLES = Path(__file__).resolve().parent / "submissions" / "samples"
REDUCTION = "splitmix64((h + i * GOLDEN_GAMMA) & MASK64) % self.m"
MASKED = "splitmix64((h + i * GOLDEN_GAMMA) & MASK64) & ((self.m + 7) // 8)"  # h & m_bytes, datatrove's line


def masked_bloom() -> str:
    text = (IMPL_ROOT / "corpus" / "bloom.py").read_text(encoding="utf-8")
    assert text.count(REDUCTION) == 1, "the course's bit reduction moved: update this test's mask"
    return text.replace(REDUCTION, MASKED)


@pytest.fixture
def beside_own_bloom(tmp_path: Path) -> Path:
    """A student's folder: a correct dedup.py, and corpus/bloom.py of their own with the mask."""
    folder = tmp_path / "student"
    (folder / "corpus").mkdir(parents=True)
    shutil.copyfile(SAMPLES / "correct_plain.py", folder / "dedup.py")
    (folder / "corpus" / "bloom.py").write_text(masked_bloom(), encoding="utf-8")
    return folder


def checked(folder: Path, *options: str) -> tuple[int, dict[str, Any]]:
    status = main(["check", str(folder), "--json", str(folder.parent / "c.json"), *options])
    return status, json.loads((folder.parent / "c.json").read_text(encoding="utf-8"))["submissions"][0]


def lost(report: dict[str, Any]) -> list[str]:
    return [check["name"] for check in report["checks"] if check["outcome"] != "passed"]


def test_own_modules_are_found_beside_a_dedup_py_or_in_the_corpus_folder_holding_it(tmp_path: Path) -> None:
    (tmp_path / "corpus").mkdir()
    for name in ("doc", "bloom"):
        (tmp_path / "corpus" / f"{name}.py").write_text("", encoding="utf-8")
    (tmp_path / "corpus" / "hashing.py").symlink_to(tmp_path / "corpus" / "doc.py")
    (tmp_path / "dedup.py").write_text("", encoding="utf-8")
    (tmp_path / "corpus" / "dedup.py").write_text("", encoding="utf-8")
    expected = {"doc": tmp_path / "corpus" / "doc.py", "bloom": tmp_path / "corpus" / "bloom.py"}
    assert own_modules(tmp_path / "dedup.py") == expected, "a symbolic link is never taken"
    assert own_modules(tmp_path / "corpus" / "dedup.py") == expected


def test_the_words_say_which_module_is_whose() -> None:
    assert modules_words(()) == "dedup.py yours; doc.py, hashing.py and bloom.py the course's"
    assert modules_words(("bloom",)) == "dedup.py and bloom.py yours; doc.py and hashing.py the course's"
    assert modules_words(OWN_MODULES) == "dedup.py, doc.py, hashing.py and bloom.py yours"


def test_grade_prepares_the_course_modules_unless_the_course_opts_in(beside_own_bloom: Path, tmp_path: Path) -> None:
    alone = prepare(beside_own_bloom, tmp_path / "a")
    assert (alone.own, alone.unused) == ((), ("bloom",))
    assert (alone.root / "corpus" / "bloom.py").read_text() == (IMPL_ROOT / "corpus" / "bloom.py").read_text()
    opted = prepare(beside_own_bloom, tmp_path / "b", own_deps=True)
    assert (opted.own, opted.unused) == (("bloom",), ())
    assert (opted.root / "corpus" / "bloom.py").read_text() == masked_bloom()


def test_in_a_kit_built_with_own_deps_a_correct_dedup_py_beside_a_masked_bloom_py_fails_check(
    beside_own_bloom: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("dedup_harness.commands.check.OWN_DEPS", True)  # the kit's mark, as core/paths reads it
    status, report = checked(beside_own_bloom)
    first = capsys.readouterr().out.splitlines()[0]
    assert first == "modules: dedup.py and bloom.py yours; doc.py and hashing.py the course's"
    assert status == 1 and "test_false_positives_stay_within_the_budget" in lost(report)
    assert report["modules"] == {"dedup": "yours", "doc": "the course's", "hashing": "the course's", "bloom": "yours"}


def test_check_ref_deps_runs_with_the_courses_modules_and_in_an_own_deps_kit_predicts_no_grade(
    beside_own_bloom: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The chapter's `check --ref-deps`: dedup.py checked before the earlier modules pass; full marks here, yet exit 1
    where the course grades the student's own, since grade would use the masked bloom.py."""
    monkeypatch.setattr("dedup_harness.commands.check.OWN_DEPS", True)
    status, report = checked(beside_own_bloom, "--ref-deps")
    assert report["score"] == report["max_score"] and report["modules"]["bloom"] == "the course's"
    assert status == 1 and REF_DEPS_WORDS in " ".join(capsys.readouterr().out.split())


def test_check_grades_with_the_courses_modules_as_grade_does_and_tells_what_the_students_own_would_give(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's row: a helper of the student's own corpus/hashing.py, which grade's course modules lack."""
    (tmp_path / "student" / "corpus").mkdir(parents=True)
    hashing = (IMPL_ROOT / "corpus" / "hashing.py").read_text(encoding="utf-8")
    (tmp_path / "student" / "corpus" / "hashing.py").write_text(f"{hashing}\n\ndef mine() -> None: ...\n")
    correct = (SAMPLES / "correct_plain.py").read_text(encoding="utf-8")
    helped = correct.replace("import hashlib\n", "import hashlib\n\nfrom corpus.hashing import mine\n", 1)
    (tmp_path / "student" / "dedup.py").write_text(helped, encoding="utf-8")
    status, report = checked(tmp_path / "student")
    said = " ".join(capsys.readouterr().out.split())  # the terminal report wraps at its width
    first = "modules: dedup.py yours; doc.py, hashing.py and bloom.py the course's (yours beside it, not used:"
    assert said.startswith(f"{first} corpus/hashing.py)") and f"{WITH_OWN}: 14/14" in said
    assert (status, report["score"], report["modules"]["hashing"]) == (1, 0, "the course's")


class _Configured:
    """A pytest plugin that keeps the configured session's config (the suite is only collected)."""

    config: pytest.Config | None = None

    def pytest_configure(self, config: pytest.Config) -> None:
        self.config = config


def _suite_conftest() -> Any:
    spec = importlib.util.spec_from_file_location("suite_conftest_for_a_test", SUITE_DIR / "conftest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(("own", "expected"), [(("bloom",), True), (("doc", "hashing"), False), ((), False)])
def test_the_suite_tells_its_judges_whether_the_filter_is_the_courses(own: tuple[str, ...], expected: bool) -> None:
    """The one place the suite builds its Subject asks the --impl plugin which modules are the author's own."""
    kept = _Configured()
    args = [str(SUITE_DIR), *impl_args(IMPL_ROOT), *own_args(own), "--collect-only", "-q", "-p", "no:cacheprovider"]
    pytest.main(args, plugins=[kept])
    assert kept.config is not None and kept.config.stash[UNDER_TEST_KEY].own == own
    assert _suite_conftest().own_filter(kept.config) is expected


def test_a_dedup_py_given_to_impl_runs_beside_its_own_modules_only_where_the_course_grades_them(
    beside_own_bloom: Path,
) -> None:
    folders: list[Path] = []

    def scratch() -> Path:
        folders.append(beside_own_bloom.parent / f"scratch{len(folders)}")
        folders[-1].mkdir()
        return folders[-1]

    assert under_test(str(beside_own_bloom), scratch).own == ()
    found = under_test(str(beside_own_bloom), scratch, own_deps=True)
    assert found.own == ("bloom",) and (found.root / "corpus" / "bloom.py").read_text() == masked_bloom()


@pytest.mark.parametrize("kit_says_own_deps", [False, True])
def test_pytest_impl_follows_the_kits_decision_as_check_does(beside_own_bloom: Path, kit_says_own_deps: bool) -> None:
    """No option of its own: `pytest --impl dedup.py` runs with the modules check and grade would, as its header
    says. (In a process of its own: this one imported the course's ``corpus`` already.)"""
    marked = f"import {PLUGIN} as plugin; plugin.OWN_DEPS = {kit_says_own_deps}"  # as the kit's mark would
    run = f"import sys, pytest; {marked}; sys.exit(pytest.main(sys.argv[1:]))"
    args = [
        str(SUITE_DIR / "test_paragraphs.py"),
        *impl_args(beside_own_bloom),
        "--collect-only",
        "-p",
        "no:cacheprovider",
    ]
    done = subprocess.run([sys.executable, "-c", run, *args], capture_output=True, text=True, cwd=beside_own_bloom)
    mine = "dedup.py and bloom.py yours" if kit_says_own_deps else "dedup.py yours; doc.py, hashing.py and bloom.py"
    assert done.returncode == 0 and f"under test --impl {beside_own_bloom}" in done.stdout and mine in done.stdout


def test_the_kit_and_the_bundle_carry_the_courses_decision_to_grade_the_students_own(tmp_path: Path) -> None:
    """The kit holds the mark check reads (core/paths.OWN_DEPS); the bundle's makes run_autograder pass --own-deps."""
    assert f"dedup_harness/_data/{OWN_DEPS_MARK}" in {name for name, _ in kit_files(own_deps=True)}
    assert f"dedup_harness/_data/{OWN_DEPS_MARK}" not in {name for name, _ in kit_files()}
    shutil.copy(SCRIPTS / "run_autograder", tmp_path)
    (tmp_path / OWN_DEPS_MARK).write_text("grade --own-deps\n", encoding="utf-8")
    (tmp_path / "python").write_text('#!/bin/sh\necho "$@" > "$(dirname "$0")/args"\n', encoding="utf-8")
    (tmp_path / "python").chmod(0o755)
    env = {"PATH": os.environ["PATH"], "DEDUP_HARNESS_PYTHON": str(tmp_path / "python")}
    subprocess.run(
        ["bash", str(tmp_path / "run_autograder")], env={**env, "DEDUP_HARNESS_AUTOGRADER_ROOT": str(tmp_path)}
    )
    assert "--own-deps" in (tmp_path / "args").read_text(encoding="utf-8").split()


@pytest.mark.parametrize("own_deps", [True, False], ids=["with --own-deps", "without"])
def test_both_bundles_hold_own_deps_txt_when_built_with_own_deps_and_only_then(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, own_deps: bool
) -> None:
    """Through each command's line, as staff build them; no wheel is built or fetched (the slow tests build whole
    bundles), so the bundle is the files around its wheels: the scripts, the lock, provenance and the marks."""
    monkeypatch.setattr(gradescope_bundle, "stage_source", lambda folder: None)
    monkeypatch.setattr(gradescope_bundle.bundle_wheels, "gather", lambda *args: None)
    flag = ["--own-deps"] if own_deps else []
    assert main(["gradescope-bundle", str(tmp_path / "autograder.zip"), *flag]) == 0
    with zipfile.ZipFile(tmp_path / "autograder.zip") as archive:
        assert "run_autograder" in archive.namelist() and (OWN_DEPS_MARK in archive.namelist()) is own_deps
    assert main(["prairielearn-bundle", str(tmp_path / "pl"), "--image", "you/dedup:1", *flag]) == 0
    course = tmp_path / "pl" / prairielearn_bundle.COURSE
    assert (course / "grade.sh").is_file() and (course / OWN_DEPS_MARK).is_file() is own_deps


@pytest.mark.slow
def test_grade_own_deps_grades_the_students_bloom_in_the_worker_and_says_so(
    beside_own_bloom: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The student's modules are submission code: the worker imports them, and the report says whose they were."""
    assert main(["grade", str(beside_own_bloom), "--json", str(beside_own_bloom.parent / "g.json")]) == 0
    report = json.loads((beside_own_bloom.parent / "g.json").read_text(encoding="utf-8"))["submissions"][0]
    assert (report["score"], report["modules"]["bloom"]) == (14, "the course's")
    said = " ".join(capsys.readouterr().out.split())  # the terminal report wraps at its width
    assert "(yours beside it, not used: corpus/bloom.py)" in said
    out = beside_own_bloom.parent / "own.json"
    assert main(["grade", str(beside_own_bloom), "--own-deps", "--json", str(out)]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))["submissions"][0]
    assert report["modules"]["bloom"] == "yours" and "test_false_positives_stay_within_the_budget" in lost(report)
    assert "modules: dedup.py and bloom.py yours; doc.py and hashing.py the course's" in capsys.readouterr().out
