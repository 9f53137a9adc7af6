"""``dedup-harness gradescope-bundle OUT.zip``: write the Gradescope autograder bundle.

Exit status 0 on success, 2 when the bundle cannot be written.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
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
    add_options(parser)


def add_options(parser: argparse.ArgumentParser) -> None:
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
    return bundled(args, "gradescope-bundle", "upload it as the autograder of a Gradescope programming assignment")


def bundled(
    args: argparse.Namespace, command: str, then: str, files: Callable[..., list[tuple[str, bytes]]] | None = None
) -> int:
    """Write the zip OUT.zip, or with ``files`` (the options of ``add_options`` -> its files) the folder DIR."""
    with Outputs(command) as outputs:
        try:
            if files is None:
                outputs.file("OUT.zip", args.out)  # a folder, or a path in a missing folder, is refused here
            else:
                outputs.folder("DIR", args.out)
            if args.weights:
                load_weights(args.weights)  # refuse a bad file now, not on the platform
            print(f"{command}: fetching the tested releases' wheels from pip's index", file=sys.stderr)
            seed = hidden_seed(args, f"dedup-harness {command}")
            options = {"weights": args.weights, "python": args.python, "allowed": args.allow, "hidden_seed": seed}
            options["own_deps"] = args.own_deps
            written = files(**options) if files else []
            for name, data in written:
                outputs.put_in_folder("DIR", name, data)
            count = len(written) if files else build(outputs.path("OUT.zip"), **options)
            outputs.commit()
        except (SeedError, WeightsError, OutputError, OSError, LookupError, WheelsError, PackagesError) as exc:
            return fail(command, exc)
    print(f"wrote {args.out} ({count} files): {then}", file=sys.stderr if outputs.stdout else sys.stdout)
    return 0
