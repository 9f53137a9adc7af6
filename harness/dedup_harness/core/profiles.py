"""Every Hypothesis settings profile the suite runs under, registered in one place.

The suite's conftest loads the one ``DEDUP_HARNESS_PROFILE`` names (``dev`` by default); whoever
starts a suite run sets that variable to one of the names below. The names need no Hypothesis: it is
imported only to register or load a profile (a command that only names one, verify's ``--profile``,
leaves that to its suite runs).
"""

from __future__ import annotations

import os

PROFILE_ENV = "DEDUP_HARNESS_PROFILE"
DEV = "dev"
CI = "ci"
GRADING = "grading"  # never depends on luck: the same submission always meets the same examples
VERIFY = "verify"
MUTATION = "mutation"
# The harness's own fuzz tests of its command line: few, small, reproducible examples.
FUZZ = "fuzz"
NAMES = (DEV, CI, GRADING, VERIFY, MUTATION, FUZZ)


def register() -> None:
    from hypothesis import HealthCheck, Phase, settings

    # A check's ``judge`` fixture (tests/suite/conftest.py) is made once per test, not per example: it holds
    # no state an example could leave behind, so Hypothesis's warning about function-scoped fixtures is moot.
    per_test_fixtures = HealthCheck.function_scoped_fixture
    # "too slow" is off: the corpora are large by design, and on a busy machine (or a student's old
    # laptop) that health check failed a check with no failing example at all.
    settings.register_profile(
        DEV, deadline=None, max_examples=50, suppress_health_check=[per_test_fixtures, HealthCheck.too_slow]
    )
    # Every profile but dev never depends on luck and writes no example database.
    steady = settings(deadline=None, max_examples=50, derandomize=True, database=None)
    settings.register_profile(CI, steady, print_blob=True, suppress_health_check=[per_test_fixtures])
    # Neither grading nor verify runs Hypothesis's shrink phase. The grader shrinks every failed
    # check's input itself (grade/minimize), the fixture's and the seeded corpora's too, so the shrink
    # phase would only repeat that work, slower; verify only asks whether a check fails, and a failing
    # mutant would spend seconds shrinking an example nobody reads there.
    for name in (GRADING, VERIFY):
        settings.register_profile(
            name,
            steady,
            phases=[Phase.explicit, Phase.reuse, Phase.generate],
            suppress_health_check=[HealthCheck.too_slow, per_test_fixtures],
        )
    # mutmut runs the suite once per mutant; a mutant's verdict must not depend on luck or on how
    # slow the trampolines make a test.
    settings.register_profile(MUTATION, steady, suppress_health_check=list(HealthCheck))
    settings.register_profile(
        FUZZ, steady, max_examples=60, suppress_health_check=[HealthCheck.too_slow, per_test_fixtures]
    )


def load_from_environment() -> str:
    """Register the profiles and load the one the environment names; returns its name."""
    from hypothesis import settings

    register()
    name = os.environ.get(PROFILE_ENV, DEV)
    settings.load_profile(name)
    return name
