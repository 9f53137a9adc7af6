"""Fuzzing the command line and JSON Lines input: exit 0, 1 or 2, one clear line on failure, never a traceback.

The CLI runs in-process (``dedup_harness.cli.main``), each example in a folder and a temp folder of its
own. The long work (grading, verify's runs, mutmut, the Bloom audit, building a bundle) is replaced by
fakes that answer at once: what is fuzzed is everything around it (parsing, option checks, output
paths, reading corpora and shards, writing). Afterwards nothing may be left: the temp folder is empty,
and the example's folder holds what it held before plus, when the command succeeded, its outputs.
"""

from __future__ import annotations

import io
import os
import re
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import event, example, given, settings
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context

import dedup_harness.commands.dedup  # noqa: F401  (rich's global random draw happens at collection)
from dedup_harness.cli import main
from dedup_harness.core import profiles
from dedup_harness.grade.grader import GradingOptions
from dedup_harness.grade.reports.model import GradeReport
from dedup_harness.mutation.measure import MutationReport
from dedup_harness.verify.matrix import judge
from grade_fakes import buggy_report, report

profiles.register()
FUZZ = settings.get_profile(profiles.FUZZ)

# Paths by kind: each example's folder is laid out the same way (see ``folder``). A new file, the
# output that works, comes up as often as all the others together.
PATH_KINDS = ("-", "dir", "file.txt", "missing/x.out", "file.txt/x.out", "corpus.jsonl", "shard.csv", "")
PATHS = st.one_of(st.sampled_from(PATH_KINDS), st.sampled_from(["a.out", "b.out", "dir/c.out", "new"]))
NUMBERS = ("0", "1", "2", "-1", "1.5", "nan", "inf", "1e-300", "1e300", "ten", "")


def fake_batch(names: list[str], options: GradingOptions, **kwargs: Any) -> list[GradeReport]:
    return [buggy_report(n) if n.endswith("3") else report(name=n) for n in names]


def fake_mutation(measurement: Any) -> MutationReport:
    buckets = {"killed": 3, "survived": 0, "no_tests": 0, "skipped": 0, "suspicious": 0, "timeout": 0}
    buckets |= {"check_was_interrupted_by_user": 0, "segfault": 0, "total": 3}
    return MutationReport("3.8.1", buckets, 3, [], [], measurement.equivalents.path)


def fake_bundle(out: Path, *, weights: Path | None = None) -> int:
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("setup.sh", "#!/bin/sh\n")
    return 1


