"""``dedup-harness ci-workflow github|gitlab [DIR]``: the course's CI workflow, to stdout or into DIR (exit 0, or 2)."""

from __future__ import annotations

import argparse
from pathlib import Path

from dedup_harness import distribution
from dedup_harness.commands.outputs import OutputError, Outputs, fail

HELP = "write the course's CI workflow (GitHub Actions or GitLab CI): the verify gate, a class graded in shards"
PLACES = {"github": ".github/workflows/dedup-harness.yml", "gitlab": ".gitlab-ci.yml"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("forge", choices=sorted(PLACES), help="GitHub Actions or GitLab CI")
    parser.add_argument("out", nargs="?", metavar="DIR", help="the repository to write it in (default: stdout)")


def run(args: argparse.Namespace) -> int:
    text = Path(distribution.__file__).with_name("ci_workflows").joinpath(f"{args.forge}.yml").read_text("utf-8")
    if args.out is None:
        print(text, end="")
        return 0
    with Outputs("ci-workflow") as outputs:
        try:
            outputs.folder("DIR", args.out)
            outputs.put_in_folder("DIR", PLACES[args.forge], text)
            outputs.commit()
        except OutputError as exc:
            return fail("ci-workflow", exc)
    return 0
