"""Hostile and broken submissions, graded for real: each gets a verdict, and none gets a pass it did not earn.

Each test grades one file of ``submissions/hostile/`` through ``run_suite`` with the grading plugin
(two seconds per call, eight per submission) on the few checks that show its verdict, and asserts
the outcomes, the line in the report, and that the grader and everything outside the scratch
survived. Running as root with bubblewrap is how CI and the grading machines run; the fallback
(``unshare``, no bubblewrap) is graded too for the attacks it must stop on its own.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from dedup_harness.core.outcome import Outcome
from dedup_harness.grade.sandbox.users import processes_of
from grading_support import grade, hostile_source, tier_param

HAND = "test_hand_example_three_documents"
SPLIT = "test_paragraph_split_rules"
SPOOL = "test_the_spool_is_removed"
STATS = "test_stats_name_every_key"
SIZING = "test_bloom_is_sized_from_bytes_per_item"
REPEAT = "test_a_repeat_inside_one_document_is_removed"
NOT_PASSED = (Outcome.FAILED, Outcome.ERROR, Outcome.TIMEOUT)

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="the unprivileged worker user needs a root grader")
ISOLATIONS = [tier_param("bubblewrap"), tier_param("unshare")]
ALL_TIERS = [*ISOLATIONS, tier_param("landlock")]


def test_a_syntax_error_is_a_problem_and_fails_every_check(tmp_path: Path) -> None:
    """The compile problem names the line; the checks run and fail, none passes."""
    graded = grade(hostile_source("syntax_error"), tmp_path, checks=[HAND, STATS])
    assert [p["kind"] for p in graded.sidecar["static"]] == ["syntax"]
    assert "line 9" in graded.sidecar["static"][0]["message"]
    assert graded.outcome(HAND) is Outcome.ERROR and graded.outcome(STATS) is Outcome.ERROR


def test_a_missing_name_costs_only_the_checks_that_use_it(tmp_path: Path) -> None:
    """bloom_rate is missing: the sizing check errors, the spool check and the worked example still pass."""
    graded = grade(hostile_source("missing_name"), tmp_path, checks=[SIZING, SPOOL, HAND])
    assert any("bloom_rate is missing" in p["message"] for p in graded.sidecar["static"])
    assert graded.outcome(SIZING) is Outcome.ERROR
    assert graded.outcome(SPOOL) is Outcome.PASSED and graded.outcome(HAND) is Outcome.PASSED
    assert graded.says("missing", "bloom_rate")


def test_a_wrong_signature_is_reported_against_the_stub(tmp_path: Path) -> None:
    """An extra required parameter, a positional spool_dir and another default are each a line."""
    graded = grade(hostile_source("wrong_signature"), tmp_path, checks=[HAND])
    messages = [p["message"] for p in graded.sidecar["static"] if p["kind"] == "signature"]
    assert "paragraph_hash: extra required parameter 'encoding': the checks never pass it" in messages
    assert "exact_dedup: parameter 'spool_dir' should be keyword-only, is positional" in messages
    assert "exact_dedup: parameter 'bloom_bytes_per_item' should default to 10, defaults to 8" in messages
    assert graded.outcome(HAND) is Outcome.ERROR


def test_an_import_that_raises_is_reported_and_fails_every_check(tmp_path: Path) -> None:
    graded = grade(hostile_source("import_raises"), tmp_path, checks=[HAND, STATS])
    assert graded.sidecar["static"][0]["kind"] == "import"
    assert "ZeroDivisionError" in graded.sidecar["static"][0]["message"]
    assert graded.outcome(HAND) is Outcome.ERROR and graded.outcome(STATS) is Outcome.ERROR


@pytest.mark.parametrize("tier", ISOLATIONS)
def test_a_hang_in_a_call_is_a_timeout(tmp_path: Path, tier: str) -> None:
    """The call is cut at its limit; the submission's budget then ends the rest at once."""
    options = ["--call-timeout=2", "--submission-timeout=5"]
    graded = grade(hostile_source("hang_in_call"), tmp_path, checks=[HAND, STATS, REPEAT], tier=tier, options=options)
    assert graded.outcome(HAND) is Outcome.TIMEOUT
    assert graded.outcome(STATS) is Outcome.TIMEOUT
    assert graded.outcome(REPEAT) is Outcome.TIMEOUT
    assert graded.says("timeout", "paragraph_hash() did not answer within 2 s")
    assert graded.says("timeout", "used up its 5 s of worker time")


def test_a_hang_in_close_is_a_timeout(tmp_path: Path) -> None:
    graded = grade(hostile_source("hang_in_close"), tmp_path, checks=[SPOOL, HAND])
    assert graded.outcome(SPOOL) is Outcome.TIMEOUT
    assert graded.outcome(HAND) is Outcome.PASSED
    assert graded.says("timeout", "close() on exact_dedup's output did not answer within 2 s")


