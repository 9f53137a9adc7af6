"""The memory check measures what the stage itself uses, wherever it keeps it.

A submission that touches 200 MB at import and lets it go starts the checks with its peak resident
size far above anything a stage needs; if the peak were read from there, a stage that holds every
document would never raise it. The grader resets the worker's peak (/proc/PID/clear_refs) right
before each measured block, so the held documents show. One that fills 60 MB at import and frees
every other block keeps that memory resident and free for the allocator: documents held there raise
no peak, but the grader also counts the anonymous memory the block touched. Held compressed, the
check's random documents still weigh three quarters of their size; held in an anonymous memory file,
System V or POSIX shared memory, they are refused. Each is graded in a batch beside the plain correct
submission, which keeps its full marks, in every tier this machine offers.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from dedup_harness.core.checks import CHECKS
from dedup_harness.core.outcome import Outcome
from dedup_harness.core.procfs import memory_bytes
from dedup_harness.grade.batch import grade_batch
from dedup_harness.grade.client.memory import read, reset
from dedup_harness.grade.diagnosis import load_diagnoser
from dedup_harness.grade.grader import GradingOptions
from dedup_harness.grade.sandbox.tiers import worker_setup
from dedup_harness.grade.scoring import equal_weights
from grading_support import hostile_source, tier_param

MEMORY_CHECK = "test_the_documents_are_spooled_not_held"
CORRECT = Path(__file__).resolve().parent / "submissions" / "samples" / "correct_plain.py"


def test_resetting_a_process_peak_forgets_what_it_touched_and_let_go() -> None:
    """100 MB touched and freed raises a process's peak; the reset brings it back to what it holds now."""
    child = subprocess.Popen(
        [sys.executable, "-c", "b = bytearray(100 << 20)\nfor i in range(0, len(b), 4096): b[i] = 1\ndel b\n"
         "print('ready', flush=True)\ninput()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        before = memory_bytes(child.pid, "VmHWM")
        assert before is not None and before > 100 << 20
        assert reset([child.pid]) is not None
        after = memory_bytes(child.pid, "VmHWM")
        assert after is not None and after < 50 << 20
    finally:
        child.kill()
        child.wait()


# Fills 40 MB in 64 KiB blocks and frees every other one (20 MB resident and free), then, told to, writes
# 15 MB in 30 KiB blocks, two of which the allocator cuts from each freed one.
SLACK = """\
slab = [bytearray(64 << 10) for _ in range(640)]
for block in slab:
    for page in range(0, len(block), 4096): block[page] = 1
del slab[::2]
print('ready', flush=True); input()
held = [bytes([n % 250 + 1]) * (30 << 10) for n in range(512)]
print('held', flush=True); input()
"""


def test_what_a_process_writes_into_memory_it_freed_counts_as_reused_though_its_peak_stays() -> None:
    child = subprocess.Popen([sys.executable, "-c", SLACK], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        base = reset([child.pid])
        assert base is not None
        assert child.stdin is not None
        child.stdin.write("\n")
        child.stdin.flush()
        assert child.stdout.readline().strip() == "held"
        now = read([child.pid])
        assert now is not None
        assert now.peak - base.peak < 4 << 20  # the slack took them: the resident size hardly grew
        assert now.touched - base.touched > 14 << 20  # every page written counts
        assert now.touched_already_resident(base) > 10 << 20  # and most were resident before: reused
    finally:
        child.kill()
        child.wait()


def test_a_process_that_is_gone_cannot_be_reset() -> None:
    done = subprocess.run([sys.executable, "-c", "pass"], check=True)
    assert done.returncode == 0
    assert reset([]) is None
    assert reset([done.args and 2**22 + 7]) is None


@pytest.mark.parametrize("tier", [tier_param("bubblewrap"), tier_param("unshare"), tier_param("landlock")])
def test_a_spike_at_import_hides_no_held_document(tmp_path: Path, tier: str) -> None:
    folder = tmp_path / "memory_spike_then_hold"
    folder.mkdir()
    (folder / "dedup.py").write_text(hostile_source("memory_spike_then_hold"), encoding="utf-8")
    options = GradingOptions(equal_weights(), load_diagnoser(), setup=worker_setup(tier))
    # Reports come in name order, not in the order given: which sorts first depends on where the clone is.
    graded = {r.submission: r for r in grade_batch([str(folder / "dedup.py"), str(CORRECT)], options, jobs=2)}
    hostile, correct = graded[str(folder / "dedup.py")], graded[str(CORRECT)]
    failed = [c.name for c in hostile.checks if c.outcome is not Outcome.PASSED]
    assert failed == [MEMORY_CHECK], [c.feedback for c in hostile.checks if c.name == MEMORY_CHECK]
    assert next(c for c in hostile.checks if c.name == MEMORY_CHECK).outcome is Outcome.FAILED
    assert [c.outcome for c in correct.checks] == [Outcome.PASSED] * len(CHECKS)
