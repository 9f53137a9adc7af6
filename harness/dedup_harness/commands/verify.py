"""`dedup-harness verify`: the canary, both implementations and every mutant through the suite; the kill matrix.

Exit status: 0 when the reference and the external sort pass every check and every mutant fails the checks its catalogue
entry names (and nothing else is breached: the canary fails every check, every diff applies, no
mutant is broken, the committed kill matrix is current); 1 on any breach; 2 when verify itself
cannot run (a bad catalogue, a bad --target).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from dedup_harness.commands.arguments import count, seconds
from dedup_harness.commands.consoles import table_console
from dedup_harness.commands.extras import MissingExtra, require
from dedup_harness.commands.outputs import OutputError, Outputs, fail
from dedup_harness.commands.progress import Progress
from dedup_harness.core import profiles
from dedup_harness.core.catalogue import CatalogueError
from dedup_harness.core.kill_matrix import kill_matrix_text
from dedup_harness.core.runner.result import SuiteResult
from dedup_harness.verify.engine import verify
from dedup_harness.verify.matrix import BreachKind, Matrix, judge
from dedup_harness.verify.report import render_terminal, to_json, to_markdown
from dedup_harness.verify.spans import Span
from dedup_harness.verify.stryker import to_stryker
from dedup_harness.verify.targets import Layout, Target, check_root

HELP = "run the suite against the canary, the reference and every mutant; print the kill matrix"
WRITE_KILL_MATRIX = "--write-kill-matrix"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", metavar="FILE", help="write the kill matrix as JSON to FILE ('-' for stdout)")
    parser.add_argument(
        "--markdown",
        metavar="FILE",
        help="append a Markdown summary to FILE (as to $GITHUB_STEP_SUMMARY; - for stdout)",
    )
    parser.add_argument("--html", metavar="FILE", help="write the kill matrix as a self-contained HTML page to FILE")
    parser.add_argument("--stryker", metavar="FILE", help="write a Stryker mutation-testing report (schema 2) to FILE")
    parser.add_argument(
        "--target", metavar="ROOT", action="append", default=[], help="one more implementation root to run (repeatable)"
    )
    parser.add_argument(
        "--jobs", type=count, default=None, metavar="N", help="suite runs at a time (default: the CPU count)"
    )
    parser.add_argument(
        WRITE_KILL_MATRIX, action="store_true", help="write the measured kill sets to mutants/kill_matrix.json"
    )
    parser.add_argument(
        "--check-timeout",
        type=seconds,
        default=60.0,
        metavar="SECONDS",
        help="time limit for one case of a check (default: %(default)g)",
    )
    parser.add_argument(
        "--timeout",
        type=seconds,
        default=600.0,
        metavar="SECONDS",
        help="time limit for one target (default: %(default)g)",
    )
    parser.add_argument(
        "--profile",
        default=profiles.VERIFY,
        choices=profiles.NAMES,
        help="Hypothesis profile for the runs (default: %(default)s)",
    )


def run(args: argparse.Namespace, layout: Layout | None = None) -> int:
    layout = layout or Layout()
    with Outputs("verify") as outputs:
        try:
            if args.html:
                require("html", "--html")
            roots = tuple(check_root(Path(root)) for root in args.target)
            for option in ("--json", "--stryker", "--html"):
                outputs.file(option, getattr(args, option.lstrip("-")))
            outputs.appended("--markdown", args.markdown)
            outputs.file(WRITE_KILL_MATRIX, layout.kill_matrix_file if args.write_kill_matrix else None)
            matrix, spans = _run_with_progress(layout, roots, args)
        except (MissingExtra, CatalogueError, OutputError, ValueError, OSError) as exc:
            return fail("verify", exc)
        if args.write_kill_matrix:
            matrix = _write(matrix, layout, outputs)
        try:
            _report(matrix, args, spans, layout, outputs)
        except OutputError as exc:
            return fail("verify", exc)
    return 0 if matrix.ok else 1


def _run_with_progress(
    layout: Layout, roots: tuple[Path, ...], args: argparse.Namespace
) -> tuple[Matrix, dict[str, list[Span]]]:
    with Progress("verify") as progress:

        def started(targets: list[Target]) -> None:
            progress.phase("suite runs", total=len(targets))

        def done(target: Target, result: SuiteResult) -> None:
            progress.finished(f"{target.name} ({result.seconds:.1f}s)")

        return verify(
            layout,
            extra_roots=roots,
            jobs=args.jobs,
            profile=args.profile,
            check_timeout=args.check_timeout,
            timeout=args.timeout,
            on_start=started,
            on_done=done,
        )


def _write(matrix: Matrix, layout: Layout, outputs: Outputs) -> Matrix:
    """Write the measured kill sets (with the other outputs), unless a mutant could not be judged."""
    unjudged = (BreachKind.CANARY_SURVIVED, BreachKind.DIFF_DOES_NOT_APPLY, BreachKind.BROKEN_MUTANT)
    if any(b.kind in unjudged for b in matrix.breaches):
        print("verify: kill matrix not written: some mutant could not be judged (see the breaches)", file=sys.stderr)
        outputs.drop(WRITE_KILL_MATRIX)
        return matrix
    written, text = kill_matrix_text(matrix.kill_sets())
    outputs.put(WRITE_KILL_MATRIX, text)
    print(f"verify: writes {layout.kill_matrix_file}", file=sys.stderr)
    return judge(matrix.checks, matrix.rows, written)


def _report(
    matrix: Matrix, args: argparse.Namespace, spans: dict[str, list[Span]], layout: Layout, outputs: Outputs
) -> None:
    if args.json:
        outputs.put("--json", json.dumps(to_json(matrix), indent=2) + "\n")
    if args.markdown:
        outputs.put("--markdown", to_markdown(matrix))
    if args.html:
        from dedup_harness.verify import html  # matplotlib and Jinja2: imported only when a page is asked for

        outputs.put("--html", html.render(matrix))
    if args.stryker:
        outputs.put("--stryker", json.dumps(to_stryker(matrix, spans, layout.impl_root), indent=2) + "\n")
    outputs.commit()
    # The table is for people: on stdout, unless stdout carries a machine format.
    elsewhere = outputs.stdout
    console = table_console(stderr=elsewhere, log_width=120)
    render_terminal(matrix, console)
