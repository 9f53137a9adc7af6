"""What a stage left where it may write besides its spool_dir: new or changed entries, by name, the spool aside."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from dedup_harness.core.removal import DEEP, snapshot
from dedup_harness.core.write_watch import TempFolder, WatchedFolders
from tree_shapes import chain, fast_folder


def test_a_new_file_a_changed_one_and_a_new_folder_are_left_and_the_spool_and_a_removed_file_are_not(
    tmp_path: Path,
) -> None:
    (tmp_path / "kept").write_text("before", encoding="utf-8")
    (tmp_path / "same").write_text("untouched", encoding="utf-8")
    (tmp_path / "gone").write_text("removed", encoding="utf-8")
    spool = tmp_path / "spool"
    spool.mkdir()
    with WatchedFolders({tmp_path: "the folder"}) as watch:
        (tmp_path / "kept").write_text("after, longer", encoding="utf-8")
        (tmp_path / "gone").unlink()
        (tmp_path / "copy").mkdir()
        (tmp_path / "copy" / "docs.jsonl").write_text("{}", encoding="utf-8")
        (spool / "judged on its own").write_text("", encoding="utf-8")
    assert watch.left(spool) == [
        "copy (in the folder)",
        "copy/docs.jsonl (in the folder)",
        "kept (in the folder)",
    ]


def test_a_file_written_over_in_place_with_its_size_and_times_set_back_is_still_changed(tmp_path: Path) -> None:
    """Its change time moves, and no stage can set that back."""
    held = tmp_path / "held"
    held.write_bytes(b"x" * 100)
    before = os.stat(held)
    with WatchedFolders({tmp_path: "the folder"}) as watch:
        with open(held, "r+b") as file:
            file.write(b"y" * 100)
        os.utime(held, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert watch.left(tmp_path / "no spool") == ["held (in the folder)"]


def test_in_process_tempfile_picks_a_fresh_folder_for_the_block_and_gets_its_own_back(tmp_path: Path) -> None:
    earlier = tempfile.tempdir
    with TempFolder(tmp_path) as watch:
        made = tempfile.mkdtemp(prefix="kept-")
        assert Path(made).parent.parent == tmp_path
    assert tempfile.tempdir == earlier
    assert [line.split(" (in ")[1] for line in watch.left(tmp_path / "spool")] == ["the temp folder tempfile picks)"]


def test_past_its_limit_a_snapshot_says_it_was_cut_and_the_cut_counts_as_left(tmp_path: Path) -> None:
    for n in range(5):
        (tmp_path / f"f{n}").touch()
    assert "..." in snapshot(tmp_path, limit=3) and len(snapshot(tmp_path, limit=3)) == 4
    with WatchedFolders({tmp_path: "the folder"}, limit=3) as watch:
        pass
    assert watch.left(tmp_path / "spool") == []  # cut alike before and after: nothing new
    with WatchedFolders({tmp_path: "the folder"}, limit=10) as watch:
        for n in range(5, 12):
            (tmp_path / f"f{n}").touch()
    assert "more than 10 entries in the folder" in watch.left(tmp_path / "spool")


def test_a_deep_chain_costs_a_snapshot_bounded_keys_and_a_change_at_its_bottom_is_still_seen(tmp_path: Path) -> None:
    """A chain of 5,000 folders would key its last entry by 10,000 characters, and the chain by 25 million."""
    with fast_folder(tmp_path) as base:
        chain(base, 5_000)
        with WatchedFolders({base: "the folder"}) as watch:
            fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY)
            for _ in range(4_000):  # one level at a time: the whole path is longer than the kernel takes
                inner = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
                os.close(fd)
                fd = inner
            with os.fdopen(os.open("copy", os.O_CREAT | os.O_WRONLY, dir_fd=fd), "wb") as copy:
                copy.write(b"{}")
            os.close(fd)
            base.joinpath(*["d"] * 40, "near the top").write_text("", encoding="utf-8")
        keys = watch.after[base]
        assert len(keys) == 5_002 and max(map(len, keys)) <= DEEP + 40
        left = watch.left(base / "no spool")
    assert left[1] == f"{'d/' * 40}near the top (in the folder)"
    assert len(left) == 2 and left[0].startswith("d/d/") and left[0].endswith("/copy (in the folder)"), left