@pytest.fixture(autouse=True)
def fast_work(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("dedup_harness.commands.grade.grade_batch", fake_batch)
    monkeypatch.setattr("dedup_harness.check.run.grade", lambda path, options, **kw: report(name=str(path)))
    monkeypatch.setattr("dedup_harness.commands.tests.collected_cases", dict)
    monkeypatch.setattr(
        "dedup_harness.commands.verify._run_with_progress", lambda layout, roots, args: (judge(("c",), [], {}), {})
    )
    monkeypatch.setattr("dedup_harness.commands.mutation.measure", fake_mutation)
    monkeypatch.setattr("dedup_harness.commands.audit_bloom._audit", lambda targets, seed: ([], None))
    monkeypatch.setattr("dedup_harness.commands.gradescope_bundle.build", fake_bundle)


@pytest.fixture(scope="module")
def shard_text(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A real grade CSV (the fake grader's), to merge."""
    folder = tmp_path_factory.mktemp("shard")
    for name in ("sub1", "sub3"):
        (folder / name).mkdir()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("dedup_harness.commands.grade.grade_batch", fake_batch)
        patch.chdir(folder)
        assert run_cli(["grade", "sub1", "sub3", "--csv", "s.csv"])[0] == 0
    return (folder / "s.csv").read_text(encoding="utf-8")


@contextmanager
def folder(base: Path, corpus: bytes, shard: str) -> Iterator[Path]:
    """A fresh folder holding one of each kind of path, and its own temp folder, current while in use."""
    root = Path(tempfile.mkdtemp(dir=base))
    (root / "dir").mkdir()
    (root / "file.txt").write_text("x")
    (root / "corpus.jsonl").write_bytes(corpus)
    (root / "shard.csv").write_text(shard, encoding="utf-8")
    (root / "tmp").mkdir()
    saved_cwd, saved_temp = os.getcwd(), tempfile.tempdir
    os.chdir(root)
    tempfile.tempdir = str(root / "tmp")
    try:
        yield root
    finally:
        os.chdir(saved_cwd)
        tempfile.tempdir = saved_temp


def run_cli(argv: list[str], stdin: bytes = b"") -> tuple[int, str, str]:
    """``main(argv)`` with its standard streams captured: (status, stdout, stderr)."""
    streams = {name: io.TextIOWrapper(io.BytesIO(), encoding="utf-8") for name in ("stdout", "stderr")}
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    sys.stdout, sys.stderr = streams["stdout"], streams["stderr"]
    try:
        status = main(argv)
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
    texts = []
    for stream in streams.values():
        stream.flush()
        texts.append(stream.buffer.getvalue().decode("utf-8", "replace"))  # type: ignore[attr-defined]
    return status, texts[0], texts[1]


def contents(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def check_run(root: Path, argv: list[str], stdin: bytes = b"") -> None:
    before = contents(root)
    status, _, err = run_cli(argv, stdin)
    if currently_in_test_context():
        event(f"{argv[0]} exit {status}")  # --hypothesis-show-statistics: what the examples came to
    assert status in (0, 1, 2), (argv, status, err)
    assert "Traceback" not in err, (argv, err)
    lines = err.strip().splitlines()
    if status != 0:
        errors = [line for line in lines if line.startswith("dedup-harness")]
        assert errors and errors == lines[-1:], (argv, err)  # one clear line, the last
    if status == 2:
        assert len(lines) == 1, (argv, err)  # refused before any work: nothing else was said
    if status == 1 and argv[0] == "dedup":
        assert re.search(r", line \d+(: |, column \d+: | starts with )", lines[-1]), (argv, err)  # the line is named
        assert " at at " not in lines[-1], (argv, err)
    assert list((root / "tmp").iterdir()) == [], (argv, "left in the temp folder")
    new = contents(root) - before
    if status != 0:
        assert new == set(), (argv, new)
    assert not [name for name in new if ".dedup-harness-" in name], (argv, new)


OPTIONS: dict[str, list[tuple[str, str]]] = {
    "dedup": [("-o", "path"), ("--bloom-bytes-per-item", "number"), ("--spool-dir", "path"), ("--stats", "path")],
    "grade": [
        ("--json", "path"),
        ("--csv", "path"),
        ("--junit", "path"),
        ("--gradescope", "path"),
        ("--jobs", "number"),
        ("--timeout", "number"),
        ("--budget", "number"),
        ("--shard", "shard"),
        ("--weights", "path"),
    ],
    "merge": [("--csv", "path"), ("--json", "path")],
    "verify": [
        ("--json", "path"),
        ("--markdown", "path"),
        ("--stryker", "path"),
        ("--jobs", "number"),
        ("--timeout", "number"),
        ("--check-timeout", "number"),
        ("--profile", "word"),
    ],
    "mutation": [("--json", "path"), ("--max-children", "number"), ("--equivalents", "path")],
    "check": [("--json", "path")],
    "start": [],
    "tests": [],
    "diff": [("--reference", "path")],
    "audit-bloom": [("--json", "path"), ("--seed", "number")],
    "gradescope-bundle": [("--weights", "path")],
}
POSITIONALS = {
    "dedup": 1,
    "grade": 2,
    "merge": 2,
    "verify": 0,
    "mutation": 0,
    "check": 1,
    "start": 1,
    "tests": 1,
    "diff": 1,
    "audit-bloom": 1,
    "gradescope-bundle": 1,
}
VALUES = {
    "path": PATHS,
    "number": st.sampled_from(NUMBERS),
    "shard": st.sampled_from(["1/2", "2/2", "3/2", "0/1", "x", "1/1"]),
    "word": st.sampled_from(["verify", "ci", "nope", ""]),
}


@st.composite
def command_lines(draw: st.DrawFn) -> list[str]:
    command = draw(st.sampled_from([*OPTIONS, "no-such-command"]))
    fitting = {"dedup": "corpus.jsonl", "merge": "shard.csv", "audit-bloom": "reference", "check": "dir", "tests": "3"}
    positional = st.one_of(
        st.just(fitting.get(command, "dir")), st.sampled_from([*PATH_KINDS, "datatrove", "no.such:Class"])
    )
    argv = [command, *draw(st.lists(positional, max_size=POSITIONALS.get(command, 1)))]
    for option, kind in draw(st.lists(st.sampled_from(OPTIONS.get(command) or [("--x", "word")]), max_size=4)):
        argv += [option] if kind == "flag" else [option, draw(VALUES[kind])]
    if draw(st.booleans()) and command in ("dedup", "grade"):
        argv.append("-q" if command == "dedup" else "--show-student-output")
    if draw(st.integers(0, 9)) == 0:
        argv.append(draw(st.sampled_from(["--no-such-option", "-z", "--", "--help"])))
    return argv


GOOD_LINE = b'{"id": "a", "text": "one\\n\\ntwo", "meta": {"k": [1, 2.5, null]}}\n'
DEEP = b'{"id": "c", "text": "x", "meta": ' + b'{"k": ' * 3000 + b"1" + b"}" * 3001 + b"\n"
NOT_A_NUMBER = b'{"id": "c", "text": "x", "meta": {"n": NaN}}\n'
BAD_LINES = st.sampled_from(
    [
        b"\n",
        b"   \r\n",
        b"{not json\n",
        b"[1]\n",
        b'{"id": 1, "text": "x"}\n',
        NOT_A_NUMBER,
        b'{"id": "c", "text": "x", "meta": {"n": 1e999}}\n',
        b'{"id": "c", "text": "\\ud800"}\n',
        b'{"id": "c", "text": "caf\xe9"}\n',
        b'\xef\xbb\xbf{"id": "c", "text": "x"}\n',
        b'{"id": "c", "text": "a\tb"}\n',
        DEEP,
        b'{"id": "c", "text": "x", "extra": 1}\n',
        b'{"id": "d", "text": "' + "é".encode() * 50 + b'"}',  # no final newline
    ]
)
GOOD_LINES = st.sampled_from([GOOD_LINE, b'{"id": "b", "text": "two\\n\\none"}\n', b'{"id": "e", "text": ""}\n'])
LINES = st.one_of(GOOD_LINES, GOOD_LINES, BAD_LINES)


@settings(FUZZ)
@given(argv=command_lines())
@example(argv=["dedup", "corpus.jsonl", "-o", "dir"])  # main replaced whatever -o named; a folder: a traceback
@example(argv=["dedup", "corpus.jsonl", "--bloom-bytes-per-item", "1e-300"])  # refused only after spooling
@example(argv=["dedup", "corpus.jsonl", "-o", "a.out", "--stats", "missing/x.out"])  # left a.out
@example(argv=["grade", "dir", "--json", "file.txt/x.out"])  # a traceback after grading
@example(argv=["gradescope-bundle", "dir"])  # a traceback
@example(argv=["dedup"])  # argparse's usage and SystemExit
def test_any_command_line_exits_0_1_or_2_with_one_clear_line_and_leaves_nothing(
    argv: list[str], tmp_path: Path, shard_text: str
) -> None:
    with folder(tmp_path, GOOD_LINE * 3, shard_text) as root:
        check_run(root, argv)


@settings(FUZZ)
@given(lines=st.lists(LINES, max_size=6), to_stdout=st.booleans(), quiet=st.booleans())
@example(lines=[DEEP], to_stdout=False, quiet=True)  # a RecursionError traceback on main
@example(lines=[GOOD_LINE, NOT_A_NUMBER], to_stdout=False, quiet=True)  # named the document, not the line
@example(lines=[GOOD_LINE, b"\n"], to_stdout=True, quiet=False)  # a trailing blank line was an error
def test_any_json_lines_input_exits_0_1_or_2_with_one_clear_line_and_leaves_nothing(
    lines: list[bytes], to_stdout: bool, quiet: bool, tmp_path: Path, shard_text: str
) -> None:
    with folder(tmp_path, b"".join(lines), shard_text) as root:
        argv = ["dedup", "corpus.jsonl", "-o", "-" if to_stdout else "out.jsonl", "--stats", "stats.json"]
        check_run(root, argv + (["-q"] if quiet else []))
        check_run(root, ["dedup", "-", "-q"], stdin=b"".join(lines))


def test_the_fuzz_catches_a_traceback_and_a_second_error_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The checks above can fail: a command that prints a traceback, or two error lines, is caught."""
    for text in (
        "Traceback (most recent call last):\ndedup-harness x: boom\n",
        "dedup-harness x: a\ndedup-harness x: b\n",
    ):
        monkeypatch.setattr(sys.modules[__name__], "main", lambda argv, text=text: print(text, file=sys.stderr) or 2)
        with folder(tmp_path, b"", ""), pytest.raises(AssertionError):
            check_run(Path.cwd(), ["anything"])