@pytest.mark.parametrize("tier", ISOLATIONS)
def test_a_segfault_costs_only_the_checks_it_hits(tmp_path: Path, tier: str) -> None:
    """The worker dies by SIGSEGV; the next check gets a fresh worker."""
    graded = grade(hostile_source("crash_segfault"), tmp_path, checks=[HAND, STATS], tier=tier)
    assert graded.outcome(HAND) is Outcome.ERROR
    assert graded.says("crash", "was killed by SIGSEGV")
    assert graded.says("attempt", "used ctypes")
    empty_input = graded.result.cases[STATS][0]
    assert empty_input["outcome"] == "passed", "an empty input hashes nothing: a fresh worker should pass it"
    assert graded.sidecar["worker"]["starts"] >= 2


def test_a_memory_bomb_is_a_memory_error(tmp_path: Path) -> None:
    graded = grade(hostile_source("memory_bomb"), tmp_path, checks=[SPLIT])
    assert graded.outcome(SPLIT) is Outcome.ERROR
    assert graded.says("memory", "ran out of memory during paragraphs() (limit 512 MiB)")


@needs_root
@pytest.mark.parametrize("tier", ALL_TIERS)
def test_a_fork_bomb_is_stopped_and_cleaned_up(tmp_path: Path, tier: str) -> None:
    """The process limit holds the forks, the timeout ends the call, and no process of the worker's uid is left."""
    graded = grade(hostile_source("fork_bomb"), tmp_path, checks=[HAND], tier=tier)
    assert graded.outcome(HAND) is Outcome.TIMEOUT
    assert graded.says("attempt", "tried to start a process (os.fork)")
    assert graded.sidecar["protections"]["process_limit_enforced"]
    assert processes_of(graded.sidecar["worker"]["uid"]) == []


def test_a_huge_reply_is_refused(tmp_path: Path) -> None:
    graded = grade(hostile_source("huge_reply"), tmp_path, checks=[SPLIT])
    assert graded.outcome(SPLIT) is Outcome.ERROR
    assert graded.says("output too large", "paragraphs() sent the grader more than 8 MiB in one message")


def test_a_flood_of_output_is_cut(tmp_path: Path) -> None:
    graded = grade(hostile_source("output_flood"), tmp_path, checks=[HAND])
    assert graded.outcome(HAND) is Outcome.PASSED
    assert graded.says("output", "the report keeps the first 16384")
    assert len(graded.sidecar["student_output"]) < 17_000
    assert "more bytes of output dropped" in graded.sidecar["student_output"]


@pytest.mark.parametrize("tier", ISOLATIONS)
def test_a_disk_filler_is_stopped(tmp_path: Path, tier: str) -> None:
    """Writing without end into spool_dir, home and temp: stopped at the disk limit, its files gone."""
    graded = grade(hostile_source("disk_filler"), tmp_path, checks=[SPOOL], tier=tier)
    assert graded.outcome(SPOOL) in (Outcome.ERROR, Outcome.TIMEOUT)
    assert graded.events("disk") or graded.events("timeout")
    assert not list(Path("/tmp").glob("fill-*")), "the filler's files were left in /tmp"


def test_sys_exit_in_a_call_is_an_error_not_a_pass(tmp_path: Path) -> None:
    graded = grade(hostile_source("sys_exit_in_call"), tmp_path, checks=[HAND, STATS])
    assert graded.outcome(HAND) is Outcome.ERROR
    assert graded.says("exit", "the submission raised SystemExit(0) during paragraph_hash()")
    assert graded.sidecar["worker"]["starts"] == 1, "sys.exit is caught in the worker: no restart needed"


def test_os_exit_in_a_call_is_an_error_not_a_pass(tmp_path: Path) -> None:
    graded = grade(hostile_source("os_exit_forge"), tmp_path, checks=[HAND, STATS])
    assert graded.outcome(HAND) is Outcome.ERROR
    assert graded.says("exit", "the worker exited with status 0 during paragraph_hash()")
    assert graded.result.exitstatus == 1, "the grader's own pytest run finished and counted the failure"


@pytest.mark.parametrize("tier", ALL_TIERS)
def test_signals_to_the_grader_do_not_reach_it(tmp_path: Path, tier: str) -> None:
    graded = grade(hostile_source("kill_grader"), tmp_path, checks=[HAND, REPEAT], tier=tier)
    assert graded.outcome(HAND) is Outcome.PASSED and graded.outcome(REPEAT) is Outcome.PASSED
    assert graded.says("attempt", "tried to send signal 9 to other processes")
    assert len(graded.events("attempt")) == 1


