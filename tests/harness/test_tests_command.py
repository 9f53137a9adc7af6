"""`dedup-harness tests [N]`: the catalogue of checks, as the chapter's table has it, and one check in full."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys

import pytest

from dedup_harness.check.tests_catalogue import collected_cases, pitfalls
from dedup_harness.cli import main
from dedup_harness.commands.tests import ADDED, title
from dedup_harness.core.catalogue import load_catalogue
from dedup_harness.core.checks import BY_NAME, KINDS, REGISTRY
from dedup_harness.core.paths import DOCS_DIR
from dedup_harness.core.split_cases import SPLIT_CASES


def words(text: str) -> str:
    return " ".join(text.split())


def test_every_check_has_a_kind_and_a_reason_downstream() -> None:
    for check in REGISTRY:
        assert check.kind in KINDS and len(check.why.split()) >= 8, check.name


def test_the_catalogue_gives_each_checks_number_name_kind_assertion_and_reason(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["tests"]) == 0
    out = words(capsys.readouterr().out)
    for check in REGISTRY:
        said = f"{check.number}. {title(check)} asserts: {words(check.asserts)}"
        assert said in out and f"why it matters downstream: {words(check.why)}" in out, check.name
    pages = out.split("The pages: ")[1]
    assert all(page in pages and (DOCS_DIR / page).is_file() for page in ("checks.md", "check.md", "rules.md"))
    assert f"`less {DOCS_DIR / 'checks.md'}`" in pages, "where the pages lie, and how to open them"


def test_one_check_in_full_gives_its_cases_and_the_pitfalls_it_catches(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tests", "5"]) == 0
    out = words(capsys.readouterr().out)
    assert f"{len(SPLIT_CASES)} cases:" in out and "[a<CR><LF><CR><LF>b]" in out
    assert 's07: splits paragraphs only on "\\n\\n"' in out
    assert main(["tests", "13"]) == 0
    out = words(capsys.readouterr().out)
    assert "a property: Hypothesis draws 10 examples" in out and "7 inputs pinned with @example" in out


# What the chapter's catalogue lists, by name: 11 of the checks and 8 of the pitfalls. The rest are the course's.
COURSES_CHECKS = [
    "test_false_positives_stay_within_the_budget",
    "test_paragraph_identity_is_the_exact_text",
    "test_the_documents_are_spooled_not_held",
]
CHAPTERS_PITFALLS = ["s01", "s03", "s04", "s05", "s07", "s09", "s10", "s13"]


def test_what_the_course_added_to_the_chapter_is_marked_and_says_why() -> None:
    mutants = load_catalogue(diffs=False)
    assert [check.name for check in REGISTRY if check.added] == COURSES_CHECKS
    assert [mutant.id for mutant in mutants if not mutant.added] == CHAPTERS_PITFALLS
    assert all(len(item.added.split()) >= 12 for item in [*REGISTRY, *mutants] if item.added), "a reason, not a word"


def test_tests_marks_what_the_course_added_and_tests_n_says_why_in_80_columns(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["tests"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[1] for line in lines if line.endswith(f") {ADDED}")] == COURSES_CHECKS
    assert f"{ADDED} a check the course added to the chapter's tests" in words("\n".join(lines)), "the legend"
    assert all(len(line) <= 80 or str(DOCS_DIR) in line for line in lines), "only a path stays whole past 80"
    assert main(["tests", "9"]) == 0
    out = capsys.readouterr().out
    because = f"{ADDED} added by the course, beyond the chapter:"
    assert f"{because} {words(BY_NAME[COURSES_CHECKS[0]].added)}" in words(out)
    s06 = next(m for m in load_catalogue(diffs=False) if m.id == "s06")
    assert f"s06: {words(s06.pitfall)} {because} {words(s06.added)}" in words(out)
    assert "s04: drops every Bloom positive without confirming it s05:" in words(out), "a chapter's pitfall: no reason"
    assert max(map(len, out.splitlines())) <= 80


def test_the_cases_are_what_pytest_collects_of_every_check() -> None:
    cases = collected_cases()
    assert set(cases) == set(BY_NAME)
    assert len(cases["test_the_spool_is_removed"].ids) == 4 and cases["test_random_corpora_match_the_set_oracle"].drawn


def test_the_pitfalls_of_a_check_are_those_naming_it_then_those_its_kill_set_holds() -> None:
    found = pitfalls(BY_NAME["test_hand_example_three_documents"])
    assert [m.id for m in found.named] == ["s01"] and "s01" not in [m.id for m in found.also]


def test_a_number_that_names_no_check_is_one_line_and_exit_two(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tests", "15"]) == 2
    assert capsys.readouterr().err == "dedup-harness tests: no check 15: the checks are numbered 1 to 14\n"


@pytest.mark.parametrize("environment", ["as it is", "bare"])
def test_a_reader_that_leaves_early_gets_no_traceback(environment: str) -> None:
    """`dedup-harness tests 13 | head`: the pipe is closed before the command writes (``true`` reads nothing and
    is gone by then), and the command ends as SIGPIPE would end it, with nothing on stderr; also in a bare
    environment (``env -i``, a dumb terminal), where the whole output waits in the buffer for the last flush."""
    command = f"{shlex.quote(sys.executable)} -m dedup_harness.cli tests 13 | true"
    bare = {"PATH": os.environ["PATH"], "LANG": "C.UTF-8", "TERM": "dumb"}
    env = bare if environment == "bare" else None
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", command], capture_output=True, text=True, timeout=120, env=env
    )
    assert (done.returncode, done.stderr) == (128 + signal.SIGPIPE, "")
