"""What one check came to for one implementation: passed, failed, error or timeout.

Its own module, apart from the pytest plugin that records it (``dedup_harness.core.outcome_recorder``), so the
reports and the command line can name outcomes without importing pytest.
"""

from __future__ import annotations

from enum import StrEnum


class Outcome(StrEnum):
    PASSED = "passed"
    FAILED = "failed"  # an assertion failed: the only outcome that kills a mutant
    ERROR = "error"  # import, collection or a crash
    TIMEOUT = "timeout"


# When the cases of one check end differently, the check takes the first of these that occurred.
PRECEDENCE = (Outcome.FAILED, Outcome.ERROR, Outcome.TIMEOUT, Outcome.PASSED)