def test_threads_left_running_are_reported_and_killed(tmp_path: Path) -> None:
    graded = grade(hostile_source("threads_left"), tmp_path, checks=[HAND])
    assert graded.outcome(HAND) is Outcome.PASSED
    assert graded.says("threads", "left 1 thread(s) running: lingerer")
    assert processes_of(graded.sidecar["worker"]["uid"]) == []


@pytest.mark.parametrize("tier", ALL_TIERS)
def test_the_network_is_out_of_reach(tmp_path: Path, tier: str) -> None:
    graded = grade(hostile_source("network"), tmp_path, checks=[HAND], tier=tier)
    assert graded.outcome(HAND) is Outcome.PASSED
    assert graded.says("attempt", "tried to reach the network: look up ('1.1.1.1', 80)")
    assert "network: reached" not in graded.sidecar["student_output"]
    assert graded.sidecar["student_output"].count("network: blocked") == 2
    assert graded.sidecar["protections"]["network"].startswith("none")


@pytest.mark.parametrize("tier", ALL_TIERS)
def test_files_outside_the_scratch_survive(tmp_path: Path, tier: str) -> None:
    victim = Path(f"/tmp/dedup-harness-victim-{os.getpid()}")
    victim.mkdir(exist_ok=True)
    (victim / "keep.txt").write_text("still here\n", encoding="utf-8")
    try:
        graded = grade(hostile_source("delete_outside"), tmp_path, checks=[HAND], tier=tier)
        assert (victim / "keep.txt").read_text(encoding="utf-8") == "still here\n"
    finally:
        shutil.rmtree(victim)
    assert graded.outcome(HAND) is Outcome.PASSED, "its functions are honest; only its import is hostile"
    assert graded.says("attempt", "tried to delete or change")
    assert Path("/usr/lib/python3.11/json/__init__.py").exists()


@pytest.mark.parametrize("tier", ALL_TIERS)
def test_the_folder_a_check_inspects_cannot_be_swapped(tmp_path: Path, tier: str) -> None:
    """A stage that leaves its spool and swaps spool_dir for an empty folder still fails the spool check."""
    graded = grade(hostile_source("spool_swap"), tmp_path, checks=[SPOOL], tier=tier)
    assert graded.outcome(SPOOL) is Outcome.FAILED
    assert "swap refused: [Errno 13] Permission denied" in graded.sidecar["student_output"]


def test_patching_pytest_in_the_worker_forges_nothing(tmp_path: Path) -> None:
    """The worker has no pytest to patch (and patching its own copy would not touch the checks)."""
    graded = grade(hostile_source("pytest_patch"), tmp_path, checks=[HAND, REPEAT])
    assert graded.outcome(HAND) is Outcome.FAILED and graded.outcome(REPEAT) is Outcome.FAILED
    assert graded.says("attempt", "tried to import _pytest")
    assert graded.result.exitstatus == 1


def test_objects_equal_to_anything_do_not_cross(tmp_path: Path) -> None:
    graded = grade(hostile_source("eq_always_true"), tmp_path, checks=[HAND, SPLIT, STATS])
    assert graded.outcome(SPLIT) is Outcome.FAILED, "paragraphs() comes back as a plain list of its strings"
    assert graded.outcome(HAND) is Outcome.FAILED, "the hash comes back as plain bytes"
    assert graded.outcome(STATS) is Outcome.ERROR
    messages = " ".join(case["message"] for case in graded.result.cases[STATS])
    assert "cannot be checked" in messages


def test_results_files_cannot_be_overwritten(tmp_path: Path) -> None:
    graded = grade(hostile_source("results_overwrite"), tmp_path, checks=[HAND, REPEAT])
    assert graded.outcome(HAND) is Outcome.FAILED and graded.outcome(REPEAT) is Outcome.FAILED
    assert graded.sidecar["events"] is not None and "score" not in graded.sidecar
    assert not Path("/autograder/results/results.json").exists() or os.geteuid() != 0


@pytest.mark.parametrize("tier", ALL_TIERS)
def test_the_reference_cannot_be_read_from_disk(tmp_path: Path, tier: str) -> None:
    """In no tier are the harness's files readable to the worker: the copy finds nothing."""
    graded = grade(hostile_source("read_reference"), tmp_path, checks=[HAND, STATS], tier=tier)
    assert graded.sidecar["protections"]["harness_files_hidden"]
    assert graded.outcome(HAND) is Outcome.ERROR and graded.outcome(STATS) is Outcome.FAILED
    assert "could not find the answer" in " ".join(case["message"] for case in graded.result.cases[HAND])
