"""``dedup-harness gradescope-bundle OUT.zip``: write the Gradescope autograder bundle.

Exit status 0 on success, 2 when the bundle cannot be written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from dedup_harness.commands.arguments import SeedError, add_allow, add_hidden_seed, add_own_deps, hidden_seed
from dedup_harness.commands.outputs import OutputError, Outputs, fail
from dedup_harness.distribution.bundle_wheels import WheelsError
from dedup_harness.distribution.gradescope_bundle import build
from dedup_harness.grade.sandbox.packages import PackagesError
from dedup_harness.grade.scoring import WeightsError, load_weights

HELP = "write the Gradescope autograder bundle (setup.sh, run_autograder, the harness, the wheels it was tested with)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out", type=Path, metavar="OUT.zip", help="where to write the bundle")
    parser.add_argument("--weights", type=Path, metavar="FILE", help="points per check (TOML) for the bundle to use")
    parser.add_argument(
        "--python",
        metavar="X.Y",
        type=_python_version,
        help="the CPython the image will run, for the bundle's wheels (default: this one, the version tested)",
    )
    add_allow(parser, "as grade's --allow; its wheel and those of what it requires come too, as installed here")
    add_hidden_seed(parser, "for the cases it holds back, as grade's (in the bundle, which students never see)")
    add_own_deps(parser, ": run_autograder passes it to grade")


def _python_version(text: str) -> str:
    major, _, minor = text.partition(".")
    if not (major == "3" and minor.isdigit() and int(minor) >= 11):
        raise argparse.ArgumentTypeError(f"{text!r}: a CPython version 3.11 or later, as X.Y")
    return text


def run(args: argparse.Namespace) -> int:
    with Outputs("gradescope-bundle") as outputs:
        try:
            outputs.file("OUT.zip", args.out)  # a folder, or a path in a missing folder, is refused here
            if args.weights:
                load_weights(args.weights)  # refuse a bad file now, not on Gradescope
            print("gradescope-bundle: fetching the tested releases' wheels from pip's index", file=sys.stderr)
            count = build(
                outputs.path("OUT.zip"),
                weights=args.weights,
                python=args.python,
                allowed=args.allow,
                hidden_seed=hidden_seed(args, "dedup-harness gradescope-bundle"),
                own_deps=args.own_deps,
            )
            outputs.commit()
        except (SeedError, WeightsError, OutputError, OSError, LookupError, WheelsError, PackagesError) as exc:
            return fail("gradescope-bundle", exc)
    print(
        f"wrote {args.out} ({count} files): upload it as the autograder of a Gradescope programming assignment",
        file=sys.stderr if outputs.stdout else sys.stdout,  # not after the zip's bytes on stdout
    )
    return 0
