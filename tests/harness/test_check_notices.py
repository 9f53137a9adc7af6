"""What grade refuses, noticed in check's own process: by grade's rules, only of the student's code, refusing nothing.

The snippets here are our own, compiled under a student's file name so that their frames count as
the student's; each does its thing harmlessly (a socket never connected, a folder made and removed,
a signal 0 to a process that does not exist). The refused samples themselves run through ``check``
only as the non-root test user (``test_check_predicts_grade.py``).
"""

from __future__ import annotations

import multiprocessing.util
import os
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dedup_harness.check import noticed
from dedup_harness.check.noticed import IMPORT, Noticed, Noticer
from dedup_harness.check.plugin import REFUSED_IMPORT, refusal
from dedup_harness.check.run import Checked
from dedup_harness.core.outcome_recorder import crash_site
from dedup_harness.grade.reports.model import GradeReport, Status
from dedup_harness.grade.scoring import ZERO
from dedup_harness.grade.worker.categories import FILES, NETWORK, PROCESSES, SHARED_MEMORY, SIGNALS

SNIPPETS = {
    NETWORK: "def run(tmp):\n    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).close()\n",
    FILES: "def run(tmp):\n    os.rmdir(tempfile.mkdtemp(dir=tmp))\n",
    SIGNALS: "def run(tmp):\n    try:\n        os.kill(2**22 + 12345, 0)\n    except OSError:\n        pass\n",
    # CPython raises no audit event for these two; check's wrappers raise one
    PROCESSES: "def run(tmp):\n    for fd in os.pipe():\n        os.close(fd)\n",
    **(
        {SHARED_MEMORY: "def run(tmp):\n    os.close(os.memfd_create('spool'))\n"}
        if hasattr(os, "memfd_create")
        else {}
    ),
}


@pytest.fixture
def recorder(tmp_path: Path) -> Iterator[Noticer]:
    """A recorder switched on for a student's file in ``tmp_path/root``, whose stage folder is ``tmp_path/stage``."""
    (tmp_path / "stage").mkdir()
    files = [tmp_path / "root" / "corpus" / "dedup.py"]
    made = noticed.start(Noticer(files, [str(tmp_path / "stage")], [str(tmp_path / "root")]))
    yield made
    made.on = False


def students(tmp_path: Path, snippet: str) -> Any:
    """``run`` of ``snippet``, compiled as the student's dedup.py (our own code, benign)."""
    namespace: dict[str, Any] = {"os": os, "socket": socket, "tempfile": tempfile, "multiprocessing": multiprocessing}
    exec(compile(snippet, str(tmp_path / "root" / "corpus" / "dedup.py"), "exec"), namespace)
    return namespace["run"]


@pytest.mark.parametrize("category", list(SNIPPETS))
def test_what_the_students_code_does_is_noticed_with_its_rules_category(
    recorder: Noticer, tmp_path: Path, category: str
) -> None:
    recorder.check = "test_fixture_duplicate_counts"
    (tmp_path / "elsewhere").mkdir()
    students(tmp_path, SNIPPETS[category])(tmp_path / "elsewhere")
    [found] = recorder.noticed
    assert (found.check, found.category) == ("test_fixture_duplicate_counts", category)
    assert found.site.startswith("dedup.py line ") and found.site.endswith(", in run")


def test_a_process_multiprocessing_spawns_is_noticed_too(recorder: Noticer, tmp_path: Path) -> None:
    """spawn and forkserver (macOS's default start) go through util.spawnv_passfds, which CPython raises no event
    for: check raises os.posix_spawn's there. Here it starts /bin/true, as a pool would start its worker."""
    recorder.check = "test_fixture_duplicate_counts"
    run = students(
        tmp_path, "def run(tmp):\n    return multiprocessing.util.spawnv_passfds(b'/bin/true', [b'true'], ())\n"
    )
    os.waitpid(run(tmp_path), 0)
    [found] = recorder.noticed
    assert (found.category, found.note) == (PROCESSES, "tried to start a process (os.posix_spawn)")


def test_the_same_in_the_harnesss_own_code_is_not_the_students(recorder: Noticer, tmp_path: Path) -> None:
    recorder.check = "test_fixture_duplicate_counts"
    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).close()
    os.rmdir(tempfile.mkdtemp(dir=tmp_path))
    assert recorder.noticed == []


def test_the_stages_own_folders_are_allowed(recorder: Noticer, tmp_path: Path) -> None:
    recorder.check = "test_the_spool_is_removed"
    students(tmp_path, SNIPPETS[FILES])(tmp_path / "stage")
    assert recorder.noticed == []


def test_module_level_code_is_noticed_at_import_and_counts_in_every_check(recorder: Noticer, tmp_path: Path) -> None:
    recorder.check = "test_stats_name_every_key"
    namespace: dict[str, Any] = {"socket": socket}
    at_import = "socket.socket(socket.AF_INET, socket.SOCK_DGRAM).close()\n"
    exec(compile(at_import, str(tmp_path / "root" / "corpus" / "dedup.py"), "exec"), namespace)
    assert [n.check for n in recorder.noticed] == [IMPORT]
    assert recorder.of("test_hand_example_three_documents") == recorder.noticed


