"""Correct code that only the grader refuses, graded for real beside the correct sample: each lost check says why.

The samples in ``submissions/refused/`` are right on a student's machine: a pool hashes the
paragraphs (``pool_hashing``), the stats go to a local metrics daemon over UDP (``udp_metrics``),
the spool lives in a folder of its own under /tmp (``spool_in_tmp``). Each tier that runs here grades
the three, the socket sample sending one gauge at import as well (its import then fails), and
``samples/correct_plain.py`` in one batch, every output written: each check lost to a
refusal says first, in one sentence, what the grader refuses and what to do instead, in the terminal,
JSON, Gradescope, JUnit and HTML alike; the refused attempt is listed in each; the correct sample keeps
full marks. ``check``, on the student's own machine, refuses none of them and predicts each of these
grades (``test_check_predicts_grade.py``).

What each tier does with them: in every tier all three lose every check but the split's (``paragraphs()``
alone) to the refusal (a pool's semaphore under /dev/shm and a folder in /tmp are refused by Landlock,
or in the seccomp tier by the grader, which decides every file call there; the socket by the audit hook
and seccomp), and the one announcing itself at import loses every check. On a kernel where the seccomp
tier's grader cannot decide file calls (before Linux 5.14) /tmp is writable there, so ``spool_in_tmp``
is refused nothing and loses only the two checks that look for the spool under spool_dir; the pool gets
as far as starting its processes, which are refused.
"""

from __future__ import annotations

import html
import io
import json
import os
import re
import shutil
import xml.etree.ElementTree as ET
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from dedup_harness.cli import main
from dedup_harness.core.checks import CHECKS
from dedup_harness.grade import file_decisions
from dedup_harness.grade.rules import SENTENCES
from dedup_harness.grade.worker.categories import FILES, NETWORK, PROCESSES
from grading_support import tier_param

SUBMISSIONS = Path(__file__).resolve().parent / "submissions"
CORRECT = SUBMISSIONS / "samples" / "correct_plain.py"
REFUSED = {"pool_hashing": PROCESSES, "udp_metrics": NETWORK, "spool_in_tmp": FILES}
# How a check's feedback says it crashed on a refusal, in the check or in the import it needed.
CRASHED_ON_REFUSAL = ("PermissionError: ", "SubmissionBroken: the submission could not be imported: PermissionError: ")
AT_IMPORT = "udp_at_import"  # udp_metrics announcing itself once it is imported: a refusal at import time
ATTEMPT = {
    "pool_hashing": "tried to start a process (multiprocessing: a pool, a queue or a lock shared between processes)",
    "udp_metrics": "tried to reach the network: open a socket (AF_INET) (refused)",
    AT_IMPORT: "tried to reach the network: open a socket (AF_INET) (refused)",
    "spool_in_tmp": "tried to make a folder in /tmp",
}
SPOOL_CHECKS = ["test_the_spool_is_removed", "test_the_documents_are_spooled_not_held"]
SPLIT = "test_paragraph_split_rules"  # judges paragraphs() alone, which none of them makes refused
TIERS = ("bubblewrap", "unshare", "landlock", "seccomp")
OUTPUTS = ("--json", "g.json", "--gradescope", "gs", "--junit", "g.xml", "--html", "g.html")


def words(text: str) -> str:
    """``text`` with its whitespace made single spaces: the terminal wraps long lines where it likes."""
    return " ".join(text.split())


@dataclass
class Batch:
    tier: str
    status: int
    printed: str  # what the grader wrote on stdout and stderr
    folder: Path

    def output(self, name: str) -> str:
        return (self.folder / name).read_text(encoding="utf-8")

    def submission(self, name: str) -> dict[str, Any]:
        found = json.loads(self.output("g.json"))["submissions"]
        return next(s for s in found if Path(s["submission"]).name == name)

    @property
    def blind(self) -> bool:
        """The seccomp tier on a kernel where the grader cannot decide file calls: file modes alone."""
        return self.tier == "seccomp" and not file_decisions.works_here()

    def refused(self) -> dict[str, str]:
        """The samples refused something in this tier, and the category of each."""
        found = {name: c for name, c in REFUSED.items() if not (self.blind and name == "spool_in_tmp")}
        return {**found, AT_IMPORT: NETWORK}


