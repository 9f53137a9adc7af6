"""The console script ``dedup-harness``: one subcommand per module in ``dedup_harness.commands``.

Each command module exposes ``HELP`` (one line), ``add_arguments(parser)`` and ``run(args) -> int``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from dedup_harness import __version__

COMMANDS = ("verify", "check", "grade", "merge", "gradescope_bundle", "mutation", "audit_bloom", "dedup")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser for every command, or for ``only`` that one (a command module's imports are not free)."""
    parser = argparse.ArgumentParser(
        prog="dedup-harness",
        description="Property tests, mutants, grading and Bloom audits for exact paragraph deduplication.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in (only,) if only in COMMANDS else COMMANDS:
        module = importlib.import_module(f"dedup_harness.commands.{name}")
        command = sub.add_parser(name.replace("_", "-"), help=module.HELP, description=module.HELP)
        module.add_arguments(command)
        command.set_defaults(run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    chosen = argv[0].replace("-", "_") if argv else None
    args = build_parser(only=chosen).parse_args(argv)
    try:
        return int(args.run(args))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
