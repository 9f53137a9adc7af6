"""A check that crashed on what the grader refuses says so first, from what the kernel or the hook recorded.

The categories come from where each refusal is described (the audit hook's notes, the kernel's
refusals: ``test_kernel_refusals``), travel with the events of the check that was running, and are
remembered for the later checks of the same worker, which say each refusal only once. The samples
graded for real are ``test_refused_samples``.
"""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from dedup_harness.core.checks import CHECKS
from dedup_harness.core.outcome import Outcome
from dedup_harness.core.paths import DATA_ROOT
from dedup_harness.grade.client.events import EventLog
from dedup_harness.grade.feedback import check_feedback
from dedup_harness.grade.grader import from_sidecar
from dedup_harness.grade.reports import gradescope, json_report, junit
from dedup_harness.grade.rules import SENTENCES
from dedup_harness.grade.worker.audit import AuditHook
from dedup_harness.grade.worker.categories import CATEGORIES, FILES, NETWORK, NONE, PROCESSES, SHARED_MEMORY, SIGNALS
from grade_fakes import OPTIONS, case, suite_result

NAME = "test_hand_example_three_documents"
DENIED = "PermissionError: [Errno 13] Permission denied (at synchronize.py:57 in __init__)"
SESSION = "/srv/session"  # the worker's own folders, as the hook is told them
STUDENTS_PAGE = DATA_ROOT / "docs" / "check.md"


@pytest.mark.parametrize(
    ("event", "args", "expected"),
    [
        ("socket.__new__", (None, 2, 2, 0), NETWORK),
        ("socket.getaddrinfo", ("example.org", 80, 0, 0, 0), NETWORK),
        ("socket.connect", (None, ("127.0.0.1", 8125)), NETWORK),
        ("os.fork", (), PROCESSES),
        ("subprocess.Popen", ("/bin/sh", ["sh"], None, None), PROCESSES),
        ("import", ("multiprocessing.synchronize", None, [], [], []), PROCESSES),
        ("import", ("multiprocessing.connection", None, [], [], []), PROCESSES),
        ("import", ("_posixshmem", None, [], [], []), SHARED_MEMORY),
        ("os.kill", (os.getpid() + 1, 15), SIGNALS),
        ("os.killpg", (1, 9), SIGNALS),
        ("open", ("/tmp/spool.jsonl", "w", os.O_WRONLY | os.O_CREAT), FILES),
        ("open", ("/home/alice/stopwords.txt", "r", os.O_RDONLY), FILES),
        ("os.mkdir", ("/tmp/dedup-spool-x1y2z3", 0o700, -1), FILES),
        ("os.remove", ("/var/tmp/old-spool",), FILES),
        ("ctypes.dlopen", ("libc.so.6",), NONE),
        ("import", ("pytest", None, [], [], []), NONE),
    ],
)
def test_each_note_of_the_hook_names_the_rule_it_met(event: str, args: tuple[Any, ...], expected: str) -> None:
    note = AuditHook(lambda *_: None, [SESSION]).judge(event, args)
    assert note is not None and note.category == expected, note


def test_a_folder_made_outside_is_noted_by_where_not_by_its_random_name() -> None:
    hook = AuditHook(lambda *_: None, [SESSION])
    note = hook.judge("os.mkdir", ("/tmp/dedup-spool-x1y2z3", 0o700, -1))
    assert note is not None and (note.text, note.refused) == ("tried to make a folder in /tmp", False)
    assert hook.judge("os.mkdir", (f"{SESSION}/home/spool-1", 0o700, -1)) is None


def test_a_refusal_in_one_check_is_remembered_for_the_later_checks_of_the_same_worker() -> None:
    """The hook and the kernel say a refusal once per worker: a pool refused in check 1 is refused, unsaid, in 2."""
    log = EventLog()
    log.new_worker()
    log.begin(CHECKS[0])
    log.record("attempt", "tried to start a process (os.fork) (refused)", category=PROCESSES)
    log.begin(CHECKS[1])
    log.begin(CHECKS[2])
    log.record("refused", "the kernel refused socket(AF_INET, SOCK_DGRAM): network (seccomp)", category=NETWORK)
    assert log.refused() == {CHECKS[0]: [PROCESSES], CHECKS[1]: [PROCESSES], CHECKS[2]: [NETWORK]}


def test_a_new_worker_starts_with_nothing_refused() -> None:
    log = EventLog()
    log.new_worker()
    log.record("attempt", "tried to reach the network: open a socket (AF_INET) (refused)", category=NETWORK)
    log.new_worker()  # after a fault: a fresh incarnation
    log.begin(CHECKS[0])
    assert log.refused() == {"(before the checks)": [NETWORK]}


def test_a_refusal_said_again_by_a_new_worker_is_listed_once_and_counted_for_both_checks() -> None:
    log = EventLog()
    words = "the kernel refused clone() of a new process: new processes or namespaces (seccomp)"
    for check in CHECKS[:2]:
        log.new_worker()
        log.begin(check)
        log.record("refused", words, category=PROCESSES)
    log.record("attempt", "used ctypes (ctypes.dlopen)")  # no category: not one of the rules
    assert [e.detail for e in log.events if e.kind == "refused"] == [words]
    assert log.refused() == {CHECKS[0]: [PROCESSES], CHECKS[1]: [PROCESSES]}