def test_an_import_counts_in_a_check_and_not_at_import(recorder: Noticer, tmp_path: Path) -> None:
    """Importing a pool's machinery uses nothing yet (``ProcessPoolExecutor`` imports the pipes' module): grade
    refuses nothing then. A check that imports it is about to make a pool, queue or lock. (The import event is
    raised as CPython raises it, the module being imported already.)"""
    recorder.check = "test_stats_name_every_key"
    raised = "sys.audit('import', 'multiprocessing.connection', None, [], [], [])\n"
    exec(compile(f"import sys\n{raised}", str(tmp_path / "root" / "corpus" / "dedup.py"), "exec"), {})
    assert recorder.noticed == []
    run = students(tmp_path, f"def run(tmp):\n    import sys\n    {raised}")
    run(tmp_path)
    assert [(n.check, n.category) for n in recorder.noticed] == [("test_stats_name_every_key", PROCESSES)]


def test_ctypes_is_said_to_be_beyond_checks_view(recorder: Noticer, tmp_path: Path) -> None:
    """What a call through ctypes does only grade's kernel filter sees: check keeps where it happened, first."""
    recorder.check = "test_fixture_duplicate_counts"
    students(tmp_path, "import ctypes\ndef run(tmp):\n    return ctypes.CDLL(None).getpid()\n")(tmp_path)
    assert recorder.noticed == []
    assert [site.split(" line ")[0] for site in recorder.unforeseen] == ["dedup.py"]
    full = GradeReport("dedup.py", Status.GRADED, ZERO + 14, ZERO + 14, [])
    assert Checked(full, [], [], False, recorder.unforeseen).exit_status() == 1


def test_nothing_is_refused_and_the_first_of_each_kind_in_a_check_is_kept(recorder: Noticer, tmp_path: Path) -> None:
    recorder.check = "test_fixture_duplicate_counts"
    run = students(tmp_path, SNIPPETS[NETWORK])
    run(tmp_path)
    run(tmp_path)  # it ran: nothing was refused
    assert len(recorder.noticed) == 1


def test_a_signal_in_a_check_that_started_processes_is_not_said() -> None:
    made = Noticer([], [], [])
    made.noticed = [
        Noticed("test_x", PROCESSES, "tried to start a process (os.fork)", "dedup.py line 1, in f"),
        Noticed("test_x", SIGNALS, "tried to send signal 15 to other processes", "dedup.py line 2, in f"),
        Noticed("test_y", SIGNALS, "tried to send signal 9 to other processes", "dedup.py line 3, in g"),
    ]
    assert [n.category for n in made.of("test_x")] == [PROCESSES]
    assert [n.category for n in made.of("test_y")] == [SIGNALS]


def test_a_check_ends_as_grades_refusal_would_with_the_line_of_it() -> None:
    error = refusal(Noticed("test_x", FILES, "tried to make a folder in /tmp", "dedup.py line 67, in dedup"))
    assert isinstance(error, PermissionError) and str(error).endswith("your code tried to make a folder in /tmp")
    assert crash_site(error) == "dedup.py line 67, in dedup"


def _report(score: int) -> GradeReport:
    return GradeReport("dedup.py", Status.GRADED, ZERO + score, ZERO + 14, [])


@pytest.mark.parametrize(
    ("score", "seen", "imports", "status"),
    [(14, [], [], 0), (13, [], [], 1), (14, ["x"], [], 1), (14, [], ["dedup.py line 3 imports numpy"], 1)],
)
def test_the_exit_status_is_zero_only_when_grade_would_give_full_marks(
    score: int, seen: list[str], imports: list[str], status: int
) -> None:
    found = [Noticed("test_x", NETWORK, note, "dedup.py line 1, in f") for note in seen]
    assert Checked(_report(score), found, imports, True).exit_status() == status
    assert Checked(GradeReport("d", Status.HARNESS_ERROR, ZERO, ZERO, []), [], [], True).exit_status() == 2


def test_a_refused_import_is_a_problem_of_its_own_kind() -> None:
    assert REFUSED_IMPORT != "import"


WAYS_OUT = {
    "a write through a folder's descriptor": (
        "def run(tmp):\n    fd = os.open(tmp, os.O_RDONLY)\n    try:\n"
        "        os.close(os.open('copy.jsonl', os.O_WRONLY | os.O_CREAT, dir_fd=fd))\n"
        "    finally:\n        os.close(fd)\n",
        FILES,
    ),
    "a process through _posixsubprocess": (
        "def run(tmp):\n    import _posixsubprocess\n    try:\n        _posixsubprocess.fork_exec(None)\n"
        "    except TypeError:\n        pass\n",
        PROCESSES,
    ),
    "a socket made from _socket": ("def run(tmp):\n    import _socket\n    _socket.socket().close()\n", NETWORK),
}


@pytest.mark.parametrize("way", list(WAYS_OUT))
def test_the_ways_out_cpython_audits_poorly_are_noticed_too(recorder: Noticer, tmp_path: Path, way: str) -> None:
    """What grade's worker refuses, however it is reached: a descriptor of a folder outside the stage's (judged by
    that folder, not by the name beside it), ``_posixsubprocess.fork_exec`` called directly, ``_socket``."""
    snippet, category = WAYS_OUT[way]
    recorder.check = "test_fixture_duplicate_counts"
    (tmp_path / "elsewhere").mkdir()
    students(tmp_path, snippet)(tmp_path / "elsewhere")
    assert [n.category for n in recorder.noticed] == [category]


def test_a_descriptor_of_the_stages_own_folder_is_allowed(recorder: Noticer, tmp_path: Path) -> None:
    recorder.check = "test_the_spool_is_removed"
    (tmp_path / "stage" / "spool").mkdir()
    students(tmp_path, WAYS_OUT["a write through a folder's descriptor"][0])(tmp_path / "stage" / "spool")
    assert recorder.noticed == [] and (tmp_path / "stage" / "spool" / "copy.jsonl").is_file()