@pytest.fixture(scope="module", params=[tier_param(tier) for tier in TIERS])
def batch(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Batch:
    tier: str = request.param
    folder = tmp_path_factory.mktemp(f"refused-{tier}")
    for name in [*REFUSED, "correct"]:
        (folder / name).mkdir()
        source = SUBMISSIONS / "refused" / f"{name}.py" if name in REFUSED else CORRECT
        shutil.copyfile(source, folder / name / "dedup.py")
    (folder / AT_IMPORT).mkdir()
    announcing = (SUBMISSIONS / "refused" / "udp_metrics.py").read_text(encoding="utf-8") + '\nreport({"loaded": 1})\n'
    (folder / AT_IMPORT / "dedup.py").write_text(announcing, encoding="utf-8")
    # Where the seccomp tier's grader cannot decide file calls it hides the harness by file modes only, which a
    # checkout readable by all does not: the preflight would refuse it. These samples are correct code, not attacks.
    unisolated = ["--unisolated"] if tier == "seccomp" and not file_decisions.works_here() else []
    printed = io.StringIO()
    cwd = Path.cwd()
    os.chdir(folder)
    try:
        with redirect_stdout(printed), redirect_stderr(printed):
            status = main(["grade", *REFUSED, AT_IMPORT, "correct", "--tier", tier, *unisolated, *OUTPUTS])
    finally:
        os.chdir(cwd)
    return Batch(tier, status, printed.getvalue(), folder)


def said(check: dict[str, Any]) -> list[str]:
    return [line for line in check["feedback"] if line in SENTENCES.values()]


def test_the_correct_sample_beside_them_keeps_full_marks(batch: Batch) -> None:
    assert batch.status == 0, batch.printed[-3000:]
    correct = batch.submission("correct")
    assert (correct["status"], correct["score"], correct["attempts"]) == ("graded", len(CHECKS), [])


def test_each_check_lost_to_a_refusal_says_first_what_the_grader_refuses(batch: Batch) -> None:
    for name, category in batch.refused().items():
        submission = batch.submission(name)
        passed = [check["name"] for check in submission["checks"] if check["outcome"] == "passed"]
        assert passed == ([] if name == AT_IMPORT else [SPLIT]), (name, submission["checks"])  # paragraphs() alone
        lost = [check for check in submission["checks"] if check["outcome"] != "passed"]
        for check in lost:
            crashed = any(f"it crashed: {start}" in line for line in check["feedback"] for start in CRASHED_ON_REFUSAL)
            assert said(check) == ([SENTENCES[category]] if crashed else []), (name, check)
            assert not crashed or check["feedback"][0] == SENTENCES[category], (name, check)
        if not batch.blind or name != "pool_hashing":  # there its refused forks leak descriptors: later crashes differ
            assert all(said(check) for check in lost), name


def test_the_sentence_comes_first_in_gradescope_junit_and_html(batch: Batch) -> None:
    page = words(html.unescape(re.sub(r"<[^>]+>", " ", batch.output("g.html"))))
    suites = {s.get("name"): s for s in ET.fromstring(batch.output("g.xml")).iter("testsuite")}
    for name, category in batch.refused().items():
        sentence = SENTENCES[category]
        assert f"{words(sentence)} This check asserts:" in page, name
        saying = [bool(said(check)) for check in batch.submission(name)["checks"]]  # as the JSON says it
        tests = json.loads(batch.output(f"gs/{name}/results.json"))["tests"]
        assert [t["output"].startswith(sentence) for t in tests] == saying, name
        messages = [detail.get("message") for detail in suites[name].iter("error")]
        assert messages.count(sentence) == saying.count(True), name


def test_the_refused_attempt_is_listed_in_every_format(batch: Batch) -> None:
    page = words(html.unescape(batch.output("g.html")))
    suites = {s.get("name"): s for s in ET.fromstring(batch.output("g.xml")).iter("testsuite")}
    for name in batch.refused():
        attempt = ATTEMPT[name]
        assert any(attempt in line for line in batch.submission(name)["attempts"]), name
        assert attempt in json.loads(batch.output(f"gs/{name}/results.json"))["output"], name
        assert attempt in suites[name].findtext("system-out", ""), name
        assert words(attempt) in page, name


def test_alone_in_the_strongest_tier_the_terminal_says_it_first_and_lists_the_attempt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The terminal shows a submission's feedback when it is graded alone (a batch prints its table). One sample
    is enough here: each category's sentence and attempt line in the terminal report are test_refused_words'."""
    name = "udp_metrics"
    shutil.copyfile(SUBMISSIONS / "refused" / f"{name}.py", tmp_path / "dedup.py")
    assert main(["grade", str(tmp_path / "dedup.py")]) == 0
    terminal = words(capsys.readouterr().out)
    assert f"{words(SENTENCES[REFUSED[name]])} This check asserts:" in terminal
    assert words(ATTEMPT[name]) in terminal


def test_the_tmp_spool_is_refused_and_where_it_cannot_be_fails_only_the_spool_checks(batch: Batch) -> None:
    """Where nothing refuses /tmp (the seccomp tier before Linux 5.14) the spool there works, and lies where the
    spool checks do not look."""
    submission = batch.submission("spool_in_tmp")
    lost = [check for check in submission["checks"] if check["outcome"] != "passed"]
    if not batch.blind:
        assert [c["feedback"][0] for c in lost] == [SENTENCES[FILES]] * (len(CHECKS) - 1)  # all but the split
        return
    assert [(c["name"], c["outcome"]) for c in lost] == [(name, "failed") for name in SPOOL_CHECKS]
    assert not [check for check in submission["checks"] if said(check)]
    assert "spool_dir" in lost[0]["feedback"][0] and "spool_dir held" in lost[1]["feedback"][0]
