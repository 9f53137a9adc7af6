"""The README's first screen is where people start: the two set-up commands, then grading, then checking.

It is held to what it promises: the two commands come first and `.ci/run` runs the test command exactly;
a TA meets `grade` on the first screen with the preflight, the exit statuses, the Gradescope bundle and a
weights file; a student meets `check` with an install command that names no placeholder; every other
command has its line and its page; and the whole stays a five-minute read.
"""

from __future__ import annotations

import re

import pytest

from dedup_harness.cli import COMMANDS
from dedup_harness.core.paths import DATA_ROOT

README = DATA_ROOT / "README.md"
FENCE = re.compile(r"```(?:sh)?\n(.*?)```", re.S)
FIRST_SCREEN = 60  # lines: what a terminal or a repository page shows before scrolling far
WORDS_IN_FIVE_MINUTES = 1400  # at about 250 words a minute, code blocks included

pytestmark = pytest.mark.skipif(
    not README.is_file(), reason="the README lives in a checkout, not in an installed wheel"
)


# The tests in parallel, a module (with its module-wide fixtures) to each process: twice as fast on two cores.
TEST_COMMAND = "pip install -e '.[test]' && pytest -n auto --dist loadscope"


def text() -> str:
    return README.read_text(encoding="utf-8")


def test_the_first_two_code_blocks_are_the_two_set_up_commands() -> None:
    install_and_verify, install_and_test = (block.strip() for block in FENCE.findall(text())[:2])
    assert install_and_verify == "pip install '.[staff]' && dedup-harness verify"
    assert install_and_test == TEST_COMMAND


def test_ci_runs_the_readmes_test_command_exactly() -> None:
    ci = (DATA_ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert TEST_COMMAND in ci
    assert any(line.strip().startswith("pytest -m slow") for line in ci), "the slow tests run in CI too"


def test_a_ta_finds_grade_the_preflight_and_the_exit_status_on_the_first_screen() -> None:
    first = "\n".join(text().splitlines()[:FIRST_SCREEN])
    for phrase in (
        "dedup-harness grade ",
        "--csv",
        "--html",
        "preflight (",
        "apt-get install bubblewrap",
        "Exit status",
    ):
        assert phrase in first, f"{phrase!r} is not on the README's first {FIRST_SCREEN} lines"


def test_the_gradescope_bundle_and_a_weights_file_follow_grading() -> None:
    readme = text()
    grading = readme.index("## Grade")
    for phrase in ("gradescope-bundle autograder.zip", "[weights]", "total = "):
        assert readme.index(phrase) > grading


def test_a_student_installs_with_a_real_command_and_meets_the_chapters_four() -> None:
    readme = text()
    student = readme[readme.index("## For a student") :]
    for command in ("student-kit", "start", "tests", "check", "diff"):
        assert f"dedup-harness {command}" in student, command
    assert "<" not in student.split("```sh")[1].split("```")[0], "the install command holds a placeholder"


def test_every_command_has_its_line_and_its_page() -> None:
    readme = text()
    for command in COMMANDS:
        name = command.replace("_", "-")
        assert f"dedup-harness {name}" in readme or f"[`{name}`](docs/" in readme, f"{name} is not in the README"


def test_the_readme_is_a_five_minute_read() -> None:
    words = len(text().split())
    assert words <= WORDS_IN_FIVE_MINUTES, f"the README has {words} words"


def test_no_figure_is_left_as_a_placeholder() -> None:
    """Every time the README quotes was measured: no NAME_MINUTES or NAME_SECONDS stands in for one."""
    assert not re.findall(r"\b[A-Z]+_(?:MINUTES|SECONDS)\b", text())
