"""``dedup-harness diff [PATH] [--reference FILE]``: a student's functions beside the reference's (the chapter's
``ol diff``, after passing).

PATH is found as ``check`` finds it (``./dedup.py``, else ``./corpus/dedup.py``). Functions are
matched by name (methods as ``Class.name``, ``check/function_diff.py``): a unified diff for each one
both files have, then the functions only one side has. The reference is the embedded one in the
staff install; the student kit holds none, and ``--reference`` takes the one staff release after
the deadline. Exit status 0 when compared, 2 when a file is missing or does not parse.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from dedup_harness.check.function_diff import Unreadable, compare, report
from dedup_harness.commands.outputs import fail
from dedup_harness.core.impl_roots import student_file
from dedup_harness.core.paths import REFERENCE_SOURCE

HELP = "your functions beside the reference's, matched by name: a unified diff each, and those only one side has"
NO_REFERENCE = (
    "this install holds no reference (the student kit never does): pass --reference FILE, the reference "
    "dedup.py your course releases after the deadline"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "path", nargs="?", metavar="PATH", help="your dedup.py (default: ./dedup.py, else ./corpus/dedup.py)"
    )
    parser.add_argument(
        "--reference",
        type=Path,
        metavar="FILE",
        help="the reference dedup.py to compare with (default: the embedded one, in the staff install)",
    )


def run(args: argparse.Namespace) -> int:
    yours = Path(args.path) if args.path else student_file(Path("."))
    if yours is not None and yours.is_dir():
        yours = student_file(yours) or yours
    if yours is None:
        return fail("diff", "no ./dedup.py or ./corpus/dedup.py here: name your dedup.py")
    reference = args.reference or (REFERENCE_SOURCE if REFERENCE_SOURCE.is_file() else None)
    if reference is None:
        return fail("diff", NO_REFERENCE)
    try:
        compared = compare(yours, reference)
    except Unreadable as exc:
        return fail("diff", exc)
    for line in report(compared):
        print(line)
    return 0
