"""``dedup-harness grade PATH...``: grade submissions; one report each and a batch summary (docs/grade.md).

Before any submission: the tier is chosen, the allowed packages copied for the workers
(``grade/sandbox/packages.py``), and the preflight (``grade/preflight.py``) run through them; a
failure of either, or a tier that does not isolate without ``--unisolated``, stops the run (exit 2).
The batch then grades ``--jobs`` at a time, or fewer where the machine has no room to keep them
apart (``grade/sandbox/room.py``), saying so on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import sys
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path

from rich.console import Console

from dedup_harness.check.stub import stub_source
from dedup_harness.commands import arguments
from dedup_harness.commands.arguments import SeedError, add_allow, add_hidden_seed, count, hidden_seed, seconds, share
from dedup_harness.commands.extras import MissingExtra, require
from dedup_harness.commands.outputs import OutputError, Outputs, fail
from dedup_harness.commands.progress import Progress
from dedup_harness.core.provenance import here
from dedup_harness.core.runner import start_fork_server
from dedup_harness.distribution.batch_identity import BatchIdentity, identify
from dedup_harness.distribution.shards import ALL, ShardError, keyed_rows, parse_shard
from dedup_harness.grade import rules, similarity
from dedup_harness.grade.batch import default_jobs, grade_batch
from dedup_harness.grade.diagnosis import Diagnoser, load_diagnoser, no_diagnoser
from dedup_harness.grade.grader import GradingOptions
from dedup_harness.grade.preflight import Preflight, preflight
from dedup_harness.grade.reports import csv_report, gradescope, harmless, json_report, junit, markdown, names, terminal
from dedup_harness.grade.reports.model import GradeReport, Status
from dedup_harness.grade.reports.summary import Outline, summarize
from dedup_harness.grade.sandbox import Limits, room
from dedup_harness.grade.sandbox.interpreter import Interpreter, InterpreterError, ask
from dedup_harness.grade.sandbox.packages import PackagesError, provided
from dedup_harness.grade.sandbox.tiers import AUTO, SetupError, Tier, WorkerSetup, weaker, worker_setup
from dedup_harness.grade.sandbox.users import worker_uid
from dedup_harness.grade.scoring import WeightsError, equal_weights, load_weights, out_of

HELP = "grade submissions (a dedup.py, or a folder holding one): reports, scores, a batch summary"
HARNESS_ERROR = 2
# The suite's own seconds beside a submission's budget (its checks make their inputs and judge what came back,
# untimed): the default --timeout is the budget and these.
SUITE_SECONDS = 180.0
UNGRADABLE_COSTS_ATTEMPT = "with --prairielearn: what does not compile or import scores 0, costing an attempt"
# What stops a run before any work, each in one line.
BEFORE_ANY_WORK = (
    SeedError,
    MissingExtra,
    WeightsError,
    ShardError,
    OutputError,
    SetupError,
    InterpreterError,
    PackagesError,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="a dedup.py file, or a folder holding one")
    parser.add_argument("--weights", type=Path, metavar="FILE", help="points per check (TOML); equal by default")
    parser.add_argument("--json", metavar="FILE", help="write every report and the summary as JSON ('-': stdout)")
    parser.add_argument(
        "--gradescope",
        type=Path,
        metavar="DIR",
        help="write Gradescope's results.json into DIR; for several submissions, one folder each, named after the "
        "submission's path with every character but letters, digits, '-', '_' and '.' made '_' "
        "(alice/dedup.py -> DIR/alice_dedup.py/results.json), and a digest of the path added where two would "
        "share a name (docs/reports.md)",
    )
    parser.add_argument("--prairielearn", type=Path, metavar="DIR", help="write PrairieLearn's results.json into DIR")
    parser.add_argument("--prairielearn-ungradable-costs-attempt", action="store_true", help=UNGRADABLE_COSTS_ATTEMPT)
    parser.add_argument(
        "--html", metavar="FILE", help="write the batch as one self-contained HTML page to FILE (plots, feedback)"
    )
    parser.add_argument("--junit", metavar="FILE", help="write JUnit XML to FILE ('-' for stdout)")
    parser.add_argument(
        "--markdown",
        metavar="FILE",
        help="append the batch summary (the class by what went wrong) as Markdown to FILE, e.g. $GITHUB_STEP_SUMMARY",
    )
    parser.add_argument("--csv", metavar="FILE", help="write one row of scores per submission to FILE ('-' for stdout)")
    parser.add_argument(
        "--xlsx",
        metavar="FILE",
        help="write the batch as a workbook for people to FILE: grades and each check's outcome, each sheet set up to "
        "print one page across",
    )
    parser.add_argument(
        "--similarity",
        action="store_true",
        help="compare every pair of submissions, each with the reference and the kit's code, and list the pairs found "
        "alike in the terminal, --json and --html; staff outputs only, never Gradescope's; scores unchanged; every "
        "path given is compared, whatever --shard grades",
    )
    parser.add_argument(
        "--similarity-threshold",
        type=share,
        default=similarity.THRESHOLD,
        metavar="SHARE",
        help="how alike a pair must be to be listed: a fraction or a percentage (default: %(default)s)",
    )
    parser.add_argument("--shard", default=None, metavar="I/N", help="grade only the I-th of N deterministic shards")
    arguments.add_shard_key(parser, "--csv writes each row's, so merge refuses a row edited since")
    parser.add_argument(
        "--jobs",
        type=count,
        default=default_jobs(),
        metavar="N",
        help="submissions graded at once, at most (default: one per core; fewer where they could not each have "
        "their own disk, or be kept apart: stderr says why)",
    )
    parser.add_argument(
        "--budget",
        type=seconds,
        default=rules.value("submission_seconds"),
        metavar="SECONDS",
        help="seconds of its worker's time one submission may use in all, every wait on the worker counted; past "
        "them its checks time out (default: %(default)g)",
    )
    parser.add_argument(
        "--timeout",
        type=seconds,
        default=None,
        metavar="SECONDS",
        help=f"wall time for one submission's run of the checks, longer than --budget (default: the budget "
        f"+ {SUITE_SECONDS:g})",
    )
    parser.add_argument(
        "--show-student-output", action="store_true", help="print what submissions printed (hidden by default)"
    )
    parser.add_argument(
        "--tier",
        default=AUTO,
        choices=[AUTO, *Tier],
        help="the isolation tier (default: auto, the strongest this machine offers; see docs/isolation.md)",
    )
    parser.add_argument("--worker-python", metavar="PATH", help="the worker's interpreter (default: one is found)")
    add_allow(parser, "copied, with what it requires, from this environment for every worker; the preflight imports it")
    add_hidden_seed(
        parser,
        "for cases it holds back: the seeded checks then run cases drawn from it too, in a worker of their own "
        "after the public cases (the same seed, the same cases); what they show is for staff, and Gradescope "
        "shows it only after the due date",
    )
    arguments.add_own_deps(parser)
    parser.add_argument(
        "--unisolated",
        action="store_true",
        help="grade even where no tier isolates the worker (every report then says so first)",
    )


def run(args: argparse.Namespace) -> int:
    missing = [p for p in args.paths if not Path(p).exists()]
    if missing:
        return fail("grade", f"no such file or folder: {', '.join(missing)}", HARNESS_ERROR)
    with Outputs("grade") as outputs, contextlib.ExitStack() as scratch:
        try:
            if args.html:
                require("html", "--html")
            if args.similarity:
                require("similarity", "--similarity")
            if args.xlsx:
                require("xlsx", "--xlsx")
            weights = load_weights(args.weights) if args.weights else equal_weights()
            shard = parse_shard(args.shard) if args.shard else ALL
            declare_outputs(outputs, args)
            seed = hidden_seed(args, "dedup-harness grade")
            setup = worker_setup(args.tier, checked_python(args.worker_python))
            packages = scratch.enter_context(provided(args.allow, setup.interpreter.path))  # gone when the run ends
            setup = dataclasses.replace(setup, packages=packages)
        except BEFORE_ANY_WORK as exc:
            return fail("grade", exc, HARNESS_ERROR)
        timeout = args.timeout if args.timeout is not None else args.budget + SUITE_SECONDS
        if timeout <= args.budget:
            return fail(
                "grade",
                f"--timeout {timeout:g} is not longer than --budget {args.budget:g}: the suite's run holds "
                "the worker's seconds and its own",
                HARNESS_ERROR,
            )
        batch = sorted(set(args.paths))
        clash = names.clash(batch)
        if clash is not None:
            return fail("grade", clash, HARNESS_ERROR)
        chosen = shard.select(batch)
        try:
            fork = start_fork_server() if chosen else None  # it warms up while the preflight runs
            check = preflight(setup)
            while args.tier == AUTO and (check.failures or check.leaks) and (fallback := weaker(setup, failed(check))):
                print(preflight_line(check), file=sys.stderr)
                setup = fallback
                check = preflight(setup)
            print(preflight_line(check), file=sys.stderr)
            if check.failures:
                return fail("grade", check.message(), HARNESS_ERROR)
            if check.leaks and not args.unisolated:
                return fail("grade", check.refusal(), HARNESS_ERROR)
            warning = unisolated_warning(check) if check.leaks else ""
            options = GradingOptions(
                weights,
                diagnoser(),
                timeout=timeout,
                budget=args.budget,
                setup=setup,
                warning=warning,
                own_deps=args.own_deps,
                hidden_seed=seed,
            )
            jobs = jobs_with_room(setup, min(args.jobs, max(len(chosen), 1)))
            with Progress("grade") as progress:
                progress.phase("submissions", total=len(chosen))
                reports = grade_batch(
                    chosen,
                    options,
                    jobs=jobs,
                    fork=fork,
                    on_done=lambda r: progress.finished(
                        f"{harmless.line(r.submission)}: {out_of(r.score, r.max_score)}"
                    ),
                )
                copies = compared(args, progress)
            folders = names.folders(batch)
            write_outputs(
                args, reports, str(shard), outputs, identify(args.paths, weights), folders, copies, args.shard_key
            )
        except (OutputError, OSError) as exc:  # OSError: no fork server (a temp folder whose path is too long)
            return fail("grade", exc, HARNESS_ERROR)
    return HARNESS_ERROR if any(r.status is Status.HARNESS_ERROR for r in reports) else 0


def declare_outputs(outputs: Outputs, args: argparse.Namespace) -> None:
    """Every output of the run, checked before the first submission is graded."""
    outputs.file("--json", args.json)
    outputs.file("--csv", args.csv)
    outputs.file("--xlsx", args.xlsx)
    outputs.file("--junit", args.junit)
    outputs.file("--html", args.html)
    outputs.appended("--markdown", args.markdown)
    outputs.folder("--gradescope", args.gradescope)
    outputs.folder("--prairielearn", args.prairielearn)


def compared(args: argparse.Namespace, progress: Progress) -> similarity.Similarity | None:
    """With --similarity, every path given compared (a shard's pairs with the others' too), after the grading."""
    if not args.similarity:
        return None
    paths = sorted(set(args.paths))
    progress.phase("similarity", total=similarity.pairs_count(len(paths)))
    from dedup_harness.distribution import student_kit  # the kit's import closure: read only when asked for

    kit, code = stub_source(), student_kit.code_files()
    return similarity.compare(paths, args.similarity_threshold, kit=kit, kit_code=code, on_pair=progress.advance)


def jobs_with_room(setup: WorkerSetup, asked: int) -> int:
    """``--jobs``, or fewer where the machine has no room for that many graded apart; fewer is said on stderr."""
    found = room.fit(setup, asked, Limits().disk_bytes)
    for reason in found.reasons:
        print(f"dedup-harness grade: {reason}", file=sys.stderr)
    return found.jobs


def checked_python(path: str | None) -> str | None:
    """The interpreter named by --worker-python, once it has answered as the worker's user."""
    if path is None:
        return None
    found = ask(path, worker_uid())
    if not isinstance(found, Interpreter):
        raise InterpreterError(f"--worker-python {found}")
    return found.path


