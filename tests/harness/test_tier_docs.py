"""The tiers are described once, in ``grade/sandbox/tiers.toml``: the README's table, docs/isolation.md,
the reports' first lines and the preflight's advice all say what those words say, and each says what a
reader needs (held to words written here, not read back from the file)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dedup_harness.grade.plugin import setup_args
from dedup_harness.grade.preflight import HOW_TO_ISOLATE
from dedup_harness.grade.sandbox import Limits
from dedup_harness.grade.sandbox.interpreter import Interpreter
from dedup_harness.grade.sandbox.protections import describe
from dedup_harness.grade.sandbox.tiers import STRONGEST_FIRST, TIERS, Tier, WorkerSetup
from tier_docs import BEGIN, END, page, readme_section

PROJECT = Path(__file__).resolve().parents[2]
REWRITE = "python tools/tier_docs.py README.md docs/isolation.md"


def test_the_readmes_tier_table_is_the_one_the_table_gives() -> None:
    readme = (PROJECT / "README.md").read_text(encoding="utf-8")
    written = readme[readme.index(BEGIN) : readme.index(END) + len(END)]
    assert written == readme_section(), f"the README's tier table is stale: {REWRITE}"


def test_the_isolation_page_is_the_one_the_table_gives() -> None:
    assert (PROJECT / "docs" / "isolation.md").read_text(encoding="utf-8") == page(), f"stale: {REWRITE}"


def test_every_tier_has_one_row_strongest_first_and_none_last() -> None:
    assert [r.tier for r in TIERS] == list(Tier)
    assert STRONGEST_FIRST == (Tier.BUBBLEWRAP, Tier.UNSHARE, Tier.LANDLOCK, Tier.SECCOMP)


# What a TA reads first in a report of each tier: which wall stands between the worker and the machine.
FIRST_WORDS = {
    Tier.BUBBLEWRAP: "bubblewrap: new network, pid, ipc and uts namespaces: no network at all",
    Tier.UNSHARE: "unshare: new network, pid, mount and ipc namespaces: no network at all",
    Tier.LANDLOCK: "landlock: no namespaces; the worker confines itself before any submission code runs",
    Tier.SECCOMP: "seccomp: no namespaces and no Landlock; the worker filters its own system calls",
    Tier.NONE: "none: NOT ISOLATED (--unisolated)",
}


@pytest.mark.parametrize("tier", list(Tier))
def test_a_report_starts_with_its_tiers_words_and_lists_the_tiers_passed_over(tier: Tier) -> None:
    passed_over = ("bubblewrap: bubblewrap is not installed (apt-get install bubblewrap)",)
    setup = WorkerSetup(tier, Interpreter("/usr/bin/python3"), 0, True, passed_over)
    said = describe(setup, None, Limits())
    assert said.in_force[0].startswith(FIRST_WORDS[tier])
    assert said.in_force[-1].startswith("audit hook:"), "the innermost layer is said last"
    assert f"stronger tier not available: {passed_over[0]}" in said.missing


def test_the_preflights_advice_says_what_to_install_or_allow_for_each_tier() -> None:
    for fix in ("apt-get install bubblewrap", "kernel.unprivileged_userns_clone=1", "Landlock (5.13 or later)"):
        assert fix in HOW_TO_ISOLATE
    assert "chmod -R go-rwx" in HOW_TO_ISOLATE and "--unisolated" in HOW_TO_ISOLATE


def test_the_setup_reaches_each_grading_process_whole() -> None:
    """The grade command detects once; each grading process gets every field, the passed-over tiers too."""
    passed_over = ("bubblewrap: bubblewrap is not installed (apt-get install bubblewrap)",)
    setup = WorkerSetup(Tier.UNSHARE, Interpreter("/usr/bin/python3.11", "3.11.2"), 7, True, passed_over, True, True)
    (argument,) = setup_args(setup)
    assert argument.startswith("--worker-setup=")
    assert WorkerSetup.from_json(argument.split("=", 1)[1]) == setup
