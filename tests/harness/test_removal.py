"""core.removal: any tree a submission can shape is removed, measured and listed; nothing outside it is touched."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import textwrap
import tracemalloc
from pathlib import Path

import pytest

from dedup_harness.core import removal, tree_walk
from tree_shapes import NOBODY, as_user, chain, fast_folder, give, odd_entries, tree_size

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="acting as another user needs root")


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    """A folder outside every tree under test, which symlinks in the trees point at."""
    folder = tmp_path / "victim"
    folder.mkdir()
    (folder / "keep.txt").write_text("still here\n", encoding="utf-8")
    return folder


def assert_untouched(victim: Path) -> None:
    assert (victim / "keep.txt").read_text(encoding="utf-8") == "still here\n"


class TestRemoval:
    def test_a_chain_of_100000_nested_folders_is_removed(self, tmp_path: Path) -> None:
        with fast_folder(tmp_path) as base:
            top = base / "top"
            top.mkdir()
            chain(top, 100_000)
            left = removal.remove_tree(top)
            assert not left, left.line()
            assert not top.exists()

    def test_a_chain_costs_the_walk_memory_for_one_name_a_level(self, tmp_path: Path) -> None:
        """A path kept for every level would cost the square of the depth: here 400 MB, at 100,000 levels 10 GB."""
        with fast_folder(tmp_path) as base:
            top = base / "top"
            top.mkdir()
            chain(top, 20_000)
            tracemalloc.start()
            try:
                left = removal.remove_tree(top)
                _, peak = tracemalloc.get_traced_memory()
            finally:
                tracemalloc.stop()
            assert not left and not top.exists(), left.line()
            assert peak < 20 << 20, f"removing the chain took {peak >> 20} MiB"

    def test_200000_files_in_one_folder_are_removed(self, tmp_path: Path) -> None:
        with fast_folder(tmp_path) as base:
            top = base / "top"
            top.mkdir()
            fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
            try:
                for n in range(200_000):
                    os.close(os.open(f"f{n}", os.O_CREAT | os.O_WRONLY, dir_fd=fd))
            finally:
                os.close(fd)
            assert not removal.remove_tree(top)
            assert not top.exists()

    def test_odd_names_fifos_sockets_links_and_locked_folders_go_and_nothing_outside(
        self, tmp_path: Path, victim: Path
    ) -> None:
        top = tmp_path / "top"
        top.mkdir()
        odd_entries(top, victim)
        assert tree_size(top) > 20
        assert not removal.remove_tree(top)
        assert not top.exists()
        assert_untouched(victim)

    def test_a_symlink_given_as_the_tree_is_unlinked_not_followed(self, tmp_path: Path, victim: Path) -> None:
        link = tmp_path / "link"
        link.symlink_to(victim)
        assert not removal.remove_tree(link)
        assert not link.is_symlink()
        assert_untouched(victim)

    def test_what_does_not_exist_is_removed_already_and_a_file_is_removed(self, tmp_path: Path) -> None:
        assert not removal.remove_tree(tmp_path / "nothing")
        (tmp_path / "file").write_text("x", encoding="utf-8")
        assert not removal.remove_tree(tmp_path / "file")
        assert list(tmp_path.iterdir()) == []

    @needs_root
    def test_root_removes_a_tree_owned_by_a_worker_uid(self, tmp_path: Path, victim: Path) -> None:
        top = tmp_path / "top"
        top.mkdir()
        odd_entries(top, victim)
        chain(top, 50)
        give(top, 1_000_000 + os.getpid())
        assert not removal.remove_tree(top)
        assert not top.exists()
        assert_untouched(victim)

    @needs_root
    def test_a_grader_that_is_not_root_opens_up_the_folders_its_worker_locked(
        self, tmp_path: Path, victim: Path
    ) -> None:
        """The tree is the user's own (a non-root grader's worker runs as the grader): mode 000 is undone, not fatal."""
        with fast_folder(tmp_path) as base:
            top = base / "top"
            top.mkdir()
            odd_entries(top, victim)
            chain(top / "unwritable", 30)
            give(base, NOBODY)
            (top / "unreadable").chmod(0o000)
            left = as_user(NOBODY, lambda: removal.remove_tree(top).line())
            assert left == ""
            assert not top.exists()
        assert_untouched(victim)

    @needs_root
    def test_what_a_grader_that_is_not_root_cannot_remove_is_named_and_the_rest_goes(self, tmp_path: Path) -> None:
        with fast_folder(tmp_path) as base:
            top = base / "top"
            (top / "root's").mkdir(parents=True)
            (top / "root's" / "kept").write_text("x", encoding="utf-8")
            (top / "mine").mkdir()
            (top / "mine" / "new\nline").write_text("x", encoding="utf-8")
            give(top / "mine", NOBODY)
            for folder in (base, top):
                os.chown(folder, NOBODY, NOBODY)
            line = as_user(NOBODY, lambda: removal.remove_tree(top).line())
            assert "\n" not in line and line.startswith(f"could not remove {top}: 1 left")
            assert "root's/kept: Permission denied" in line
            assert sorted(p.name for p in top.iterdir()) == ["root's"]

    @needs_root
    def test_a_mount_inside_the_tree_is_not_entered(self, tmp_path: Path, victim: Path) -> None:
        """The tree holds a bind mount of the victim (in a mount namespace of the child's own): the victim survives."""
        if shutil.which("unshare") is None:
            pytest.skip("unshare (util-linux) is not installed")
        top = tmp_path / "top"
        (top / "mnt").mkdir(parents=True)
        code = textwrap.dedent(
            f"""
            import subprocess, sys
            from dedup_harness.core import removal, tree_walk
            subprocess.run(["mount", "--bind", {str(victim)!r}, {str(top / "mnt")!r}], check=True)
            print(removal.remove_tree({str(top)!r}).line())
            """
        )
        done = subprocess.run(
            ["unshare", "--mount", "--propagation", "private", sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0 and "mount" in done.stderr:
            pytest.skip(f"no mount namespace here: {done.stderr.strip()[-200:]}")
        assert "another file system is mounted there" in done.stdout, done.stdout + done.stderr
        assert_untouched(victim)

    def test_a_tree_moved_under_the_walk_stops_it_instead_of_leading_it_elsewhere(self, tmp_path: Path) -> None:
        (tmp_path / "top" / "a" / "b").mkdir(parents=True)
        (tmp_path / "elsewhere").mkdir()
        parent = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
        walk = tree_walk.Walk.open(str(tmp_path / "top"), parent, "top")
        os.close(parent)
        walk.down("a")
        walk.down("b")
        os.rename(tmp_path / "top" / "a" / "b", tmp_path / "elsewhere" / "b")
        with pytest.raises(tree_walk.Moved):
            walk.up()
        walk.close()


class TestMeasuring:
    def test_a_sparse_file_counts_what_it_holds_not_its_size(self, tmp_path: Path) -> None:
        top = tmp_path / "top"
        top.mkdir()
        with open(top / "sparse", "wb") as file:
            file.truncate(1 << 30)
        (top / "dense").write_bytes(os.urandom(1 << 20))
        used = removal.allocated_bytes(top)
        assert 1 << 20 <= used < 4 << 20

    def test_a_deep_chain_is_measured_and_listed_without_recursion(self, tmp_path: Path) -> None:
        with fast_folder(tmp_path) as base:
            chain(base, 20_000)
            fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY)
            with os.fdopen(os.open("d/" * 5 + "data", os.O_CREAT | os.O_WRONLY, dir_fd=fd), "wb") as data:
                data.write(os.urandom(1 << 16))
            os.close(fd)
            assert removal.allocated_bytes(base) >= 1 << 16
            assert removal.entries_under(base, limit=4) == ["d", "d/d", "d/d/d", "d/d/d/d"]

    def test_the_listing_names_odd_entries_sorted_and_never_follows_a_link(self, tmp_path: Path, victim: Path) -> None:
        top = tmp_path / "top"
        top.mkdir()
        odd_entries(top, victim)
        listed = removal.entries_under(top, limit=1000)
        first_level = sorted(os.listdir(top))
        assert listed[: len(first_level)] == [removal.escaped(name) for name in first_level]
        assert "new\\nline/file" in listed and "not-utf8-\\xff\\xfe/file" in listed
        assert "out" in listed and "out/keep.txt" not in listed
        assert "unreadable/inner/file" in listed
        assert removal.entries_under(tmp_path / "nothing") == []

    def test_printable_keeps_a_path_on_one_short_line(self) -> None:
        assert removal.printable(b"a\nb\xff") == "a\\nb\\xff"
        assert len(removal.printable("d/" * 10_000)) <= removal.SHOWN_CHARACTERS + 3


class TestWithoutOPath:
    """On macOS (no O_PATH) and where /proc is hidden, a locked folder still gets its owner's rights back, and a
    symlink to a folder is never what is changed."""

    def test_a_locked_folder_is_opened_up_and_removed(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(tree_walk, "O_PATH", 0)
        top = tmp_path / "top"
        (top / "locked" / "inner").mkdir(parents=True)
        (top / "locked" / "inner" / "f").write_text("x", encoding="utf-8")
        (top / "locked").chmod(0o000)
        assert removal.remove_tree(top).line() == ""
        assert not top.exists()

    def test_a_link_in_place_of_a_folder_is_refused_not_followed(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr(tree_walk, "O_PATH", 0)
        target = tmp_path / "target"
        target.mkdir(mode=0o700)
        (tmp_path / "link").symlink_to(target)
        parent = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
        try:
            with pytest.raises(NotADirectoryError):
                tree_walk._give_owner_rights(parent, "link")
        finally:
            os.close(parent)
        assert stat.S_IMODE(target.stat().st_mode) == 0o700
