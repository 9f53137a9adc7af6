"""The tiers are described once, in ``grade/sandbox/tiers.py``: the README's table, docs/isolation.md,
the reports' first lines and the preflight's advice all say what that table says."""

from __future__ import annotations

from pathlib import Path

from dedup_harness.grade.plugin import setup_args
from dedup_harness.grade.preflight import HOW_TO_ISOLATE
from dedup_harness.grade.sandbox import Limits
from dedup_harness.grade.sandbox.interpreter import Interpreter
from dedup_harness.grade.sandbox.protections import describe
from dedup_harness.grade.sandbox.tier_docs import BEGIN, END, page, readme_section
from dedup_harness.grade.sandbox.tiers import STRONGEST_FIRST, TIERS, Tier, WorkerSetup, row

PROJECT = Path(__file__).resolve().parents[2]
REWRITE = "python -m dedup_harness.grade.sandbox.tier_docs README.md docs/isolation.md"


def test_the_readmes_tier_table_is_the_one_the_table_gives() -> None:
    readme = (PROJECT / "README.md").read_text(encoding="utf-8")
    written = readme[readme.index(BEGIN) : readme.index(END) + len(END)]
    assert written == readme_section(), f"the README's tier table is stale: {REWRITE}"


def test_the_isolation_page_is_the_one_the_table_gives() -> None:
    assert (PROJECT / "docs" / "isolation.md").read_text(encoding="utf-8") == page(), f"stale: {REWRITE}"


def test_every_tier_has_one_row_strongest_first_and_none_last() -> None:
    assert [r.tier for r in TIERS] == list(Tier)
    assert STRONGEST_FIRST == (Tier.BUBBLEWRAP, Tier.UNSHARE, Tier.LANDLOCK, Tier.SECCOMP)


def test_a_report_starts_with_its_tiers_words_and_lists_the_tiers_passed_over() -> None:
    passed_over = ("bubblewrap: bubblewrap is not installed (apt-get install bubblewrap)",)
    for tier in Tier:
        setup = WorkerSetup(tier, Interpreter("/usr/bin/python3"), 0, True, passed_over)
        said = describe(setup, None, Limits())
        assert said.in_force[: len(row(tier).in_force)] == list(row(tier).in_force)
        assert f"stronger tier not available: {passed_over[0]}" in said.missing


def test_the_preflights_advice_names_each_tiers_remedy() -> None:
    for tier in STRONGEST_FIRST:
        assert row(tier).remedy in HOW_TO_ISOLATE


def test_the_setup_reaches_each_grading_process_whole() -> None:
    """The grade command detects once; each grading process gets every field, the passed-over tiers too."""
    passed_over = ("bubblewrap: bubblewrap is not installed (apt-get install bubblewrap)",)
    setup = WorkerSetup(Tier.UNSHARE, Interpreter("/usr/bin/python3.11", "3.11.2"), 7, True, passed_over, True, True)
    (argument,) = setup_args(setup)
    assert argument.startswith("--worker-setup=")
    assert WorkerSetup.from_json(argument.split("=", 1)[1]) == setup
