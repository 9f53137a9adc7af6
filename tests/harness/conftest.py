"""Fixtures for the harness's own tests that run children in the three setups (``machine_setups``)."""

from __future__ import annotations

import pwd
from collections.abc import Iterator

import pytest

from machine_setups import SETUPS, Setup, ensure_user, missing_for_setups, remove_user, setup_for


@pytest.fixture(scope="session")
def test_user() -> Iterator[pwd.struct_passwd]:
    """The unprivileged user of the ``user`` setup: made for this session if the machine lacks it, then removed."""
    reason = missing_for_setups()
    if reason is not None:
        pytest.skip(reason)
    user, why, made = ensure_user()
    if user is None:
        pytest.skip(why)
    yield user
    if made:
        remove_user()


@pytest.fixture(params=SETUPS)
def setup(request: pytest.FixtureRequest) -> Setup:
    """Each of the three setups in turn."""
    reason = missing_for_setups()
    if reason is not None:
        pytest.skip(reason)
    user = request.getfixturevalue("test_user") if request.param == "user" else None
    return setup_for(request.param, user)
