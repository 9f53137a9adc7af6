"""`dedup-harness mutation`: mutmut over the reference in a scratch copy; score, timeouts, survivors.

Exit status: 0 when every mutant the suite does not kill is listed as a reviewed equivalent; 1 when a
survivor is not listed (its diff and a ready-to-paste entry are printed) or a re-run could not be
judged; 2 when the measurement itself failed (mutmut missing or failing, outputs that do not add up,
an unreadable equivalents file).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import tempfile
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from dedup_harness.equivalents import EquivalentsError, load_equivalents
from dedup_harness.mutation import Measurement, MutationError, MutationReport, measure
from dedup_harness.mutation_report import render_terminal, to_json
from dedup_harness.paths import TESTS_DIR

HELP = "run mutmut over the reference in a scratch copy; print the score and every unreviewed survivor"
EQUIVALENTS_FILE = TESTS_DIR / "mutation_equivalents.toml"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--json",
        metavar="FILE",
        nargs="?",
        const="-",
        help="write the report as JSON to FILE (stdout when FILE is left out or '-')",
    )
    parser.add_argument(
        "--equivalents",
        metavar="FILE",
        type=Path,
        default=EQUIVALENTS_FILE,
        help="the reviewed equivalent mutants (default: the suite's tests/mutation_equivalents.toml)",
    )
    parser.add_argument(
        "--max-children", type=int, default=os.cpu_count() or 1, help="mutants run at a time (default: the CPU count)"
    )


def run(args: argparse.Namespace) -> int:
    err = Console(stderr=True)
    if importlib.util.find_spec("mutmut") is None:
        print("mutation: mutmut is not installed; `pip install 'mutmut>=3.8,<4'`", file=sys.stderr)
        return 2
    if args.max_children < 1:
        print(f"mutation: --max-children must be at least 1, got {args.max_children}", file=sys.stderr)
        return 2
    try:
        equivalents = load_equivalents(args.equivalents)
        with tempfile.TemporaryDirectory(prefix="dedup-harness-mutation-") as scratch:
            report = _measure_with_progress(Measurement(Path(scratch), equivalents, args.max_children), err)
    except (EquivalentsError, MutationError, OSError) as exc:
        print(f"mutation: {exc}", file=sys.stderr)  # plain: a path in the message must not be wrapped
        return 2
    _report(report, args)
    return 0 if report.ok else 1


def _measure_with_progress(measurement: Measurement, err: Console) -> MutationReport:
    columns = (
        TextColumn("mutation"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
    )
    with Progress(*columns, console=err, transient=True) as progress:
        task = progress.add_task("starting mutmut", total=None)

        phases: list[str] = []

        def update(phase: str, done: int | None, total: int | None) -> None:
            progress.update(task, description=phase, completed=done or 0, total=total)
            if not err.is_terminal and phase not in phases:  # a log gets one line per phase
                phases.append(phase)
                err.print(f"mutation: {phase}", markup=False, highlight=False)

        measurement.progress = update
        return measure(measurement)


def _report(report: MutationReport, args: argparse.Namespace) -> None:
    to_stdout = args.json == "-"
    if args.json:
        text = json.dumps(to_json(report), indent=2) + "\n"
        if to_stdout:
            sys.stdout.write(text)
        else:
            Path(args.json).write_text(text, encoding="utf-8")
    # The summary is for people: on stdout, unless stdout carries the JSON.
    render_terminal(report, Console(stderr=to_stdout))
