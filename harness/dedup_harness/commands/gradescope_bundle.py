"""``dedup-harness gradescope-bundle OUT.zip``: write the Gradescope autograder bundle.

Exit status 0 on success, 2 when the bundle cannot be written.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from dedup_harness.commands.outputs import OutputError, Outputs, fail
from dedup_harness.grade.gradescope_bundle import build
from dedup_harness.grade.scoring import WeightsError, load_weights

HELP = "write the Gradescope autograder bundle (setup.sh, run_autograder, this harness)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out", type=Path, metavar="OUT.zip", help="where to write the bundle")
    parser.add_argument("--weights", type=Path, metavar="FILE", help="points per check (TOML) for the bundle to use")


def run(args: argparse.Namespace) -> int:
    with Outputs("gradescope-bundle") as outputs:
        try:
            outputs.file("OUT.zip", args.out)  # a folder, or a path in a missing folder, is refused here
            if args.weights:
                load_weights(args.weights)  # refuse a bad file now, not on Gradescope
            count = build(outputs.path("OUT.zip"), weights=args.weights)
            outputs.commit()
        except (WeightsError, OutputError, OSError) as exc:
            return fail("gradescope-bundle", exc)
    print(f"wrote {args.out} ({count} files): upload it as the autograder of a Gradescope programming assignment")
    return 0
