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
        said = f"{check.number}. {check.name} ({check.kind}) asserts: {words(check.asserts)}"
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
