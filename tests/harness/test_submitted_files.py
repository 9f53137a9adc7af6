"""A submission is regular files and folders: anything else anywhere below its path is refused, named, never opened.

Each shape an unpacked upload can take (``zip -y`` and tar restore links and FIFOs) is made here by
trusted code, and ``prepare`` is asked to grade it. A FIFO would block a read for ever: those tests
run ``prepare`` on a thread and fail if it has not returned by a deadline, instead of hanging.
"""

from __future__ import annotations

import os
import shutil
import stat
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from dedup_harness.core.paths import IMPL_ROOT
from dedup_harness.grade import submitted_files
from dedup_harness.grade.submission import Submission, SubmissionError, prepare
from dedup_harness.grade.submitted_files import MAX_ENTRIES
from machine_setups import public_folder
from tree_shapes import NOBODY, as_user
from upload_shapes import HARD_LINK_NOTE, REFUSED, SHAPES, refusal

REFERENCE = (IMPL_ROOT / "corpus" / "dedup.py").read_bytes()
DEADLINE = 30.0  # seconds prepare may take on a tree of a few files: far past what it needs
ONLY = "a submission is regular files and folders only"


def prepared(path: Path, scratch: Path) -> Submission | SubmissionError:
    """``prepare(path)`` on a thread: what it returned or raised; a failure if it is still running at the deadline."""
    found: list[Submission | SubmissionError] = []

    def run() -> None:
        try:
            found.append(prepare(path, scratch))
        except SubmissionError as error:
            found.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(DEADLINE)
    assert not thread.is_alive(), f"prepare({path}) still runs after {DEADLINE:g} s: it waits on a file"
    return found[0]


def refused(path: Path, scratch: Path) -> str:
    got = prepared(path, scratch)
    assert isinstance(got, SubmissionError), f"{path} was prepared: {got}"
    return str(got)


def classmate(tmp_path: Path) -> Path:
    """A classmate's folder holding the reference: what a link would reach."""
    folder = tmp_path / "classmate"
    folder.mkdir()
    (folder / "dedup.py").write_bytes(REFERENCE)
    return folder


EXTRA_SHAPES: dict[str, tuple[Callable[[Path, Path], None], str]] = {
    # beside upload_shapes' attacks: (make it in the student's folder, given the classmate's; the words naming it)
    "a dangling link beside a dedup.py": (
        lambda me, other: ((me / "dedup.py").write_bytes(REFERENCE), (me / "guess").symlink_to(me / "nowhere")),
        "guess (a symbolic link)",
    ),
    "a link two folders down": (
        lambda me, other: ((me / "a" / "b").mkdir(parents=True), (me / "a" / "b" / "c").symlink_to(other)),
        "a/b/c (a symbolic link)",
    ),
    "a FIFO in a project folder": (
        lambda me, other: ((me / "project").mkdir(), os.mkfifo(me / "project" / "dedup.py")),
        "project/dedup.py (a FIFO)",
    ),
}
REFUSED_SHAPES = sorted(name for name, shape in SHAPES.items() if shape.named)


