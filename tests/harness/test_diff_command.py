"""`dedup-harness diff`: a student's functions beside the reference's, matched by name, a unified diff each."""

from __future__ import annotations

from pathlib import Path

import pytest

from dedup_harness.check.function_diff import compare, functions
from dedup_harness.cli import main
from dedup_harness.core.paths import REFERENCE_SOURCE

MINE = """import hashlib


def paragraph_hash(p):
    return hashlib.sha256(p.encode("utf-8")).digest()


class Spool:
    def documents(self):
        return []


def helper():
    return 1
"""
THEIRS = """import hashlib


def paragraph_hash(p):
    return hashlib.sha256(p.encode("utf-8")).digest()


class Spool:
    @staticmethod
    def documents():
        return [1]


def screen():
    return set()
"""


def test_functions_are_found_by_name_methods_as_class_dot_name(tmp_path: Path) -> None:
    (tmp_path / "mine.py").write_text(MINE, encoding="utf-8")
    found = functions(tmp_path / "mine.py")
    assert list(found) == ["paragraph_hash", "Spool.documents", "helper"]
    assert found["Spool.documents"].line == 9


def test_shared_functions_get_a_diff_and_the_rest_are_listed_by_side(tmp_path: Path) -> None:
    (tmp_path / "mine.py").write_text(MINE, encoding="utf-8")
    (tmp_path / "theirs.py").write_text(THEIRS, encoding="utf-8")
    compared = compare(tmp_path / "mine.py", tmp_path / "theirs.py")
    assert compared.diffs["paragraph_hash"] == []
    diff = compared.diffs["Spool.documents"]
    assert diff[0].startswith("--- reference Spool.documents (line 9)") and "+        return []\n" in diff
    assert "-    @staticmethod\n" in diff, "a function's text starts at its first decorator"
    assert [f.name for f in compared.only_yours] == ["helper"]
    assert [f.name for f in compared.only_reference] == ["screen"]


def test_a_function_whose_docstring_alone_changed_does_not_differ(tmp_path: Path) -> None:
    (tmp_path / "theirs.py").write_text(THEIRS, encoding="utf-8")
    (tmp_path / "mine.py").write_text(THEIRS.replace("    return set()", '    """Mine."""\n    return set()'))
    assert compare(tmp_path / "mine.py", tmp_path / "theirs.py").diffs["screen"] == []
    (tmp_path / "mine.py").write_text(THEIRS.replace("return set()", "return {1}"), encoding="utf-8")
    assert compare(tmp_path / "mine.py", tmp_path / "theirs.py").diffs["screen"] != []


@pytest.mark.skipif(not REFERENCE_SOURCE.is_file(), reason="the student kit holds no reference")
def test_in_the_staff_install_the_embedded_reference_is_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "dedup.py").write_text(MINE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["diff"]) == 0
    out = capsys.readouterr().out
    assert "paragraph_hash:\n--- reference paragraph_hash" in out and "only in the reference: screen" in out


def test_without_a_reference_it_says_to_pass_the_one_staff_release(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "dedup.py").write_text(MINE, encoding="utf-8")
    monkeypatch.setattr("dedup_harness.commands.diff.REFERENCE_SOURCE", tmp_path / "none.py")
    assert main(["diff", str(tmp_path)]) == 2
    assert "pass --reference FILE" in capsys.readouterr().err
    (tmp_path / "released.py").write_text(THEIRS, encoding="utf-8")
    assert main(["diff", str(tmp_path), "--reference", str(tmp_path / "released.py")]) == 0


def test_a_file_that_does_not_parse_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "dedup.py").write_text("def (:\n", encoding="utf-8")
    assert main(["diff", str(tmp_path / "dedup.py"), "--reference", str(tmp_path / "dedup.py")]) == 2
    assert "not Python that parses" in capsys.readouterr().err
