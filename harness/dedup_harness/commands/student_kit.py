"""``dedup-harness student-kit DIR``: write what staff hand students, the kit's wheel, into DIR.

Students install it with ``pip install DIR/*.whl`` (its dependencies come from the package index as
usual). It offers ``check``, ``start``, ``tests`` and ``diff``, with the suite, the oracle, the
fixture, the course's earlier modules and the docs, and holds no implementation of ``corpus.dedup``
(``distribution/student_kit.py`` says what goes in and why). Exit status 0 when written; 2 when DIR
is not a folder that can be written, or the wheel cannot be built (pip's words, shortened).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from dedup_harness.commands.arguments import add_own_deps
from dedup_harness.commands.outputs import fail
from dedup_harness.distribution.bundle_wheels import WheelsError
from dedup_harness.distribution.student_kit import build

HELP = "write the student kit into DIR: a wheel with check, start, tests and diff, and no implementation of dedup"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dir", metavar="DIR", help="the folder the kit's wheel goes into (made if missing)")
    parser.add_argument(
        "--holds-back",
        action="store_true",
        help="the course grades with --hidden-seed: check then says its verdict covers the public cases alone (the "
        "kit never holds the seed)",
    )
    add_own_deps(parser, ": the kit holds the decision, and its check predicts with the student's own")


def run(args: argparse.Namespace) -> int:
    out = Path(args.dir)
    if out.exists() and not out.is_dir():
        return fail("student-kit", f"{out}: not a folder")
    print("dedup-harness student-kit: building the kit's wheel", file=sys.stderr)
    try:
        wheel = build(out, holds_back=args.holds_back, own_deps=args.own_deps)
    except (WheelsError, OSError) as exc:
        return fail("student-kit", exc)
    print(f"wrote {wheel}: students install it with `pip install {out / '*.whl'}`")
    return 0
