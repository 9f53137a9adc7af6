"""How a dead worker's exit status reads in a report."""

from __future__ import annotations

import pytest

from dedup_harness.grade.client.faults import describe_status


@pytest.mark.parametrize(
    ("status", "mode", "words"),
    [
        (-11, "unshare", "was killed by SIGSEGV (a crash: segmentation fault)"),
        (128 + 11, "bubblewrap", "was killed by SIGSEGV (a crash: segmentation fault)"),
        (-24, "none", "was killed by SIGXCPU (its CPU time ran out)"),
        (128 + 25, "bubblewrap", "was killed by SIGXFSZ (it wrote a file past the size limit)"),
        (139, "unshare", "exited with status 139"),
        (0, "bubblewrap", "exited with status 0"),
        (3, "none", "exited with status 3"),
        (None, "none", "is still running"),
    ],
)
def test_a_status_reads_as_a_signal_or_an_exit(status: int | None, mode: str, words: str) -> None:
    """Through bubblewrap a death by signal N is status 128 + N; elsewhere it is -N."""
    assert describe_status(status, mode) == words
