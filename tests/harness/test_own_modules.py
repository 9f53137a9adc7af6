"""A student's own doc.py, hashing.py and bloom.py: check uses them (unless --ref-deps), grade only with --own-deps.

The test of the issue: a correct ``dedup.py`` beside a ``bloom.py`` whose index is ``h & m_bytes``
(datatrove's line) fails ``check`` and passes ``check --ref-deps``; the report's first line says which
module came from where, and the checks know the filter under test is not the course's
(``Subject.own_filter``). The correct ``dedup.py`` is a sample submission: students get none.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from dedup_harness.cli import main
from dedup_harness.core.impl_roots import OWN_MODULES, modules_words, own_modules, under_test
from dedup_harness.core.impl_under_test import UNDER_TEST_KEY, impl_args, own_args
from dedup_harness.core.paths import IMPL_ROOT, SUITE_DIR
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


def test_a_correct_dedup_py_beside_a_masked_bloom_py_fails_check_and_passes_with_ref_deps(
    beside_own_bloom: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, report = checked(beside_own_bloom)
    first = capsys.readouterr().out.splitlines()[0]
    assert first == "modules: dedup.py and bloom.py yours; doc.py and hashing.py the course's"
    assert status == 1 and "test_false_positives_stay_within_the_budget" in lost(report)
    assert report["modules"] == {"dedup": "yours", "doc": "the course's", "hashing": "the course's", "bloom": "yours"}
    status, report = checked(beside_own_bloom, "--ref-deps")
    first = " ".join(" ".join(capsys.readouterr().out.split("\n\n")[0].splitlines()[:2]).split())  # it wraps at 80
    said = "modules: dedup.py yours; doc.py, hashing.py and bloom.py the course's"
    assert first.startswith(f"{said} (yours beside it, not used: corpus/bloom.py)")
    assert (status, lost(report), report["modules"]["bloom"]) == (0, [], "the course's")


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


def test_a_dedup_py_given_to_impl_runs_beside_its_own_modules_unless_ref_deps(beside_own_bloom: Path) -> None:
    folders: list[Path] = []

    def scratch() -> Path:
        folders.append(beside_own_bloom.parent / f"scratch{len(folders)}")
        folders[-1].mkdir()
        return folders[-1]

    found = under_test(str(beside_own_bloom), scratch)
    assert found.own == ("bloom",) and (found.root / "corpus" / "bloom.py").read_text() == masked_bloom()
    assert under_test(str(beside_own_bloom), scratch, ref_deps=True).own == ()


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
