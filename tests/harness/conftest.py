"""Fixtures for the harness's own tests that run children in the three setups (``machine_setups``).

``DEDUP_HARNESS_REQUIRE_SETUPS=1`` (``.ci/run`` sets it when it runs as root) turns a skip of the
confinement, tier, preflight, classmates, own-disk and shaped-spool tests into a failure: on CI's
machine each of them must really run. Only what depends on the processor stays a skip there.
"""

from __future__ import annotations

import os
import pwd
import shutil
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest

from machine_setups import (
    SETUPS,
    TEST_USER_MADE,
    Setup,
    ensure_user,
    missing_for_setups,
    public_folder,
    python_for_user,
    setup_for,
)

REQUIRED = os.environ.get("DEDUP_HARNESS_REQUIRE_SETUPS") == "1"
MACHINE_TESTS = {
    "test_confinement.py",
    "test_tiers.py",
    "test_preflight.py",
    "test_batch_attacks.py",
    "test_disk_of_its_own.py",
    "test_allowed_in_tiers.py",
    "test_file_decisions.py",
}
PROCESSOR_SKIPS = ("exist only on x86_64", "no i386 emulation")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if REQUIRED and report.skipped and Path(str(item.path)).name in MACHINE_TESTS:
        reason = str(report.longrepr)
        if not any(fragment in reason for fragment in PROCESSOR_SKIPS):
            report.outcome = "failed"
            report.longrepr = f"DEDUP_HARNESS_REQUIRE_SETUPS=1, but this test was skipped: {reason}"
    return report


@pytest.fixture(scope="session")
def test_user() -> Iterator[pwd.struct_passwd]:
    """The unprivileged user of the ``user`` setup: made for this run if the machine lacks it, then removed."""
    reason = missing_for_setups()
    if reason is not None:
        pytest.skip(reason)
    user, why, made = ensure_user()
    if user is None:
        pytest.skip(why)
    if made:  # removed once the whole run ends (tests/conftest.py): other xdist workers may still need it
        Path(os.environ[TEST_USER_MADE]).write_text(user.pw_name, encoding="utf-8")
    yield user


@pytest.fixture(params=SETUPS)
def setup(request: pytest.FixtureRequest) -> Setup:
    """Each of the three setups in turn."""
    reason = missing_for_setups()
    if reason is not None:
        pytest.skip(reason)
    user = request.getfixturevalue("test_user") if request.param == "user" else None
    return setup_for(request.param, user)


@pytest.fixture(scope="session")
def user_python(test_user: pwd.struct_passwd) -> Iterator[Path]:
    """The grader's interpreter for the non-root user (see ``machine_setups.python_for_user``)."""
    folder = public_folder("dedup-harness-user-venv-")
    try:
        python, why = python_for_user(folder / "venv", test_user)
        if python is None:
            pytest.skip(why)
        yield python
    finally:
        shutil.rmtree(folder, ignore_errors=True)