def preflight_line(check: Preflight) -> str:
    """What the preflight proved, in plain words and 80 columns (the answers, the tiers passed over and the packages
    allowed on lines of their own): the tier isolates the worker, right code passes through it and code wrong on
    purpose fails; or that it failed there."""
    right = check.reference and all(answer.right for answer in check.reference)
    wrong = check.canary and not any(answer.right for answer in check.canary)
    answers = "right code passes through it, wrong code fails" if right and wrong else "known answers come out wrong"
    holds = "does not isolate" if check.leaks else "isolates"
    version = check.protections.get("interpreter_version", "") or check.setup.interpreter.version
    tier = f"{check.setup.tier} {holds} the worker (Python {version})\npreflight: {answers}"
    lines = [
        f"preflight ({check.seconds:.1f} s): " + (f"failed in the {check.setup.tier} tier" if check.failures else tier)
    ]
    for why in check.setup.passed_over:  # a stronger tier not installed, not allowed here, or whose preflight failed
        lines += textwrap.wrap(f"preflight: passed over {why}", 80, subsequent_indent="  ")
    modules = check.setup.packages.modules if check.setup.packages and not check.failures else ()
    lines += [f"preflight: allowed, and imported in the worker: {', '.join(modules)}"] if modules else []
    return "\n".join(lines)


