"""``dedup-harness prairielearn-bundle DIR``: PrairieLearn's external grader; exit status 0, or 2 if not written."""

from __future__ import annotations

import argparse
import functools
from pathlib import Path

from dedup_harness.commands.gradescope_bundle import add_options, bundled
from dedup_harness.distribution import prairielearn_bundle

HELP = "write PrairieLearn's external grader: the image to build (the tested wheels), the course's files, info.json"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out", type=Path, metavar="DIR", help="the folder to write it in (made if it is missing)")
    parser.add_argument("--image", required=True, metavar="NAME", help="the image's name on Docker Hub (you/dedup:1)")
    add_options(parser)


def run(args: argparse.Namespace) -> int:
    then = "build and push DIR/image, copy DIR/serverFilesCourse to the course, info.json into the question"
    return bundled(args, "prairielearn-bundle", then, functools.partial(prairielearn_bundle.contents, image=args.image))