class TestRefused:
    @pytest.mark.parametrize("name", REFUSED_SHAPES)
    def test_each_upload_shape_is_refused_by_name(self, tmp_path: Path, name: str) -> None:
        if name == "device" and os.geteuid() != 0:
            pytest.skip("only root can make a device node")
        me = tmp_path / "me"
        me.mkdir()
        SHAPES[name].make(me, classmate(tmp_path))
        assert refused(me, tmp_path / "scratch") == refusal(me, SHAPES[name])

    @pytest.mark.parametrize("shape", sorted(EXTRA_SHAPES))
    def test_anything_but_regular_files_and_folders_below_the_path_is_refused_by_name(
        self, tmp_path: Path, shape: str
    ) -> None:
        me = tmp_path / "me"
        me.mkdir()
        make, words = EXTRA_SHAPES[shape]
        make(me, classmate(tmp_path))
        message = refused(me, tmp_path / "scratch")
        assert f"{me}: holds {words}; {ONLY}" in message, message

    def test_several_refused_entries_are_named_up_to_five_and_counted(self, tmp_path: Path) -> None:
        me = tmp_path / "me"
        me.mkdir()
        for n in range(7):
            (me / f"guess{n}").symlink_to(f"../../guess{n}")
        message = refused(me, tmp_path / "scratch")
        assert "guess0 (a symbolic link), guess1" in message and "guess4 (a symbolic link), and 2 more" in message

    def test_a_fifo_given_as_the_path_is_refused_without_waiting_on_it(self, tmp_path: Path) -> None:
        fifo = tmp_path / "dedup.py"
        os.mkfifo(fifo)
        assert refused(fifo, tmp_path / "scratch") == f"{fifo}: a FIFO; {REFUSED}"

    def test_a_link_given_as_the_path_is_refused(self, tmp_path: Path) -> None:
        (tmp_path / "link").symlink_to(classmate(tmp_path), target_is_directory=True)
        assert "a symbolic link; submit the file or folder itself" in refused(tmp_path / "link", tmp_path / "s")

    @pytest.mark.skipif(os.geteuid() != 0, reason="only root can make a device node")
    def test_a_device_given_as_the_path_is_refused_and_never_read(self, tmp_path: Path) -> None:
        SHAPES["device"].make(tmp_path, tmp_path)
        device = tmp_path / "dedup.py"
        assert refused(device, tmp_path / "scratch") == f"{device}: a device; {REFUSED}"

    def test_a_folder_of_more_entries_than_the_walk_looks_at_is_refused(self, tmp_path: Path) -> None:
        me = tmp_path / "me"
        me.mkdir()
        (me / "dedup.py").write_bytes(REFERENCE)
        for n in range(MAX_ENTRIES):
            (me / f"f{n}").touch()
        assert f"more than {MAX_ENTRIES:,} files and folders" in refused(me, tmp_path / "scratch")

    def test_a_folder_the_grader_cannot_read_is_refused_and_left_as_it_was(self) -> None:
        """As a grader that is not root (root reads a folder of any mode: the test drops to nobody)."""
        base = public_folder("dedup-harness-locked-")
        try:
            me = base / "me"
            (me / "locked").mkdir(parents=True)
            (me / "dedup.py").write_bytes(REFERENCE)
            (me / "locked").chmod(0)
            if os.geteuid() == 0:
                for path in (me, me / "locked", me / "dedup.py"):
                    os.chown(path, NOBODY, NOBODY)
                message = as_user(NOBODY, lambda: _find_refusal(me))
            else:
                message = _find_refusal(me)
            assert f"{me}: holds locked (cannot be read: Permission denied)" in message, message
            assert stat.S_IMODE((me / "locked").stat().st_mode) == 0
        finally:
            shutil.rmtree(base, ignore_errors=True)


def _find_refusal(path: Path) -> str:
    try:
        submitted_files.find(path)
    except SubmissionError as error:
        return str(error)
    return "found"


class TestRead:
    def test_a_folder_of_regular_files_is_prepared_from_its_dedup_py(self, tmp_path: Path) -> None:
        me = tmp_path / "me"
        (me / "notes").mkdir(parents=True)
        (me / "notes" / "README").write_text("mine", encoding="utf-8")
        (me / "dedup.py").write_bytes(REFERENCE)
        got = prepared(me, tmp_path / "scratch")
        assert isinstance(got, Submission) and got.problems == [] and got.notes == []
        assert (got.root / "corpus" / "dedup.py").read_bytes() == REFERENCE

    def test_a_hard_link_is_noted_for_staff(self, tmp_path: Path) -> None:
        me = tmp_path / "me"
        me.mkdir()
        SHAPES["hard_link"].make(me, classmate(tmp_path))
        got = prepared(me, tmp_path / "scratch")
        assert isinstance(got, Submission)
        assert [note.message for note in got.notes] == [HARD_LINK_NOTE]