PREFLIGHT_FAILED = "its preflight"  # how a tier passed over for its preflight is said (the others: by detection)


def failed(check: Preflight) -> str:
    """Why a tier's preflight would not let it grade, in one phrase (for the next tier's passed-over line)."""
    said = check.failures or check.leaks
    return f"{PREFLIGHT_FAILED} {'failed' if check.failures else 'found a leak'}: {harmless.line(said[0])[:200]}"


def unisolated_warning(check: Preflight) -> str:
    return f"graded WITHOUT isolation (--unisolated, {check.setup.tier} tier): " + "; ".join(check.leaks)


def diagnoser() -> Diagnoser:
    try:
        return load_diagnoser()
    except (OSError, ValueError, KeyError) as exc:
        print(f"dedup-harness grade: no diagnosis (kill matrix or catalogue unreadable: {exc})", file=sys.stderr)
        return no_diagnoser()


def write_outputs(
    args: argparse.Namespace,
    reports: Sequence[GradeReport],
    shard: str,
    outputs: Outputs,
    batch: BatchIdentity,
    folders: Mapping[str, str],
    copies: similarity.Similarity | None = None,
    key: bytes | None = None,
) -> None:
    """The terminal report, then every output file, written together; ``folders``: each submission's Gradescope
    folder (``names.folders``); ``copies`` (--similarity) only in the terminal, --json and --html; ``key``: --csv's."""
    rows = keyed_rows([csv_report.row(report, shard) for report in reports], batch, key)
    summary = summarize(map(Outline.of, reports))
    console = Console(stderr=outputs.stdout, soft_wrap=False)
    for report in reports if len(reports) == 1 else []:
        terminal.print_report(console, report, show_student_output=args.show_student_output)
    if len(reports) > 1:
        terminal.print_batch(console, reports)
    console.print(
        f"{summary['graded']} graded, {summary['harness_errors']} harness errors, "
        f"{summary['full_marks']} with full marks, mean {summary['mean_score']} / {summary['max_score']}"
    )
    if copies is not None:
        terminal.print_copies(console, copies)
    console.print(f"graded by {here().line()}", style="dim")
    if args.json:
        outputs.put("--json", json_report.render(reports, summary, copies))
    if args.csv:
        outputs.put("--csv", csv_report.render(rows, batch.cells()))
    if args.junit:
        outputs.put("--junit", junit.render(reports))
    if args.xlsx:
        from dedup_harness.grade.reports import sheet  # openpyxl: imported only when a workbook is asked for

        with outputs.stream("--xlsx") as workbook:
            workbook.write(sheet.render(reports))
    if args.markdown:
        outputs.put("--markdown", markdown.render(summary))
    if args.html:
        from dedup_harness.grade.reports import html  # matplotlib and Jinja2: imported only when a page is asked for

        outputs.put("--html", html.render(reports, summary, copies))
    platforms = [("--gradescope", gradescope.render)] if args.gradescope else []
    if args.prairielearn:
        from dedup_harness.grade.reports import prairielearn  # imported only when asked for, as html and sheet are

        costs = args.prairielearn_ungradable_costs_attempt
        platforms.append(("--prairielearn", lambda report: prairielearn.render(report, costs_attempt=costs)))
    for option, render in platforms:
        for report in reports:
            folder = "." if len(reports) == 1 else folders[report.submission]
            outputs.put_in_folder(option, f"{folder}/results.json", render(report))
    outputs.commit()
