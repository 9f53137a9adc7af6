"""Preparing a submission: clear errors for what cannot be graded, problems for what will fail."""

from __future__ import annotations

from pathlib import Path

import pytest

from dedup_harness.core.paths import IMPL_ROOT
from dedup_harness.grade.signature import static_problems
from dedup_harness.grade.submission import MAX_BYTES, SubmissionError, prepare

REFERENCE = (IMPL_ROOT / "corpus" / "dedup.py").read_text(encoding="utf-8")


def reference_surface() -> dict[str, object]:
    """What the worker reports for the reference's own dedup.py."""
    positional = "POSITIONAL_OR_KEYWORD"
    return {
        "STATS_KEYS": {"kind": "value", "type": "tuple"},
        "paragraphs": {"kind": "function", "params": [{"name": "text", "kind": positional, "default": None}]},
        "paragraph_hash": {"kind": "function", "params": [{"name": "p", "kind": positional, "default": None}]},
        "bloom_rate": {
            "kind": "function",
            "params": [{"name": "bloom_bytes_per_item", "kind": positional, "default": None}],
        },
        "exact_dedup": {
            "kind": "function",
            "params": [
                {"name": "docs", "kind": positional, "default": None},
                {"name": "bloom_bytes_per_item", "kind": positional, "default": {"value": 10}},
                {"name": "spool_dir", "kind": "KEYWORD_ONLY", "default": {"value": None}},
                {"name": "stats", "kind": "KEYWORD_ONLY", "default": {"value": None}},
            ],
        },
    }


class TestPrepare:
    def test_a_file_becomes_the_dedup_py_of_a_copy_of_the_reference_root(self, tmp_path: Path) -> None:
        source = tmp_path / "mine.py"
        source.write_text("STATS_KEYS = ()\n", encoding="utf-8")
        submission = prepare(source, tmp_path / "scratch")
        assert (submission.root / "corpus" / "dedup.py").read_text(encoding="utf-8") == "STATS_KEYS = ()\n"
        assert (submission.root / "corpus" / "doc.py").is_file()
        assert submission.problems == []

    def test_a_folder_is_graded_by_its_dedup_py(self, tmp_path: Path) -> None:
        (tmp_path / "alice").mkdir()
        (tmp_path / "alice" / "dedup.py").write_text(REFERENCE, encoding="utf-8")
        submission = prepare(tmp_path / "alice", tmp_path / "scratch")
        assert submission.source == tmp_path / "alice" / "dedup.py"

    def test_a_folder_holding_one_project_folder_is_graded_by_the_dedup_py_in_it(self, tmp_path: Path) -> None:
        """A student who zipped their project folder: Gradescope unpacks it one level down."""
        (tmp_path / "submission" / "project").mkdir(parents=True)
        (tmp_path / "submission" / "__MACOSX" / "project").mkdir(parents=True)
        (tmp_path / "submission" / "project" / "dedup.py").write_text(REFERENCE, encoding="utf-8")
        (tmp_path / "submission" / "__MACOSX" / "dedup.py").write_text("", encoding="utf-8")
        submission = prepare(tmp_path / "submission", tmp_path / "scratch")
        assert submission.source == tmp_path / "submission" / "project" / "dedup.py"

    def test_two_project_folders_are_not_guessed_between(self, tmp_path: Path) -> None:
        for name in ("one", "two"):
            (tmp_path / "submission" / name).mkdir(parents=True)
            (tmp_path / "submission" / name / "dedup.py").write_text(REFERENCE, encoding="utf-8")
        with pytest.raises(SubmissionError, match=r"several folders in it do \(one/dedup.py, two/dedup.py\)"):
            prepare(tmp_path / "submission", tmp_path / "scratch")

    @pytest.mark.parametrize(
        ("setup", "message"),
        [
            ("missing", "no such file or folder"),
            ("empty folder", "the folder holds no dedup.py (it holds notes.py)"),
            ("huge", f"over the {MAX_BYTES >> 10} KiB a dedup.py may have"),
            ("latin-1", "not UTF-8 text (byte 5 is 0xe9)"),
            ("link", "a symbolic link"),
            ("text file", "not a Python file"),
        ],
    )
    def test_what_cannot_be_graded_says_why(self, tmp_path: Path, setup: str, message: str) -> None:
        path = tmp_path / "dedup.py"
        if setup == "empty folder":
            path = tmp_path / "bob"
            path.mkdir()
            (path / "notes.py").write_text("", encoding="utf-8")
        elif setup == "huge":
            path.write_text("#" * (MAX_BYTES + 1), encoding="utf-8")
        elif setup == "latin-1":
            path.write_bytes("x = 'é'".encode("latin-1"))
        elif setup == "link":
            (tmp_path / "real.py").write_text("", encoding="utf-8")
            path.symlink_to(tmp_path / "real.py")
        elif setup == "text file":
            path = tmp_path / "dedup.txt"
            path.write_text("", encoding="utf-8")
        with pytest.raises(SubmissionError) as raised:
            prepare(path, tmp_path / "scratch")
        assert message in str(raised.value)

    def test_a_syntax_error_is_a_problem_naming_the_line(self, tmp_path: Path) -> None:
        source = tmp_path / "dedup.py"
        source.write_text("import os\n\ndef f(:\n    pass\n", encoding="utf-8")
        submission = prepare(source, tmp_path / "scratch")
        assert [p.kind for p in submission.problems] == ["syntax"]
        assert submission.problems[0].message.startswith("dedup.py line 3: ")


class TestStaticProblems:
    def test_the_reference_surface_has_no_problem(self) -> None:
        assert static_problems(reference_surface()) == []

    def test_each_difference_from_the_stub_is_one_line(self) -> None:
        surface = reference_surface()
        del surface["bloom_rate"]
        surface["STATS_KEYS"] = {"kind": "value", "type": "list"}
        surface["paragraph_hash"] = {
            "kind": "function",
            "params": [
                {"name": "p", "kind": "POSITIONAL_OR_KEYWORD", "default": None},
                {"name": "salt", "kind": "POSITIONAL_OR_KEYWORD", "default": None},
            ],
        }
        params = surface["exact_dedup"]["params"]  # type: ignore[index]
        params[1]["default"] = {"value": {"t": "float", "v": "8.0"}}
        params[2]["kind"] = "POSITIONAL_OR_KEYWORD"
        del params[3]
        assert [p.message for p in static_problems(surface)] == [
            "STATS_KEYS should be a tuple, got a list",
            "paragraph_hash: extra required parameter 'salt': the checks never pass it",
            "bloom_rate is missing: every check that uses it fails",
            "exact_dedup: parameter 'bloom_bytes_per_item' should default to 10, defaults to 8.0",
            "exact_dedup: parameter 'spool_dir' should be keyword-only, is positional",
            "exact_dedup: parameter 'stats' is missing",
        ]

    def test_an_equal_default_of_another_type_is_accepted(self) -> None:
        surface = reference_surface()
        surface["exact_dedup"]["params"][1]["default"] = {"value": {"t": "float", "v": "10.0"}}  # type: ignore[index]
        assert static_problems(surface) == []
