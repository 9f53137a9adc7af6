"""Every attack on the grader, its machine or a classmate, graded in one batch beside the correct sample, in every
tier and setup.

Each would once have cost a correct student or the whole batch: a folder shaped to reach a classmate's marks (links),
to hang the grader or feed it without end (a FIFO, a device), two submissions whose Gradescope folders collide,
sources that break a recursive walk of their syntax tree or the compiler, a correct source in Latin-1, a stage that
stalls the grader's writes, one that prints 400 MB a call; a reader of the classmate graded at the same time
(``classmate_reader``); memory a stage hides from check 14 (``memory_heap_slack`` fills and frees 60 MB at import,
``memory_compressed`` holds the documents compressed, ``memory_outside`` in memory outside the process); a copy of the
input kept outside spool_dir (``spool_copy_kept``); a spool shaped to break cleanup (``tree_planter``: a chain of
1,500 folders made through folder descriptors, locked folders, odd names, a FIFO, a hard link and symlinks out of the
tree, one to a sentinel folder of this test); and files and IPC objects left in every world-writable place
(``leftovers_everywhere``, each named with a token of this batch); and, beside them, honest code the rulebook lets
through (``submissions/ordinary/``: 48 threads, 80 open files, the user's name), which must keep full marks. What the
tier cannot change (``ONCE``: a hard link, the Gradescope folders' names, a correct source deep or in Latin-1) is
graded in one case of each setup rather than in every case. ``grade`` grades them all in one batch with ``--jobs 2``
(two at once) beside the correct sample, with a budget of ``BUDGET`` seconds each and ``--gradescope``, in each case's
setup and tier, with a world-writable temp folder of the test's own outside /tmp (``beside_correct``), so that every
session in it is this batch's. In every case: the grader exits 0, the correct sample and the reference keep full marks
and list no attempt, each attack gets the verdict it earns, nothing is left in the temp folder, in /tmp, in System V
IPC or named with the token anywhere a process may write, the sentinel is untouched, and a later command
(``--version``, which sweeps) works.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import secrets
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from beside_correct import EVERY_CASE, Batch, Maker, grade_with_correct, writes
from dedup_harness.core import scratch_dirs
from dedup_harness.core.checks import CHECKS
from dedup_harness.core.paths import IMPL_ROOT
from dedup_harness.core.procfs import start_ticks
from dedup_harness.grade.reports.names import folders
from dedup_harness.grade.rules import SENTENCES
from dedup_harness.grade.sandbox.users import grader_of
from dedup_harness.grade.worker.categories import SHARED_MEMORY
from grading_support import ORDINARY_DIR, hostile_bytes, hostile_source
from left_behind import ipc_objects, named_with
from machine_setups import TEST_USER, missing_for_setups, public_folder
from upload_shapes import HARD_LINK_NOTE, SHAPES, refusal

BUDGET = 40  # seconds of worker time each: the correct sample needs a few (more in the seccomp tier, where the grader
# decides every file call, on a loaded machine); the stall is stopped by its call's window, well before
FULL_MARKS = ("print_400mb_a_call", "classmate_reader")
NOT_COMPILED = {"deep_sum_3000": "RecursionError", "unary_minus": "MemoryError"}
STALL = "stall_feed"
FORGERIES = ("memory_heap_slack", "memory_compressed", "memory_outside")
SOURCES = [*FULL_MARKS, *NOT_COMPILED, STALL, *FORGERIES, "spool_copy_kept"]
# Decided before any worker starts (a hard link's note, the Gradescope folders' names), or the correct sample's
# stages dressed as source the compiler must take (nested 1,200 deep, a Latin-1 cookie): no tier changes their
# verdict, and each costs a whole grading, so they are graded in the first case of each setup only.
ONCE_FULL_MARKS = ("deep_sum_1200", "latin1_cookie")
ONCE_CASES = [next(case for case in EVERY_CASE if case.setup == setup) for setup in ("root", "user", "container")]
# They come first: pytest before 9.2 matches a module's fixture across two parametrizations by position, and would
# grade a batch twice if the lists differed where they overlap.
CASES = [*ONCE_CASES, *(case for case in EVERY_CASE if case not in ONCE_CASES)]
# Honest code the rulebook lets through: a pool of 48 threads, 80 files open at once, the user's name.
ORDINARY = ("hashes_with_48_threads", "holds_80_files_open", "spool_prefix_from_user_name")
# Two submissions whose Gradescope folders would both be team_7: the first correct, the second refused.
TEAMS = {"team 7": writes(hostile_bytes("latin1_cookie")), "team_7": SHAPES["link_to_classmate"].make}
ONCE = {name: writes(hostile_bytes(name)) for name in ONCE_FULL_MARKS} | {"hard_link": SHAPES["hard_link"].make} | TEAMS
MEMORY_CHECK, SPOOL_CHECK = CHECKS[13], CHECKS[10]


@dataclass
class Graded:
    """A batch, and what was left afterwards: in its temp folder, in /tmp, and named with the token."""

    batch: Batch
    in_temp: list[str]
    in_tmp: list[str]
    named: list[str]  # in the world-writable folders
    ipc: list[str]  # in System V IPC
    sentinel: str  # what the sentinel's file held afterwards


def once_a_setup(test: Callable[..., None]) -> Callable[..., None]:
    """Marks a test of the ``ONCE`` samples: it runs in ``ONCE_CASES`` only."""
    test.once_a_setup = True  # type: ignore[attr-defined]
    return test


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "graded" in metafunc.fixturenames:
        cases = ONCE_CASES if getattr(metafunc.function, "once_a_setup", False) else CASES
        metafunc.parametrize("graded", cases, indirect=True, ids=str, scope="module")


@pytest.fixture(scope="module")
def graded(request: pytest.FixtureRequest) -> Iterator[Graded]:
    reason = missing_for_setups()
    if reason is not None:
        pytest.skip(reason)
    # TMPDIR outside /tmp works too; on a tmpfs where there is one, as the spool planter's tree is quick to make there
    shm = Path("/dev/shm")
    temp = Path(tempfile.mkdtemp(prefix="dedup-harness-attacks-", dir=shm if os.access(shm, os.W_OK) else "/var/tmp"))
    temp.chmod(0o1777)
    sentinel = public_folder("dedup-harness-sentinel-")
    (sentinel / "keep.txt").write_text("still here\n", encoding="utf-8")
    nested = public_folder("dedup-harness-nested-")
    (nested / "open").mkdir()
    (nested / "open").chmod(0o1777)  # world-writable, below a folder that is not: /tmp's own are searched too
    token = secrets.token_hex(8)
    started = time.time()
    hostiles: dict[str, Maker] = {name: writes(hostile_bytes(name)) for name in SOURCES}
    hostiles |= {name: writes(hostile_bytes(name, ORDINARY_DIR)) for name in ORDINARY}
    hostiles["leftovers_everywhere"] = writes(leaving(token, nested / "open"))
    hostiles["tree_planter"] = writes(
        hostile_bytes("tree_planter").replace(b'"/nonexistent"', repr(str(sentinel)).encode())
    )
    hostiles["reference"] = writes((IMPL_ROOT / "corpus" / "dedup.py").read_bytes())
    hostiles |= {name: shape.make for name, shape in SHAPES.items() if name not in ONCE}
    hostiles |= ONCE if request.param in ONCE_CASES else {}
    try:
        batch = grade_with_correct(
            request.param, request, hostiles, temp, options=["--budget", str(BUDGET)], gradescope=True
        )
        in_tmp = left_in_tmp(started, request.param.setup)
        kept = (sentinel / "keep.txt").read_text(encoding="utf-8") if (sentinel / "keep.txt").exists() else ""
        yield Graded(batch, sorted(os.listdir(temp)), in_tmp, named_with(token), ipc(token), kept)
    finally:
        for folder in (temp, nested, sentinel):
            shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def batch(graded: Graded) -> Batch:
    return graded.batch


def leaving(token: str, nested: Path) -> bytes:
    source = hostile_source("leftovers_everywhere").replace("TOKEN = None", f"TOKEN = {token!r}", 1)
    return source.replace("NESTED = None", f"NESTED = {str(nested)!r}", 1).encode("utf-8")


def ipc(token: str) -> list[str]:
    """The System V IPC objects whose key ``leftovers_everywhere`` makes from ``token``."""
    keys = {int(token[:7], 16) * 16 + n for n in range(7)}
    return [f"{kind}: {list(row.values())[:2]}" for kind, row in ipc_objects() if int(row["key"]) in keys]


def left_in_tmp(since: float, setup: str) -> list[str]:
    """What a worker's uid (or, in the user setup, the test user, whose workers share its uid) made in /tmp since
    ``since``.

    Once the batch is over every process of it has ended: on a machine shared with other sessions, what a
    live grader's workers own, or scratch named after a live process, is another run's and is not counted.
    """
    owners: set[int] = set()
    if setup == "user":
        with contextlib.suppress(KeyError):
            owners.add(pwd.getpwnam(TEST_USER).pw_uid)
    found = []
    for entry in os.scandir("/tmp"):
        try:
            info = entry.stat(follow_symlinks=False)
        except FileNotFoundError:
            continue  # removed since the scan listed it: another test's scratch, running beside this one
        grader = grader_of(info.st_uid)
        ours = info.st_uid in owners or (grader is not None and start_ticks(grader) is None)
        live = entry.name.startswith("dedup-harness-") and not scratch_dirs.is_dead(entry.name)
        if ours and not live and info.st_mtime >= since:
            found.append(entry.name)
    return sorted(found)


def test_the_grader_exits_0_and_the_correct_sample_and_the_reference_keep_full_marks_with_no_attempt(
    batch: Batch,
) -> None:
    assert batch.exit_status == 0, batch.stderr[-3000:]
    for name in ("correct", "reference"):
        assert batch.has_full_marks(name) and batch.submission(name)["attempts"] == [], batch.submission(name)
    assert "Traceback" not in batch.stderr and "could not remove" not in batch.stderr, batch.stderr[-3000:]


def test_a_spool_shaped_to_break_cleanup_loses_only_the_spool_check_and_the_sentinel_is_untouched(
    graded: Graded,
) -> None:
    lost = {c["name"]: c for c in graded.batch.submission("tree_planter")["checks"] if c["outcome"] != "passed"}
    said = {name: (c["outcome"], c["feedback"][:3]) for name, c in lost.items()}
    assert list(lost) == [SPOOL_CHECK], said
    assert graded.sentinel == "still here\n"
    assert graded.batch.later.startswith("dedup-harness "), graded.batch.later


def test_nothing_is_left_in_the_temp_folder_in_tmp_in_any_world_writable_folder_or_in_ipc(graded: Graded) -> None:
    assert (graded.in_temp, graded.in_tmp, graded.named, graded.ipc) == ([], [], [], [])


@pytest.mark.parametrize("shape", sorted(name for name, shape in SHAPES.items() if shape.named))
def test_a_folder_holding_a_link_fifo_device_or_socket_is_refused_by_name(batch: Batch, shape: str) -> None:
    found = batch.submission(shape)
    assert (found["status"], found["score"]) == ("graded", 0)
    assert found["problems"] == [refusal(batch.base / shape, SHAPES[shape])]


@once_a_setup
def test_a_hard_link_is_graded_and_noted_for_staff(batch: Batch) -> None:
    assert batch.has_full_marks("hard_link")
    assert batch.submission("hard_link")["problems"] == [HARD_LINK_NOTE]


@pytest.mark.parametrize("name", [*FULL_MARKS, *ORDINARY])
def test_a_loud_correct_source_and_ordinary_code_keep_full_marks(batch: Batch, name: str) -> None:
    assert batch.has_full_marks(name), batch.submission(name)


@once_a_setup
@pytest.mark.parametrize("name", ONCE_FULL_MARKS)
def test_a_correct_source_nested_deep_or_in_latin_1_keeps_full_marks(batch: Batch, name: str) -> None:
    assert batch.has_full_marks(name), batch.submission(name)


def test_what_printed_400_mb_a_call_is_cut_and_the_report_says_so(batch: Batch) -> None:
    problems = batch.submission("print_400mb_a_call")["problems"]
    assert len(problems) == 1 and problems[0].startswith("output: printed more than "), problems
    assert "it was told to discard the rest uncounted" in problems[0]


@pytest.mark.parametrize("name", sorted(NOT_COMPILED))
def test_a_source_python_cannot_compile_is_its_own_problem_line_and_0(batch: Batch, name: str) -> None:
    found = batch.submission(name)
    assert (found["status"], found["score"], found["harness_error"]) == ("graded", 0, "")
    assert len(found["problems"]) == 1 and found["problems"][0].startswith("dedup.py cannot be compiled: ")
    assert found["problems"][0].endswith(f"({NOT_COMPILED[name]})")


def test_a_stage_that_stalls_the_graders_writes_is_stopped_within_its_budget(batch: Batch) -> None:
    """Only check 14's corpora are large enough to stall on: its call's own window (10 s) stops it there, before the
    budget ends; either way the wait on the blocked write is charged, and the batch pays no more than the budget."""
    found = batch.submission(STALL)
    assert found["status"] == "graded" and 0 < found["score"] < len(CHECKS)
    [lost] = [check for check in found["checks"] if check["outcome"] != "passed"]
    assert lost["outcome"] == "timeout" and lost["feedback"][-1].startswith("timeout: "), lost
    assert found["seconds"] <= BUDGET + 1, found["seconds"]


@once_a_setup
def test_two_submissions_that_would_share_a_gradescope_folder_each_keep_their_own(batch: Batch) -> None:
    named = folders([str(batch.base / name) for name in TEAMS])
    scores = {name: batch.gradescope[named[str(batch.base / name)]]["score"] for name in TEAMS}
    assert scores == {"team 7": len(CHECKS), "team_7": 0}
    assert len(batch.gradescope) == len(batch.report["submissions"])


def test_nothing_of_the_classmate_graded_at_the_same_time_is_read(batch: Batch) -> None:
    """Each tier keeps it out its own way: out of view (namespaces), or refused (Landlock, the grader deciding every
    file call in the seccomp tier); a non-root grader in the seccomp tier grades one at a time (its workers share its
    uid) and says so."""
    lines = batch.log("classmate_reader", "classmates: ")
    assert lines and not [line for line in lines if "READ" in line], lines
    if batch.case.tier in ("landlock", "seccomp"):
        blocked = [f"classmates: {place}: blocked (EACCES)" for place in ("/tmp", "/proc", "the class folder")]
        assert set(blocked) <= set(lines), lines
    else:  # every session is mounted in its own grader's namespace only, the class folder under a covered /tmp
        assert "classmates: 0 other session(s) found" in lines
    originals = [line for line in lines if line.startswith("classmates: original ")]
    assert originals and all(line.endswith(("blocked (EACCES)", "blocked (ENOENT)")) for line in originals), lines
    if batch.case.setup == "user" and batch.case.tier == "seccomp":
        assert "grading one submission at a time" in batch.stderr


@pytest.mark.parametrize("forgery", FORGERIES)
def test_memory_a_stage_hides_loses_the_memory_check_and_nothing_else(batch: Batch, forgery: str) -> None:
    checks = {check["name"]: check for check in batch.submission(forgery)["checks"]}
    lost = [name for name, check in checks.items() if check["outcome"] != "passed"]
    assert lost == [MEMORY_CHECK], {name: checks[name]["feedback"][:3] for name in lost}
    if forgery != "memory_outside":  # the touched memory shows the slack's documents, the random corpus the zlib'd
        assert checks[MEMORY_CHECK]["outcome"] == "failed"
        assert any("it holds the documents in memory" in line for line in checks[MEMORY_CHECK]["feedback"])


def test_memory_outside_the_process_is_refused_with_what_the_grader_refuses(batch: Batch) -> None:
    """memfd and System V by the seccomp filter, a file under /dev/shm by Landlock or the grader's decisions (or out
    of view); the check crashed on the last refusal, and its feedback says why first."""
    lines = batch.log("memory_outside", "memory outside: ")
    assert sorted(lines[:2]) == ["memory outside: memfd: blocked (EPERM)", "memory outside: sysv: blocked (EPERM)"]
    assert lines[2:] in (["memory outside: posix: blocked (EACCES)"], ["memory outside: posix: blocked (ENOENT)"])
    [memory_check] = [check for check in batch.submission("memory_outside")["checks"] if check["name"] == MEMORY_CHECK]
    assert memory_check["outcome"] == "error"
    assert SENTENCES[SHARED_MEMORY] in memory_check["feedback"][:3], memory_check["feedback"][:3]


def test_a_copy_kept_outside_spool_dir_fails_the_spool_check_and_nothing_else(batch: Batch) -> None:
    checks = {check["name"]: check for check in batch.submission("spool_copy_kept")["checks"]}
    assert [name for name, check in checks.items() if check["outcome"] != "passed"] == [SPOOL_CHECK]
    said = " ".join(checks[SPOOL_CHECK]["feedback"])
    assert "/docs.jsonl (in the worker's home, its temp folder)" in said, said
    # Beside spool_dir only a worker of the grader's own uid may write (its own uid cannot, as root).
    assert ("kept-docs.jsonl (in the session)" in said) is (batch.case.setup == "user"), said


def test_every_attempt_to_leave_something_behind_is_blocked_and_costs_nothing(batch: Batch) -> None:
    lines = batch.log("leftovers_everywhere", "leftovers: ")
    assert len(set(lines)) == 9 and all(" blocked (" in line for line in lines), lines  # each worker tries
    assert batch.has_full_marks("leftovers_everywhere"), batch.submission("leftovers_everywhere")["checks"]