@pytest.mark.parametrize(
    ("outcome", "said", "raised", "sentence"),
    [
        (Outcome.ERROR, DENIED, "PermissionError", True),
        (
            Outcome.ERROR,
            "PermissionError: [Errno 1] refused by the grading sandbox (a process)",
            "PermissionError",
            True,
        ),
        (Outcome.ERROR, "IndexError: list index out of range (at dedup.py:40 in run)", "IndexError", False),
        (
            Outcome.ERROR,
            "SubmissionBroken: could not be imported: PermissionError: [Errno 1] x",
            "PermissionError",
            True,
        ),
        (Outcome.ERROR, "SubmissionBroken: could not be imported: ValueError: bad B", "ValueError", False),
        (Outcome.ERROR, "RuntimeError: PermissionError: forged by the submission", "RuntimeError", False),
        (Outcome.FAILED, "PermissionError: the spool should live under spool_dir", "VerdictFailed", False),
    ],
    ids=[
        "Landlock's EACCES",
        "the hook's EPERM",
        "a bug of its own",
        "a refusal at import",
        "an import that failed otherwise",
        "another error",
        "a failed assertion",
    ],
)
def test_the_sentence_comes_only_with_a_crash_on_the_error_a_refusal_raises(
    outcome: Outcome, said: str, raised: str, sentence: bool
) -> None:
    """Whether the case crashed on a refusal is the recorder's ``raised`` field, never the words of the error."""
    feedback = check_feedback(NAME, outcome, [{**case(NAME, outcome, said), "raised": raised}], refused=[PROCESSES])
    assert feedback is not None
    assert feedback.refused == ((SENTENCES[PROCESSES],) if sentence else ())


def test_the_sentences_come_first_one_per_category_in_a_fixed_order() -> None:
    feedback = check_feedback(NAME, Outcome.ERROR, [case(NAME, Outcome.ERROR, DENIED)], refused=[FILES, NETWORK])
    assert feedback is not None
    assert feedback.lines[:2] == (SENTENCES[NETWORK], SENTENCES[FILES])
    lines = feedback.text().splitlines()
    assert lines[:2] == [SENTENCES[NETWORK], SENTENCES[FILES]] and lines[2].startswith("This check asserts:")


def test_every_category_has_one_sentence_saying_check_allows_it_and_what_to_do_instead() -> None:
    assert set(SENTENCES) == set(CATEGORIES)
    for sentence in SENTENCES.values():
        assert sentence.count(". ") == 0 and sentence.endswith(".")
        assert "`dedup-harness check` on your own machine allows them;" in sentence


def test_every_report_says_the_sentence_first_for_the_check_that_crashed() -> None:
    data = {
        "static": [],
        "events": [{"check": CHECKS[1], "kind": "attempt", "detail": "tried to make a folder in /tmp"}],
        "refused": {CHECKS[1]: [FILES], CHECKS[2]: [FILES]},
        "protections": {"tier": "landlock"},
        "student_output": "",
    }
    outcomes = {CHECKS[1]: Outcome.ERROR, CHECKS[2]: Outcome.ERROR}
    cases = {name: [case(name, Outcome.ERROR, DENIED)] for name in outcomes}
    cases[CHECKS[2]] = [case(CHECKS[2], Outcome.ERROR, "ValueError: a bug of its own")]
    graded = from_sidecar("eve/dedup.py", suite_result(outcomes, cases), OPTIONS, data, [])
    checks = json.loads(json_report.render([graded], {}))["submissions"][0]["checks"]
    assert checks[1]["feedback"][0] == SENTENCES[FILES]
    assert SENTENCES[FILES] not in checks[2]["feedback"]
    assert gradescope.results(graded)["tests"][1]["output"].startswith(SENTENCES[FILES])
    failures = ET.fromstring(junit.render([graded])).iter("error")
    assert next(f.get("message") for f in failures) == SENTENCES[FILES]


@pytest.mark.skipif(not STUDENTS_PAGE.is_file(), reason="docs/ lives in a checkout, not in an installed wheel")
def test_the_students_page_quotes_each_sentence_as_the_feedback_says_it() -> None:
    page = STUDENTS_PAGE.read_text(encoding="utf-8")
    for sentence in SENTENCES.values():
        assert f" | {sentence} |" in page, sentence


def test_an_attempt_every_lost_check_crashed_on_is_said_to_be_every_checks_not_the_first_ones() -> None:
    """The hook notes a refusal once per worker, so it arrives in one check; every check it lost met the rule."""
    lost = CHECKS[:2]
    data = {
        "static": [],
        "events": [{"check": lost[1], "kind": "attempt", "detail": "tried to start a process", "category": PROCESSES}],
        "refused": {check: [PROCESSES] for check in lost},
        "protections": {},
        "student_output": "",
    }
    cases = {name: [case(name, Outcome.ERROR, DENIED)] for name in lost}
    graded = from_sidecar("eve/dedup.py", suite_result(dict.fromkeys(lost, Outcome.ERROR), cases), OPTIONS, data, [])
    assert graded.attempts == ["worker's hook: tried to start a process (every check it lost)"]
    data["refused"] = {lost[1]: [PROCESSES]}  # the first check lost to something else
    graded = from_sidecar("eve/dedup.py", suite_result(dict.fromkeys(lost, Outcome.ERROR), cases), OPTIONS, data, [])
    assert graded.attempts == [f"worker's hook: tried to start a process ({lost[1]})"]
