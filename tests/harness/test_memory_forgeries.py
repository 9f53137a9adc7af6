"""No memory a stage can hide from check 14: three forgeries graded beside the correct sample, in every tier and setup.

``memory_heap_slack`` fills and frees 60 MB at import, so its resident size stays up with room for
every document it then holds; ``memory_compressed`` holds the documents compressed with zlib;
``memory_outside`` holds them in an anonymous memory file, System V or POSIX shared memory, the first
of them it can make. Each spools as the reference does, so it loses check 14 alone or gets a pass it
did not earn. Graded in one batch with ``samples/correct_different.py`` (``--jobs 2``, a temp folder of
the test's own), in each tier and setup: each forgery loses check 14 and nothing else (the touched
memory shows the slack's documents, the random corpus the compressed ones; memory outside the process
is refused, with grade's words), the correct sample keeps full marks, the grader exits 0, and the
temp folder is left empty.
"""

from __future__ import annotations

import pytest

from beside_correct import EVERY_CASE, Batch, graded_in_a_temp_of_its_own
from dedup_harness.core.checks import CHECKS
from dedup_harness.grade.rules import SENTENCES
from dedup_harness.grade.worker.categories import SHARED_MEMORY
from grading_support import hostile_source

FORGERIES = ("memory_heap_slack", "memory_compressed", "memory_outside")
MEMORY_CHECK = CHECKS[13]
SAYS = "memory outside: "


@pytest.fixture(scope="module", params=EVERY_CASE, ids=str)
def batch(request: pytest.FixtureRequest) -> Batch:
    forgeries = {name: hostile_source(name) for name in FORGERIES}
    return graded_in_a_temp_of_its_own(request, forgeries, "dedup-harness-forgeries-")


def test_the_grader_survives_the_correct_sample_keeps_full_marks_and_nothing_is_left(batch: Batch) -> None:
    assert batch.exit_status == 0, batch.stderr[-3000:]
    assert batch.has_full_marks("correct"), batch.submission("correct")
    assert batch.left == []


@pytest.mark.parametrize("forgery", FORGERIES)
def test_each_forgery_loses_the_memory_check_and_nothing_else(batch: Batch, forgery: str) -> None:
    checks = {check["name"]: check for check in batch.submission(forgery)["checks"]}
    lost = [name for name, check in checks.items() if check["outcome"] != "passed"]
    assert lost == [MEMORY_CHECK], {name: checks[name]["feedback"][:3] for name in lost}


def test_memory_outside_the_process_is_refused_with_what_the_grader_refuses(batch: Batch) -> None:
    """memfd and System V by the seccomp filter, a file under /dev/shm by Landlock or the grader's decisions (or
    out of view); the check crashed on the last refusal, and its feedback says why first."""
    lines = batch.log("memory_outside", SAYS)
    assert sorted(lines[:2]) == [f"{SAYS}memfd: blocked (EPERM)", f"{SAYS}sysv: blocked (EPERM)"], lines
    assert lines[2:] in ([f"{SAYS}posix: blocked (EACCES)"], [f"{SAYS}posix: blocked (ENOENT)"]), lines
    memory_check = next(c for c in batch.submission("memory_outside")["checks"] if c["name"] == MEMORY_CHECK)
    assert memory_check["outcome"] == "error"
    assert SENTENCES[SHARED_MEMORY] in memory_check["feedback"][:3], memory_check["feedback"][:3]


@pytest.mark.parametrize("forgery", ["memory_heap_slack", "memory_compressed"])
def test_the_held_documents_show_as_memory_that_grew_with_them(batch: Batch, forgery: str) -> None:
    memory_check = next(c for c in batch.submission(forgery)["checks"] if c["name"] == MEMORY_CHECK)
    assert memory_check["outcome"] == "failed"
    assert any("it holds the documents in memory" in line for line in memory_check["feedback"])
