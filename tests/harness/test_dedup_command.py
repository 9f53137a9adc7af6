"""`dedup-harness dedup` end to end: files and standard streams, stats, bad lines, and nothing left behind."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# Imported here, at collection: rich draws from the global random module when its styles are first
# imported, and the suite's conftest fails a test during which the global random state moves.
import dedup_harness.commands.dedup  # noqa: F401
from corpus.dedup import STATS_KEYS, exact_dedup
from corpus.doc import Doc
from dedup_harness.cli import main
from dedup_harness.core import jsonl
from dedup_harness.core.corpora import mixed_corpus
from dedup_harness.core.paths import FIXTURE_DIR

FIXTURE = FIXTURE_DIR / "docs.jsonl"


def expected_output(lines: list[bytes]) -> bytes:
    """What the command should write: the stage run in-process over the same records."""
    docs = [Doc(r["id"], r["text"], r["meta"]) for r in jsonl.read_records(lines, source="x")]
    out = io.BytesIO()
    for d in exact_dedup(docs):
        jsonl.write_record(out, {"id": d.id, "text": d.text, "meta": d.meta})
    return out.getvalue()


@pytest.fixture
def spool(tmp_path: Path) -> Path:
    folder = tmp_path / "spool"
    folder.mkdir()
    return folder


def left_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_a_file_in_gives_the_stage_output_and_the_stats_file(tmp_path: Path, spool: Path) -> None:
    out, stats = tmp_path / "out.jsonl", tmp_path / "stats.json"
    argv = ["dedup", str(FIXTURE), "-o", str(out), "--spool-dir", str(spool), "--stats", str(stats), "-q"]
    assert main(argv) == 0
    assert out.read_bytes() == expected_output(FIXTURE.read_bytes().splitlines(keepends=True))
    written = json.loads(stats.read_text())
    assert list(written) == list(STATS_KEYS)
    assert written["docs_in"] == 200 and written["docs_out"] == out.read_bytes().count(b"\n")
    assert left_in(spool) == []
    assert left_in(tmp_path) == ["out.jsonl", "spool", "stats.json"]  # no temporary file beside the output


def test_dash_reads_stdin_and_writes_stdout(monkeypatch: pytest.MonkeyPatch, capsysbinary: Any) -> None:
    lines = [(json.dumps(r) + "\n").encode() for r in mixed_corpus(5, docs=30)]
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"".join(lines))))
    assert main(["dedup", "-", "-o", "-", "--bloom-bytes-per-item", "0.5"]) == 0
    captured = capsysbinary.readouterr()
    assert captured.out == expected_output(lines)
    assert b"duplicate_paragraphs" in captured.err  # the stats table goes to stderr, not into the corpus


def test_a_malformed_line_fails_naming_it_and_leaves_the_old_output(tmp_path: Path, spool: Path, capsys: Any) -> None:
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_bytes(FIXTURE.read_bytes() + b'{"id": "x", "text": 7}\n')
    out.write_text("old")
    assert main(["dedup", str(source), "-o", str(out), "--spool-dir", str(spool), "-q"]) == 1
    assert "in.jsonl, line 201: 'text' must be a JSON string" in capsys.readouterr().err
    assert out.read_text() == "old"
    assert left_in(spool) == [] and left_in(tmp_path) == ["in.jsonl", "out.jsonl", "spool"]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--bloom-bytes-per-item", "0"], "argument --bloom-bytes-per-item: '0': expected a positive number"),
        (["--spool-dir", "/nonexistent/folder"], "--spool-dir /nonexistent/folder: not a folder"),
    ],
)
def test_bad_options_are_clear_errors(tmp_path: Path, capsys: Any, args: list[str], says: str) -> None:
    assert main(["dedup", str(FIXTURE), "-o", str(tmp_path / "out.jsonl"), "-q", *args]) == 2
    assert says in capsys.readouterr().err
    assert left_in(tmp_path) == []


def test_a_stats_file_in_a_missing_folder_is_a_clear_error(tmp_path: Path, capsys: Any) -> None:
    stats = tmp_path / "no" / "stats.json"
    assert main(["dedup", str(FIXTURE), "-o", str(tmp_path / "out.jsonl"), "--stats", str(stats), "-q"]) == 2
    assert f"--stats {stats}: no folder" in capsys.readouterr().err


def test_a_missing_input_is_a_clear_error(tmp_path: Path, capsys: Any) -> None:
    assert main(["dedup", str(tmp_path / "absent.jsonl"), "-o", str(tmp_path / "out.jsonl"), "-q"]) == 2
    assert "absent.jsonl" in capsys.readouterr().err
    assert left_in(tmp_path) == []


def interrupt_on_call(number: int, real: Any) -> Any:
    """``real`` until its ``number``-th call, which raises KeyboardInterrupt (a Ctrl-C at a known point)."""
    calls = iter(range(1, 10**9))

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if next(calls) == number:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    return wrapper


@pytest.mark.parametrize(
    "where",
    [
        "parse_record",  # while the stage spools its input
        "write_record",  # while the output is written: the spool is full, the output half-written
    ],
)
def test_ctrl_c_leaves_no_spool_and_no_output(
    where: str, tmp_path: Path, spool: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.setattr(jsonl, where, interrupt_on_call(50, getattr(jsonl, where)))
    out = tmp_path / "out.jsonl"
    assert main(["dedup", str(FIXTURE), "-o", str(out), "--spool-dir", str(spool), "-q"]) == 130
    assert "interrupted" in capsys.readouterr().err
    assert left_in(spool) == [] and left_in(tmp_path) == ["spool"]


def test_ctrl_c_while_writing_to_stdout_still_removes_the_spool(
    spool: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary: Any
) -> None:
    monkeypatch.setattr(jsonl, "write_record", interrupt_on_call(3, jsonl.write_record))
    assert main(["dedup", str(FIXTURE), "--spool-dir", str(spool), "-q"]) == 130
    assert left_in(spool) == []


def test_quiet_prints_nothing_on_stderr(tmp_path: Path, capsys: Any) -> None:
    assert main(["dedup", str(FIXTURE), "-o", str(tmp_path / "o.jsonl"), "-q"]) == 0
    assert capsys.readouterr().err == ""


def records_of(path: Path) -> Iterator[dict[str, Any]]:
    with open(path, "rb") as lines:
        yield from jsonl.read_records(lines, source=str(path))


def test_the_output_of_a_stdin_run_reads_back_as_a_corpus(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(FIXTURE.read_bytes())))
    out = tmp_path / "o.jsonl"
    assert main(["dedup", "-", "-o", str(out), "-q"]) == 0
    ids = [r["id"] for r in records_of(out)]
    assert len(ids) == 179 and ids == sorted(ids)  # the fixture's kept documents, in input order


def spool_while_writing(monkeypatch: pytest.MonkeyPatch, spool: Path) -> list[list[str]]:
    """What the stage's spool folder holds when the command writes its first record."""
    seen: list[list[str]] = []
    real = jsonl.write_record

    def looking(out: Any, record: dict[str, Any]) -> None:
        if not seen:
            (run,) = spool.iterdir()  # the command's own folder for this run, named by its process
            (folder,) = run.iterdir()  # the stage's spool in it
            seen.append(left_in(folder))
        real(out, record)

    monkeypatch.setattr(jsonl, "write_record", looking)
    return seen


@pytest.mark.parametrize(
    ("flags", "spool_files"),
    [
        ([], "docs.jsonl and the marks' sorted runs"),  # the external sort (impl_external/)
        (["--reference"], "docs.jsonl and digests.bin"),  # the reference, its marks in memory
    ],
)
def test_the_external_sort_runs_by_default_and_the_reference_one_flag_away(
    flags: list[str], spool_files: str, tmp_path: Path, spool: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = spool_while_writing(monkeypatch, spool)
    out, stats = tmp_path / "out.jsonl", tmp_path / "stats.json"
    argv = ["dedup", str(FIXTURE), "-o", str(out), "--spool-dir", str(spool), "--stats", str(stats), "-q", *flags]
    assert main(argv) == 0
    assert out.read_bytes() == expected_output(FIXTURE.read_bytes().splitlines(keepends=True))
    assert json.loads(stats.read_text())["duplicate_paragraphs"] > 0
    (files,) = seen
    if flags:
        assert files == ["digests.bin", "docs.jsonl"], spool_files
    else:
        assert files[0] == "docs.jsonl" and files[1:] and all(f.startswith("run-") for f in files[1:]), files
    assert left_in(spool) == []
