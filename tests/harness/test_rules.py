"""The rulebook (``grade/rules.toml``) is the one home of what a stage may do: the worker's limits, ``check``'s and the
page are read from it, so a rule changed there is a rule changed in all three."""

from __future__ import annotations

import dataclasses
import resource
import subprocess
import sys
import types

import pytest

from dedup_harness.check import rules_here
from dedup_harness.cli import main
from dedup_harness.core.paths import DOCS_DIR
from dedup_harness.grade import rules
from dedup_harness.grade.sandbox import Limits
from dedup_harness.grade.sandbox.limits import WORKER_FILES, WORKER_TASKS
from dedup_harness.grade.sandbox.protections import WORKER_ENV


@pytest.mark.parametrize(("rule", "value"), [("open_files", 7), ("threads", 5), ("call_seconds", 3)])
def test_a_rule_changed_in_the_book_is_what_the_worker_check_and_the_page_follow(
    monkeypatch: pytest.MonkeyPatch, rule: str, value: int
) -> None:
    monkeypatch.setitem(rules.LIMITS, rule, dataclasses.replace(rules.LIMITS[rule], value=value))
    worker = Limits()
    assert {"open_files": worker.open_files - WORKER_FILES, "threads": worker.tasks - WORKER_TASKS,
            "call_seconds": worker.call_seconds}[rule] == value  # fmt: skip
    assert f"| {rule.replace('_', ' ')} | {value} {rules.LIMITS[rule].unit}:" in rules.page()
    if rule == "open_files":
        here = rules_here.limits_here()[resource.RLIMIT_NOFILE]
        monkeypatch.setitem(rules.LIMITS, rule, dataclasses.replace(rules.LIMITS[rule], value=value + 2))
        assert rules_here.limits_here()[resource.RLIMIT_NOFILE] == here + 2
    if rule == "call_seconds":
        clock = rules_here.Clock()
        assert clock.timed("f()", lambda: signal_left()) <= value


def signal_left() -> float:
    import signal

    return signal.getitimer(signal.ITIMER_REAL)[0]


def test_the_page_is_the_books_and_tests_rules_prints_it(capsys: pytest.CaptureFixture[str]) -> None:
    page = DOCS_DIR / "rules.md"
    if not page.is_file():
        pytest.skip("docs/ lives in a checkout")
    assert page.read_text(encoding="utf-8") == rules.page(), "python -m dedup_harness.grade.rules docs/rules.md"
    assert main(["tests", "--rules"]) == 0 and capsys.readouterr().out == rules.page()


# Where a page other than rules.md writes a rule's number by hand, for a reader who should not need rules.md
# open beside it: each phrase, written here from the rulebook, must be on its page, so a rule changed in
# rules.toml fails this test until the pages say the same. (The stub `start` writes names no rule's number.)
SAID_BY_HAND = {
    "README.md": ["its `--budget` of worker seconds ({submission_seconds} by default:"],
    "docs/check.md": ["grade stops it past {disk_mb} MiB"],
    "docs/grade.md": [
        "the report keeps its first {output_kb} KiB",
        "`--budget` seconds of its worker's time ({submission_seconds} by default), and each call of its module "
        "{call_seconds} s",
        '("the submission used up its {submission_seconds} s of worker time")',
        "200 \u00d7 {submission_seconds} ÷ 2 = {batch:,} s ({hours} h {minutes} min)",
        "(default {submission_seconds}; above)",
    ],
}


def test_a_rules_number_a_page_writes_by_hand_is_the_books() -> None:
    if not (DOCS_DIR / "grade.md").is_file():
        pytest.skip("docs/ lives in a checkout")
    values = {name: limit.value for name, limit in rules.LIMITS.items()}
    values["batch"] = 200 * values["submission_seconds"] // 2  # grade.md's worst case: 200 submissions on two cores
    values.update(hours=values["batch"] // 3600, minutes=values["batch"] % 3600 // 60)
    for page, phrases in SAID_BY_HAND.items():
        text = " ".join((DOCS_DIR.parent / page).read_text(encoding="utf-8").split())
        for phrase in phrases:
            assert phrase.format(**values) in text, f"{page} says a rule's number other than the rulebook's"


def test_the_page_check_catches_a_rule_changed_in_the_book_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(rules.LIMITS, "disk_mb", dataclasses.replace(rules.LIMITS["disk_mb"], value=300))
    with pytest.raises(AssertionError, match=r"docs/check\.md says a rule's number"):
        test_a_rules_number_a_page_writes_by_hand_is_the_books()


def test_every_refusal_the_worker_names_has_its_words_in_the_book() -> None:
    assert set(rules.SENTENCES) == set(rules.SHORT) == set(rules.BOOK["refused"])


def test_the_worker_runs_under_the_books_user_name() -> None:
    """getpass.getuser() reads LOGNAME first: honest code that asks its user name gets the rulebook's."""
    assert WORKER_ENV["USER"] == WORKER_ENV["LOGNAME"] == rules.USER
    code = "import getpass; print(getpass.getuser())"
    done = subprocess.run([sys.executable, "-I", "-c", code], env=WORKER_ENV, capture_output=True, text=True)
    assert done.stdout.strip() == rules.USER


def test_a_call_past_the_books_seconds_ends_as_a_timeout_in_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same clock as grade's worker: the call's seconds, then the submission's budget, summed over calls."""
    monkeypatch.setitem(rules.LIMITS, "call_seconds", dataclasses.replace(rules.LIMITS["call_seconds"], value=1))
    clock = rules_here.Clock()
    with pytest.raises(rules_here.CallTimeout, match=r"paragraphs\(\) did not answer within 1 s"):
        clock.timed("paragraphs()", lambda: spin(3.0))
    clock.left = 0.0
    with pytest.raises(
        rules_here.CallTimeout, match=f"used up its {rules.value('submission_seconds')} s of worker time"
    ):
        clock.timed("paragraphs()", lambda: None)


def test_after_a_timeout_check_imports_the_module_anew_as_grade_starts_a_new_worker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A stage slow in its first call of each process times out in every check, in check as in grade (13/14 in
    check and 0/14 in grade, when check kept the module that had already paid its first call)."""
    monkeypatch.setitem(rules.LIMITS, "call_seconds", dataclasses.replace(rules.LIMITS["call_seconds"], value=0.2))
    loads = []

    def load() -> types.SimpleNamespace:
        loads.append(len(loads))
        first = [True]

        def paragraphs(text: str) -> list[str]:
            if first.pop() if first else False:
                spin(0.5)
            return [text]

        return types.SimpleNamespace(paragraphs=paragraphs)

    module = rules_here.Timed(load)
    for _ in range(2):
        with pytest.raises(rules_here.CallTimeout):
            module.paragraphs("a")
    assert loads == [0, 1]  # the second call met a module of its own, slow again


def spin(seconds: float) -> None:
    import time

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass
