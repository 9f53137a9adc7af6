"""Landlock's rules as the worker builds them: rights per ABI, a missing kernel, hidden paths, the report.

In-process and without confining anything; ``test_confinement.py`` confines child processes for real.
"""

from __future__ import annotations

import errno
import json
import os
import threading
from pathlib import Path

import pytest

from dedup_harness.grade.worker import confine, landlock, seccomp
from dedup_harness.grade.worker.syscalls import ConfinementError


@pytest.mark.parametrize(
    ("abi", "rights"), [(1, 0x1FFF), (2, 0x3FFF), (3, 0x7FFF), (4, 0x7FFF), (5, 0xFFFF), (6, 0xFFFF), (7, 0xFFFF)]
)
def test_each_abi_handles_exactly_the_file_rights_it_knows(abi: int, rights: int) -> None:
    assert landlock.handled_fs_rights(abi) == rights


def test_tcp_rights_come_with_abi_4_scopes_with_abi_6_and_the_struct_grows_with_them() -> None:
    assert [landlock.handled_net_rights(a) for a in (3, 4)] == [0, 3]
    assert [landlock.handled_scopes(a) for a in (5, 6, 7)] == [0, 3, 3]
    assert [landlock.ruleset_attr_size(a) for a in (1, 3, 4, 5, 6, 7)] == [8, 8, 16, 16, 24, 24]


@pytest.mark.parametrize("err", [errno.ENOSYS, errno.EOPNOTSUPP, errno.EPERM], ids=["ENOSYS", "EOPNOTSUPP", "EPERM"])
def test_a_missing_disabled_or_blocked_landlock_reads_as_abi_0(monkeypatch: pytest.MonkeyPatch, err: int) -> None:
    def fail(*_: int) -> int:
        raise OSError(err, os.strerror(err))

    monkeypatch.setattr(landlock, "syscall", fail)
    assert landlock.abi() == 0


def test_an_unexpected_errno_from_the_probe_is_raised_not_read_as_no_landlock(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*_: int) -> int:
        raise OSError(errno.EINVAL, "bad")

    monkeypatch.setattr(landlock, "syscall", fail)
    with pytest.raises(OSError):
        landlock.abi()


def test_a_hidden_folder_leaves_its_parent_listable_and_its_siblings_readable(tmp_path: Path) -> None:
    (tmp_path / "lib" / "site-packages" / "harness").mkdir(parents=True)
    (tmp_path / "lib" / "site-packages" / "other").mkdir()
    (tmp_path / "lib" / "json").mkdir()
    (tmp_path / "lib" / "os.py").write_text("", encoding="utf-8")
    hidden = [str(tmp_path / "lib" / "site-packages" / "harness")]
    listable, readable = landlock.around_hidden(str(tmp_path / "lib"), hidden)
    assert listable == [str(tmp_path / "lib"), str(tmp_path / "lib" / "site-packages")]
    assert readable == [str(tmp_path / "lib" / p) for p in ("json", "os.py", "site-packages/other")]


def test_a_path_inside_a_hidden_one_is_left_out_and_one_beside_it_is_kept_whole(tmp_path: Path) -> None:
    assert landlock.around_hidden(str(tmp_path / "a" / "b"), [str(tmp_path / "a")]) == ([], [])
    assert landlock.around_hidden(str(tmp_path / "ab"), [str(tmp_path / "a")]) == ([], [str(tmp_path / "ab")])


def test_the_interpreter_paths_hold_the_standard_library_and_the_loader_and_no_relative_entry() -> None:
    read_only, read_write = confine.interpreter_paths()
    assert os.path.dirname(os.__file__) in read_only and "/etc/ld.so.cache" in read_only
    assert read_write == ["/dev/null"] and "" not in read_only


def test_a_kernel_without_landlock_gets_seccomp_alone_and_the_report_says_so() -> None:
    report = confine._report(0, None, 0, 0, True, "installed", seccomp.SignalPolicy(5, 5))
    assert report.protections == frozenset({"tcp", "signals", "abstract_unix", "seccomp"})
    assert report.words["files"] == "NOT restricted (Landlock unavailable)"
    assert "seccomp" in report.words["tcp"] and "own process group" in report.words["signals"]
    assert report.lines()[0] == "Landlock ABI: not available"
    json.dumps(report.as_dict())


def test_an_unknown_architecture_gets_no_filter_and_the_words_say_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(confine, "current_arch", lambda: None)
    installed, words = confine._seccomp_layer(True, seccomp.SignalPolicy(1, 1))
    assert not installed and "no syscall table" in words


def test_confinement_refuses_while_another_thread_lives() -> None:
    """Landlock binds only the calling thread: a second one would escape it."""
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        with pytest.raises(ConfinementError, match="before any thread"):
            landlock.require_single_thread()
    finally:
        stop.set()
        other.join()
