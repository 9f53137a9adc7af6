"""Fail fast, no tracebacks: options refused as they are parsed, every bad line of a corpus named by its number."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

# Imported at collection: rich draws from the global random module when its styles are first imported.
import dedup_harness.commands.dedup  # noqa: F401
from dedup_harness.cli import main

GOOD = b'{"id": "a", "text": "one\\n\\ntwo"}\n'


def one_line(err: str) -> str:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


class Unread(io.RawIOBase):
    """Standard input that fails the test if the command reads it."""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        raise AssertionError("the corpus was read although an option is bad")


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("1e-300", "too small"),  # exp(-8B(ln 2)^2) rounds to 1
        ("1e300", "too large"),  # exp(-8B(ln 2)^2) underflows to 0
        ("nan", "expected a positive number"),
        ("-1", "expected a positive number"),
        ("ten", "expected a positive number"),
    ],
)
def test_a_bloom_size_the_filter_cannot_use_is_refused_before_the_corpus_is_read(
    value: str, says: str, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BufferedReader(Unread())))
    assert main(["dedup", "-", "-q", "--bloom-bytes-per-item", value]) == 2
    line = one_line(capsys.readouterr().err)
    assert "--bloom-bytes-per-item" in line and says in line


def run_on(tmp_path: Path, data: bytes, capsys: Any) -> tuple[int, str]:
    source = tmp_path / "in.jsonl"
    source.write_bytes(data)
    status = main(["dedup", str(source), "-o", str(tmp_path / "out.jsonl"), "-q"])
    return status, capsys.readouterr().err


@pytest.mark.parametrize(
    ("line", "says"),
    [
        (b'{"id": "b", "text": "x", "meta": ' + b'{"k": ' * 100_000 + b"1" + b"}" * 100_001 + b"\n", "nested deeper"),
        (b'{"id": "b", "text": "x", "meta": {"k": ' + b"[" * 150 + b"]" * 150 + b"}}\n", "nested deeper"),
        (b'{"id": "b", "text": "x", "meta": {"score": NaN}}\n', "NaN is not a JSON number"),
        (b'{"id": "b", "text": "x", "meta": {"big": 1e999}}\n', "the number 1e999 is out of range"),
        (b'{"id": "b", "text": "x\\ud800"}\n', "lone surrogate"),
        (b'{"id": "b", "text": "x", "meta": {"\\udc00": 1}}\n', "lone surrogate"),
        (b"\n" + GOOD, "line 2: a blank line"),
    ],
)
def test_a_bad_line_is_named_by_its_number_in_one_line(tmp_path: Path, capsys: Any, line: bytes, says: str) -> None:
    status, err = run_on(tmp_path, GOOD + line, capsys)
    message = one_line(err)
    assert status == 1
    assert "in.jsonl, line 2: " in message and says in message
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]


def test_trailing_blank_lines_are_accepted(tmp_path: Path, capsys: Any) -> None:
    status, err = run_on(tmp_path, GOOD + b"\n \n", capsys)
    assert (status, err) == (0, "")
    assert [json.loads(line)["id"] for line in (tmp_path / "out.jsonl").read_text().splitlines()] == ["a"]


def never(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("the work started although an option is bad")


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (["grade", ".", "--jobs", "0"], "--jobs"),
        (["grade", ".", "--timeout", "nan"], "--timeout"),
        (["grade", ".", "--timeout", "-3"], "--timeout"),
        (["grade", ".", "--budget", "0"], "--budget"),
        (["grade", ".", "--budget", "30", "--timeout", "20"], "--timeout 20 is not longer than --budget 30"),
        (["verify", "--jobs", "-1"], "--jobs"),
        (["verify", "--check-timeout", "0"], "--check-timeout"),
        (["verify", "--timeout", "inf"], "--timeout"),
        (["verify", "--profile", "no-such-profile"], "--profile"),
        (["mutation", "--max-children", "0"], "--max-children"),
        (["dedup"], "IN.jsonl"),
    ],
)
def test_a_bad_option_is_one_line_and_exit_2_before_any_work(
    argv: list[str], option: str, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.setattr("dedup_harness.commands.grade.grade_batch", never)
    monkeypatch.setattr("dedup_harness.commands.verify.verify", never)
    monkeypatch.setattr("dedup_harness.commands.mutation.measure", never)
    assert main(argv) == 2
    assert option in one_line(capsys.readouterr().err)
