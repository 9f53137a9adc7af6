"""`dedup-harness mutation`: mutmut over the reference in a scratch copy; score, timeouts, survivors.

Exit status: 0 when every mutant the suite does not kill is listed as a reviewed equivalent; 1 when a
survivor is not listed (its diff and a ready-to-paste entry are printed) or a re-run could not be
judged; 2 when the measurement itself failed (mutmut missing or failing, outputs that do not add up,
an unreadable equivalents file).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

from rich.console import Console

from dedup_harness.commands.arguments import count
from dedup_harness.commands.extras import MissingExtra, require
from dedup_harness.commands.outputs import OutputError, Outputs, fail
from dedup_harness.commands.progress import Progress
from dedup_harness.core import scratch_dirs
from dedup_harness.core.paths import TESTS_DIR
from dedup_harness.mutation.equivalents import EquivalentsError, load_equivalents
from dedup_harness.mutation.measure import Measurement, MutationReport, measure
from dedup_harness.mutation.mutmut_cli import MutationError
from dedup_harness.mutation.report import render_terminal, to_json

HELP = "run mutmut over the reference in a scratch copy; print the score and every unreviewed survivor"
EQUIVALENTS_FILE = TESTS_DIR / "mutation_equivalents.toml"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", metavar="FILE", help="write the report as JSON to FILE ('-' for stdout)")
    parser.add_argument(
        "--equivalents",
        metavar="FILE",
        type=Path,
        default=EQUIVALENTS_FILE,
        help="the reviewed equivalent mutants (default: the suite's tests/mutation_equivalents.toml)",
    )
    parser.add_argument(
        "--max-children",
        type=count,
        default=os.cpu_count() or 1,
        metavar="N",
        help="mutants run at a time (default: the CPU count)",
    )


def run(args: argparse.Namespace) -> int:
    try:
        require("mutation", "mutation testing")
    except MissingExtra as exc:
        return fail("mutation", exc)
    with Outputs("mutation") as outputs:
        try:
            outputs.file("--json", args.json)
            equivalents = load_equivalents(args.equivalents)
            with tempfile.TemporaryDirectory(prefix=scratch_dirs.prefix("mutation")) as scratch:
                report = _measure_with_progress(Measurement(Path(scratch), equivalents, args.max_children))
            _report(report, args, outputs)
        except (EquivalentsError, MutationError, OutputError, OSError) as exc:
            return fail("mutation", exc)
    return 0 if report.ok else 1


def _measure_with_progress(measurement: Measurement) -> MutationReport:
    with Progress("mutation") as progress:

        def update(phase: str, done: int | None, total: int | None) -> None:
            if phase != progress.description:
                progress.phase(phase, total=total)
            if done is not None:
                progress.set_count(done, total)

        measurement.progress = update
        return measure(measurement)


def _report(report: MutationReport, args: argparse.Namespace, outputs: Outputs) -> None:
    if args.json:
        outputs.put("--json", json.dumps(to_json(report), indent=2) + "\n")
    outputs.commit()
    # The summary is for people: on stdout, unless stdout carries the JSON.
    render_terminal(report, Console(stderr=outputs.stdout))
