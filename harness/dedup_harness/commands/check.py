"""``dedup-harness check [PATH]``: a student runs the checks on their own ``dedup.py``, with grade's report.

PATH is a ``dedup.py`` or a folder holding one (by default ``./dedup.py``, else ``./corpus/dedup.py``).
It grades as ``grade`` does, in-process and with no sandbox (``check/run.py``), with the modules grade uses
(the student's own ``doc``, ``hashing`` and ``bloom`` only in a kit built ``--own-deps``; else the first line says
theirs are set aside, and check tells what they would give); what grade refuses is said in grade's words and
scored so. docs/check.md has the exit statuses and what a kit built ``--holds-back`` promises.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from dedup_harness.check.run import HOLDS_BACK_WORDS, NO_PITFALL_NAMES, UNFORESEEN_WORDS, check_submission
from dedup_harness.commands.arguments import add_allow
from dedup_harness.commands.outputs import OutputError, Outputs, fail
from dedup_harness.core.impl_roots import student_file
from dedup_harness.core.paths import HOLDS_BACK, OWN_DEPS
from dedup_harness.core.provenance import here
from dedup_harness.grade import submitted_files
from dedup_harness.grade.reports import json_report, terminal
from dedup_harness.grade.reports.summary import Outline, summarize
from dedup_harness.grade.submitted_files import SubmissionError

HELP = "run the checks on your own dedup.py (./dedup.py or ./corpus/dedup.py by default), with grade's report"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "path",
        nargs="?",
        metavar="PATH",
        help="your dedup.py, or a folder holding one (default: ./dedup.py, else ./corpus/dedup.py)",
    )
    parser.add_argument(
        "--json", metavar="FILE", help="also write the report as JSON to FILE ('-' for stdout; see docs/reports.md)"
    )
    add_allow(parser, "as grade's --allow; any other import is said, since grade refuses it")
    parser.add_argument("--ref-deps", action="store_true", help=REF_DEPS_HELP)


def run(args: argparse.Namespace) -> int:
    path = Path(args.path) if args.path else student_file(Path("."))
    if path is None:
        return fail("check", "no ./dedup.py or ./corpus/dedup.py here: name your dedup.py (or its folder)")
    if not path.exists():
        return fail("check", f"no such file or folder: {path}")
    path, refused_upload = code_of(path)
    predicts_no_grade = args.ref_deps and OWN_DEPS  # the course's modules here, the student's own in grade
    with Outputs("check") as outputs:
        try:
            outputs.file("--json", args.json)
            checked = check_submission(path, allowed=args.allow, own_deps=OWN_DEPS and not args.ref_deps)
            report = checked.report
            if args.json:
                outputs.put("--json", json_report.render([report], summarize([Outline.of(report)])))
            outputs.commit()
        except OutputError as exc:
            return fail("check", exc)
    console = Console(stderr=outputs.stdout, soft_wrap=False)
    terminal.print_report(console, report, show_student_output=True, show_protections=False)
    if checked.with_own:
        terminal.say(console, f"{WITH_OWN}: {checked.with_own}", "yellow")
    if report.failed() and not checked.names_pitfalls:
        terminal.say(console, NO_PITFALL_NAMES, "yellow")
    if HOLDS_BACK:  # the kit says its course grades on cases of its own: exit 0 promises the public ones alone
        terminal.say(console, HOLDS_BACK_WORDS, "yellow")
    if checked.unforeseen:
        terminal.say(console, UNFORESEEN_WORDS.format(site=checked.unforeseen[0]), "yellow")
    if refused_upload:
        terminal.say(console, f"{UPLOAD_REFUSED}: {refused_upload}", "yellow")
    if predicts_no_grade:
        terminal.say(console, REF_DEPS_WORDS, "yellow")
    console.print(f"checked by {here().line()}", style="dim")
    return max(checked.exit_status(), 1 if refused_upload or predicts_no_grade else 0)


REF_DEPS_HELP = (
    "use the course's doc, hashing and bloom, even where your course grades with your own (to check dedup.py "
    "before your earlier modules pass; the exit status is then 1, since grade uses yours)"
)
REF_DEPS_WORDS = "--ref-deps: this ran with the course's modules, and grade uses yours: it predicts no grade (exit 1)"
WITH_OWN = "grade uses the course's doc, hashing and bloom, as above; with your own corpus/ modules"
UPLOAD_REFUSED = "the checks above ran on its dedup.py; uploaded as it is, the folder gets 0 from grade"


def code_of(path: Path) -> tuple[Path, str]:
    """The file to check, and why grade would refuse ``path`` as an upload ("" when it would not).

    A project folder often holds what no upload may (a .venv's links): grade refuses the folder whole,
    so check says so, and runs the checks on the folder's dedup.py all the same (with its corpus/)."""
    if not path.is_dir():
        return path, ""
    try:
        submitted_files.find(path)
    except SubmissionError as refused:
        found = student_file(path)
        return (found, str(refused)) if found is not None else (path, "")
    return path, ""
