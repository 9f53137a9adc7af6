"""The canary is wrong in every way the real suite looks at: each check of the suite fails on it."""

from __future__ import annotations

import shutil
from pathlib import Path

from dedup_harness.core.checks import CHECKS
from dedup_harness.core.mutant_roots import copy_root
from dedup_harness.core.outcome import Outcome
from dedup_harness.core.paths import CANARY_SOURCE, IMPL_ROOT
from dedup_harness.core.runner import run_suites
from dedup_harness.verify.engine import VERIFY_PYTEST_ARGS


def test_every_check_of_the_suite_fails_on_the_canary_by_an_assertion(tmp_path: Path) -> None:
    root = copy_root(IMPL_ROOT, tmp_path / "canary")
    shutil.copyfile(CANARY_SOURCE, root / "corpus" / "dedup.py")
    [result] = run_suites([root], profile="verify", extra_args=VERIFY_PYTEST_ARGS)
    assert result.collection_errors == []
    assert result.outcomes == dict.fromkeys(CHECKS, Outcome.FAILED), {
        check: result.cases.get(check, [{}])[0].get("message") for check, o in result.outcomes.items() if o != "failed"
    }
