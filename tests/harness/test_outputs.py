"""Outputs: checked before the work, written atomically only where that is right, appearing together or not at all."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

# Imported at collection: rich draws from the global random module when its styles are first imported.
import dedup_harness.commands.dedup  # noqa: F401
from dedup_harness.cli import build_parser, main
from dedup_harness.commands import outputs
from dedup_harness.commands import verify as verify_command
from dedup_harness.core import scratch_dirs
from dedup_harness.core.paths import FIXTURE_DIR
from dedup_harness.verify.targets import Layout

FIXTURE = FIXTURE_DIR / "docs.jsonl"


@pytest.fixture
def corpus_out(tmp_path: Path) -> bytes:
    """What ``dedup FIXTURE`` writes, from a plain run into a new file."""
    out = tmp_path / "expected.jsonl"
    assert main(["dedup", str(FIXTURE), "-o", str(out), "-q"]) == 0
    data = out.read_bytes()
    out.unlink()
    return data


def one_line(err: str) -> str:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


@pytest.fixture
def umask() -> Iterator[Callable[[int], None]]:
    saved = os.umask(0o022)
    yield lambda mask: os.umask(mask) and None
    os.umask(saved)


class TestWhereAtomicIsWrong:
    def test_a_device_output_is_written_through_and_stays_a_device(self, tmp_path: Path) -> None:
        null = tmp_path / "null"
        try:
            os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a null device of our own
        except PermissionError:
            pytest.skip("making a device node needs root")
        assert main(["dedup", str(FIXTURE), "-o", str(null), "-q"]) == 0
        assert stat.S_ISCHR(null.lstat().st_mode)
        assert sorted(p.name for p in tmp_path.iterdir()) == ["null"]

    def test_a_fifo_output_is_written_through_to_its_reader(self, tmp_path: Path, corpus_out: bytes) -> None:
        fifo, alias = tmp_path / "pipe", tmp_path / "aside" / "pipe"
        os.mkfifo(fifo)
        alias.parent.mkdir()
        os.link(fifo, alias)  # the same FIFO by another name, whatever becomes of the first
        received: list[bytes] = []
        reader = threading.Thread(target=lambda: received.append(alias.read_bytes()))
        reader.start()
        try:
            assert main(["dedup", str(FIXTURE), "-o", str(fifo), "-q"]) == 0
        finally:
            if not received:  # the command never wrote to the FIFO: let the reader go
                os.close(os.open(alias, os.O_WRONLY | os.O_NONBLOCK))
            reader.join()
        assert received == [corpus_out]
        assert stat.S_ISFIFO(fifo.lstat().st_mode)

    def test_a_symlink_output_stays_a_link_and_the_file_it_points_to_gets_the_corpus(
        self, tmp_path: Path, corpus_out: bytes
    ) -> None:
        target, link = tmp_path / "real.jsonl", tmp_path / "link.jsonl"
        target.write_text("old")
        link.symlink_to(target.name)
        assert main(["dedup", str(FIXTURE), "-o", str(link), "-q"]) == 0
        assert link.is_symlink() and os.readlink(link) == "real.jsonl"
        assert target.read_bytes() == corpus_out
        assert sorted(p.name for p in tmp_path.iterdir()) == ["link.jsonl", "real.jsonl"]

    def test_a_link_to_a_device_is_written_through_and_stays_a_link(self, tmp_path: Path) -> None:
        null, link = tmp_path / "null", tmp_path / "out.jsonl"
        try:
            os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        except PermissionError:
            pytest.skip("making a device node needs root")
        link.symlink_to(null)
        assert main(["dedup", str(FIXTURE), "-o", str(link), "-q"]) == 0
        assert link.is_symlink() and stat.S_ISCHR(null.lstat().st_mode)
        assert sorted(p.name for p in tmp_path.iterdir()) == ["null", "out.jsonl"]

    def test_dev_stdout_is_written_through_to_standard_output(self, corpus_out: bytes) -> None:
        """/dev/stdout is a link to a pipe with no name: it is opened, never replaced."""
        argv = [sys.executable, "-m", "dedup_harness.cli", "dedup", str(FIXTURE), "-o", "/dev/stdout", "-q"]
        done = subprocess.run(argv, capture_output=True)
        assert (done.returncode, done.stderr) == (0, b"")
        assert done.stdout == corpus_out


class TestModes:
    def test_a_new_output_gets_the_mode_the_umask_gives(self, tmp_path: Path, umask: Callable[[int], None]) -> None:
        umask(0o027)
        out, stats = tmp_path / "out.jsonl", tmp_path / "stats.json"
        assert main(["dedup", str(FIXTURE), "-o", str(out), "--stats", str(stats), "-q"]) == 0
        assert stat.S_IMODE(out.stat().st_mode) == 0o640
        assert stat.S_IMODE(stats.stat().st_mode) == 0o640

    def test_a_replaced_output_keeps_its_mode(self, tmp_path: Path, umask: Callable[[int], None]) -> None:
        out = tmp_path / "out.jsonl"
        out.write_text("old")
        out.chmod(0o604)
        assert main(["dedup", str(FIXTURE), "-o", str(out), "-q"]) == 0
        assert stat.S_IMODE(out.stat().st_mode) == 0o604 and out.read_text() != "old"


class TestTogetherOrNotAtAll:
    def test_a_stats_file_in_a_missing_folder_leaves_no_output(self, tmp_path: Path, capsys: Any) -> None:
        out = tmp_path / "out.jsonl"
        argv = ["dedup", str(FIXTURE), "-o", str(out), "--stats", str(tmp_path / "missing" / "dir" / "s.json")]
        assert main([*argv, "-q"]) == 2
        assert "--stats" in one_line(capsys.readouterr().err)
        assert list(tmp_path.iterdir()) == []

    def test_a_failure_after_the_first_rename_removes_what_was_renamed(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
    ) -> None:
        real_replace, calls = os.replace, []

        def second_fails(source: Any, target: Any) -> None:
            calls.append(target)
            if len(calls) == 2:
                raise OSError(28, "No space left on device")
            real_replace(source, target)

        monkeypatch.setattr(os, "replace", second_fails)
        out, stats = tmp_path / "out.jsonl", tmp_path / "stats.json"
        assert main(["dedup", str(FIXTURE), "-o", str(out), "--stats", str(stats), "-q"]) != 0
        assert "No space left on device" in one_line(capsys.readouterr().err)
        assert list(tmp_path.iterdir()) == []

    def test_a_signal_while_the_outputs_are_renamed_waits_until_all_are_in_place(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
    ) -> None:
        real_replace = os.replace

        def signalled_first(source: Any, target: Any) -> None:
            monkeypatch.setattr(os, "replace", real_replace)
            os.kill(os.getpid(), signal.SIGTERM)  # handled between two bytecodes of the renaming
            real_replace(source, target)

        monkeypatch.setattr(os, "replace", signalled_first)
        out, stats = tmp_path / "out.jsonl", tmp_path / "stats.json"
        assert main(["dedup", str(FIXTURE), "-o", str(out), "--stats", str(stats), "-q"]) == 128 + signal.SIGTERM
        assert "interrupted (SIGTERM)" in capsys.readouterr().err
        assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl", "stats.json"]

    def test_a_signal_at_any_line_of_declaring_or_sweeping_leaves_nothing_behind(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
    ) -> None:
        """A signal between making a part file and recording it, while its folder is swept, or in the sweeps that
        begin and end a run: the run exits 128 + N, and its outputs are all there or none is (no part file)."""
        monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "temp"))  # the sweeps' lines: the same every run
        (tmp_path / "temp").mkdir()
        corpus = tmp_path / "in.jsonl"
        corpus.write_text('{"id": "a", "text": "x\\n\\ny"}\n')
        lines = signalled_at_line(corpus, tmp_path / "unsignalled", at=None)
        assert lines > 40  # the declaring and both sweeps were seen, line by line
        for at in range(1, lines + 1):
            folder = tmp_path / f"at-{at}"
            assert signalled_at_line(corpus, folder, at=at) == 128 + signal.SIGTERM, f"line {at}"
            assert "Traceback" not in capsys.readouterr().err, f"line {at}"
            assert sorted(p.name for p in folder.iterdir()) in ([], OUTPUTS), f"a signal at line {at}"
            assert list((tmp_path / "temp").iterdir()) == [], f"a signal at line {at} left scratch"

    def test_two_outputs_naming_one_file_are_refused(self, tmp_path: Path, capsys: Any) -> None:
        same = str(tmp_path / "same.json")
        assert main(["dedup", str(FIXTURE), "-o", same, "--stats", same, "-q"]) == 2
        assert "name the same file" in one_line(capsys.readouterr().err)
        assert list(tmp_path.iterdir()) == []


OUTPUTS = ["out.jsonl", "stats.json"]
# What Outputs does before the work starts, and the sweeps of scratch that begin and end every run.
SIGNALLED_IN = {outputs.__file__: ("file", "folder", "appended"), scratch_dirs.__file__: ("sweep_all",)}
TRACED = (outputs.__file__, scratch_dirs.__file__)


def signalled_at_line(corpus: Path, folder: Path, at: int | None) -> int:
    """Run ``dedup`` into ``folder``, sending SIGTERM at the ``at``-th line run inside ``SIGNALLED_IN``.

    With ``at`` None no signal is sent, and the count of such lines is returned.
    """
    folder.mkdir()
    seen = 0

    def inside(frame: Any) -> bool:
        while frame is not None:
            if frame.f_code.co_name in SIGNALLED_IN.get(frame.f_code.co_filename, ()):
                return True
            frame = frame.f_back
        return False

    def line(frame: Any, event: str, arg: Any) -> Any:
        nonlocal seen
        if event == "line":
            seen += 1
            if seen == at:
                sys.settrace(None)
                os.kill(os.getpid(), signal.SIGTERM)  # handled at the next bytecode, as a real signal is
                return None
        return line

    def call(frame: Any, event: str, arg: Any) -> Any:
        return line if frame.f_code.co_filename in TRACED and inside(frame) else None

    sys.settrace(call)
    try:
        status = main(["dedup", str(corpus), "-o", str(folder / OUTPUTS[0]), "--stats", str(folder / OUTPUTS[1]), "-q"])
    except KeyboardInterrupt as escaped:  # a failure of this test, not the end of the whole session
        raise AssertionError(f"a signal at line {at} escaped main(): {escaped!r}") from None
    finally:
        sys.settrace(None)
    if at is not None:
        return status
    assert status == 0 and sorted(p.name for p in folder.iterdir()) == OUTPUTS
    return seen


def never(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("the work started although an output cannot be written")


@pytest.fixture
def not_a_folder(tmp_path: Path) -> Path:
    """A regular file: nothing can be written 'inside' it."""
    blocker = tmp_path / "blocker"
    blocker.write_text("")
    return blocker


class TestCheckedBeforeTheWork:
    @pytest.mark.parametrize("option", ["--json", "--csv", "--junit", "--gradescope"])
    def test_grade_refuses_an_unwritable_output_before_grading(
        self, option: str, tmp_path: Path, not_a_folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
    ) -> None:
        monkeypatch.setattr("dedup_harness.commands.grade.grade_batch", never)
        (tmp_path / "dedup.py").write_text("")
        assert main(["grade", str(tmp_path / "dedup.py"), option, str(not_a_folder / "out")]) == 2
        assert option in one_line(capsys.readouterr().err)

    def test_grade_does_not_make_a_gradescope_folder_in_a_missing_one(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
    ) -> None:
        monkeypatch.setattr("dedup_harness.commands.grade.grade_batch", never)
        (tmp_path / "dedup.py").write_text("")
        assert main(["grade", str(tmp_path / "dedup.py"), "--gradescope", str(tmp_path / "a" / "b")]) == 2
        assert "--gradescope" in one_line(capsys.readouterr().err)
        assert not (tmp_path / "a").exists()

    @pytest.mark.parametrize("option", ["--json", "--markdown", "--stryker"])
    def test_verify_refuses_an_unwritable_output_before_any_run(
        self, option: str, not_a_folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
    ) -> None:
        monkeypatch.setattr("dedup_harness.commands.verify.verify", never)
        assert main(["verify", option, str(not_a_folder / "out")]) == 2
        assert option in one_line(capsys.readouterr().err)

    def test_verify_refuses_a_kill_matrix_it_could_not_write_before_any_run(
        self, not_a_folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
    ) -> None:
        monkeypatch.setattr("dedup_harness.commands.verify.verify", never)
        args = build_parser().parse_args(["verify", "--write-kill-matrix"])
        assert verify_command.run(args, Layout(mutants_dir=not_a_folder)) == 2
        assert "--write-kill-matrix" in one_line(capsys.readouterr().err)

    def test_mutation_refuses_an_unwritable_output_before_mutmut_runs(
        self, not_a_folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
    ) -> None:
        monkeypatch.setattr("dedup_harness.commands.mutation.measure", never)
        assert main(["mutation", "--json", str(not_a_folder / "out.json")]) == 2
        assert "--json" in one_line(capsys.readouterr().err)

    @pytest.mark.parametrize("option", ["--csv", "--json"])
    def test_merge_refuses_an_unwritable_output_in_one_line(
        self, option: str, tmp_path: Path, not_a_folder: Path, capsys: Any
    ) -> None:
        shard = tmp_path / "s.csv"
        assert main(["merge", str(shard), option, str(not_a_folder / "out")]) == 2
        assert option in one_line(capsys.readouterr().err)

    def test_gradescope_bundle_refuses_a_folder(self, tmp_path: Path, capsys: Any) -> None:
        assert main(["gradescope-bundle", str(tmp_path)]) == 2
        assert "is a folder" in one_line(capsys.readouterr().err)
        assert list(tmp_path.iterdir()) == []

    def test_gradescope_bundle_does_not_make_a_missing_parent_folder(self, tmp_path: Path, capsys: Any) -> None:
        assert main(["gradescope-bundle", str(tmp_path / "missing" / "bundle.zip")]) == 2
        assert "no folder" in one_line(capsys.readouterr().err)
        assert list(tmp_path.iterdir()) == []
