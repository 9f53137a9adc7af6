"""Preparing a submission: clear errors for what cannot be graded, problems for what will fail."""

from __future__ import annotations

from pathlib import Path

import pytest

from dedup_harness.core.paths import IMPL_ROOT
from dedup_harness.grade.signature import static_problems
from dedup_harness.grade.submission import (
    MAX_BYTES,
    NESTED,
    SubmissionError,
    compile_problems,
    import_problems,
    prepare,
)

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
        elif setup == "link":
            (tmp_path / "real.py").write_text("", encoding="utf-8")
            path.symlink_to(tmp_path / "real.py")
        elif setup == "text file":
            path = tmp_path / "dedup.txt"
            path.write_text("", encoding="utf-8")
        with pytest.raises(SubmissionError) as raised:
            prepare(path, tmp_path / "scratch")
        assert message in str(raised.value)

    def test_a_coding_cookie_is_read_as_python_reads_it_and_the_bytes_are_graded_as_they_are(
        self, tmp_path: Path
    ) -> None:
        source = tmp_path / "dedup.py"
        data = "# -*- coding: latin-1 -*-\nSTATS_KEYS = ('é',)\n".encode("latin-1")
        source.write_bytes(data)
        submission = prepare(source, tmp_path / "scratch")
        assert submission.problems == []
        assert (submission.root / "corpus" / "dedup.py").read_bytes() == data

    def test_a_byte_order_mark_is_read_as_python_reads_it(self, tmp_path: Path) -> None:
        source = tmp_path / "dedup.py"
        source.write_bytes("\ufeffSTATS_KEYS = ('é',)\n".encode())
        assert prepare(source, tmp_path / "scratch").problems == []

    @pytest.mark.parametrize(
        ("data", "words"),
        [
            ("x = 'é'\n".encode("latin-1"), "dedup.py line 1: (unicode error) 'utf-8' codec can't decode byte 0xe9"),
            (b"# coding: klingon\nx = 1\n", "dedup.py: unknown encoding: klingon"),
        ],
        ids=["latin-1 without a cookie", "an unknown coding"],
    )
    def test_a_source_that_python_cannot_decode_is_a_syntax_problem(
        self, tmp_path: Path, data: bytes, words: str
    ) -> None:
        source = tmp_path / "dedup.py"
        source.write_bytes(data)
        problems = prepare(source, tmp_path / "scratch").problems
        assert [p.kind for p in problems] == ["syntax"] and problems[0].message.startswith(words), problems

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


class TestDeepSources:
    """What compiles is walked without recursion; what does not is the submission's problem line."""

    def test_a_sum_of_1200_terms_compiles_and_its_imports_are_found(self) -> None:
        source = "import numpy\n_X = " + " + ".join(["1"] * 1200) + "\n"
        assert compile_problems(source) == []
        assert [p.message for p in import_problems(source, ())] == [
            "dedup.py line 1 imports numpy, which this course does not allow"
        ]

    @pytest.mark.parametrize(
        ("source", "raised"),
        [
            ("_X = " + " + ".join(["1"] * 3000) + "\n", "RecursionError"),
            ("_X = " + "-" * 100_000 + "1\n", "MemoryError"),
        ],
        ids=["3000 terms", "100000 unary minus signs"],
    )
    def test_a_source_nested_past_what_python_compiles_is_a_syntax_problem(self, source: str, raised: str) -> None:
        problems = compile_problems(source)
        assert [(p.kind, p.message) for p in problems] == [
            ("syntax", f"dedup.py cannot be compiled: {NESTED} ({raised})")
        ]
        assert import_problems(source, ()) == []  # the walk finds nothing in what does not parse, and raises nothing
