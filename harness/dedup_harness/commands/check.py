"""``dedup-harness check [PATH]``: a student runs the checks on their own ``dedup.py``, with grade's report.

PATH is a ``dedup.py`` or a folder holding one (by default ``./dedup.py``, else ``./corpus/dedup.py``).
It runs as ``grade`` does (the reference's doc, hashing and filter beside the student's dedup.py;
the same checks, scores, minimal failing cases and words) but in-process, with no sandbox: it is
their own code on their own machine. An import grade would refuse (anything but the standard
library, ``corpus`` and the packages ``--allow`` names) is listed among the problems. Exit status
0 when every check passes and grade would refuse nothing, 1 otherwise, 2 when there is nothing to check.
"""

from __future__ import annotations

import argparse
import functools
from pathlib import Path

from rich.console import Console

from dedup_harness.check.plugin import REFUSED_BY_GRADE, plugin_args
from dedup_harness.commands.arguments import add_allow
from dedup_harness.commands.grade import diagnoser
from dedup_harness.commands.outputs import OutputError, Outputs, fail
from dedup_harness.core.provenance import here
from dedup_harness.grade.grader import GradingOptions, grade
from dedup_harness.grade.reports import json_report, terminal
from dedup_harness.grade.reports.csv_report import row
from dedup_harness.grade.reports.model import Status
from dedup_harness.grade.reports.summary import summarize
from dedup_harness.grade.scoring import equal_weights

HELP = "run the checks on your own dedup.py (./dedup.py or ./corpus/dedup.py by default), with grade's report"
DEFAULTS = (Path("dedup.py"), Path("corpus") / "dedup.py")


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


def run(args: argparse.Namespace) -> int:
    path = Path(args.path) if args.path else next((p for p in DEFAULTS if p.is_file()), None)
    if path is None:
        return fail("check", "no ./dedup.py or ./corpus/dedup.py here: name your dedup.py (or its folder)")
    if not path.exists():
        return fail("check", f"no such file or folder: {path}")
    with Outputs("check") as outputs:
        try:
            outputs.file("--json", args.json)
            own = functools.partial(plugin_args, allowed=args.allow)
            report = grade(path, GradingOptions(equal_weights(), diagnoser()), name=str(path), in_process=own)
            if args.json:
                outputs.put("--json", json_report.render([report], summarize([row(report, "1/1")])))
            outputs.commit()
        except OutputError as exc:
            return fail("check", exc)
    console = Console(stderr=outputs.stdout, soft_wrap=False)
    terminal.print_report(console, report, show_student_output=True, show_protections=False)
    console.print(f"checked by {here().line()}", style="dim")
    if report.status is Status.HARNESS_ERROR:
        return 2
    refused = any(REFUSED_BY_GRADE in problem for problem in report.problems)  # grade would give it nothing
    return 0 if report.score == report.max_score and not refused else 1
