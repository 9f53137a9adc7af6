"""The console script ``dedup-harness``: one subcommand per module in ``dedup_harness.commands``.

Each command module exposes ``HELP`` (one line), ``add_arguments(parser)`` and ``run(args) -> int``, and
runs the same way: the ending signals raise as Ctrl-C does (``core.signals``); dead runs' scratch is
swept before it starts and its own when it ends (``core.scratch_dirs``: what cannot be removed is a
line on stderr); nothing but the outputs asked for is written in the working folder; a bad argument
is one line on stderr and exit 2. ``--version``, ``--help`` and a bad argument touch no scratch. The
student kit offers ``STUDENT_COMMANDS`` only.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
from collections.abc import Sequence
from typing import NoReturn

from dedup_harness import __version__
from dedup_harness.core import scratch_dirs, signals
from dedup_harness.core.paths import STUDENT_KIT

COMMANDS = (
    "verify",
    "check",
    "start",
    "tests",
    "diff",
    "grade",
    "merge",
    "gradescope_bundle",
    "prairielearn_bundle",
    "ci_workflow",
    "student_kit",
    "mutation",
    "audit_bloom",
    "dedup",
)
# What the student kit offers: the chapter's four commands, nothing that needs what the kit leaves out.
STUDENT_COMMANDS = ("check", "start", "tests", "diff")
USAGE_ERROR = 2
DESCRIPTION = "Property tests, mutants, grading and Bloom audits for exact paragraph deduplication."
STUDENT_DESCRIPTION = (
    "The student kit for exact paragraph deduplication: start, read the checks, check your code, diff."
)


def offered() -> tuple[str, ...]:
    """The commands this install offers: every one, or in the student kit the student's four."""
    return STUDENT_COMMANDS if STUDENT_KIT else COMMANDS


class Parser(argparse.ArgumentParser):
    """argparse, but a bad argument is one line (the usage is a ``--help`` away)."""

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE_ERROR, f"{self.prog}: {message} (see {self.prog} --help)\n")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser for every command, or for ``only`` that one (a command module's imports are not free)."""
    parser = Parser(
        prog="dedup-harness",
        description=STUDENT_DESCRIPTION if STUDENT_KIT else DESCRIPTION,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in (only,) if only in offered() else offered():
        module = importlib.import_module(f"dedup_harness.commands.{name}")
        command = sub.add_parser(name.replace("_", "-"), help=module.HELP, description=module.HELP)
        module.add_arguments(command)
        command.set_defaults(run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    chosen = argv[0].replace("-", "_") if argv else None
    command = f"dedup-harness {chosen.replace('_', '-')}" if chosen in COMMANDS else "dedup-harness"
    if chosen in COMMANDS and chosen not in offered():
        kit = ", ".join(name.replace("_", "-") for name in STUDENT_COMMANDS)
        print(
            f"{command}: not in the student kit, which offers {kit} (the staff install has the rest)", file=sys.stderr
        )
        return USAGE_ERROR
    with signals.ending_on_signals():
        try:
            args = build_parser(only=chosen).parse_args(argv)
        except SystemExit as stop:  # argparse: --help, --version, a bad argument (no scratch touched)
            return stop.code if isinstance(stop.code, int) else USAGE_ERROR
        except KeyboardInterrupt as interrupt:
            return interrupted(command, interrupt)
        try:
            return _run(args, command)
        except KeyboardInterrupt as interrupt:  # a signal as the run ended: its last sweep ran whole first
            return interrupted(command, interrupt)


def _run(args: argparse.Namespace, command: str) -> int:
    """Run the parsed command between the two sweeps of scratch: what dead runs left, then its own."""
    with scratch_dirs.hypothesis_home():
        try:
            scratch_dirs.sweep_all()  # what runs killed outright left behind
            status = int(args.run(args))
            sys.stdout.flush()  # here, not at exit: a reader gone before a short output was flushed is said here
            return status
        except SystemExit as stop:
            return stop.code if isinstance(stop.code, int) else USAGE_ERROR
        except BrokenPipeError:  # `dedup-harness tests | head`: the reader left; say nothing more to it
            return output_closed()
        except KeyboardInterrupt as interrupt:
            from dedup_harness.core.runner import stop_fork_server  # (imported only here: not free)

            stop_fork_server()  # before the sweep below: it may still be writing in this run's scratch
            return interrupted(command, interrupt)
        finally:
            with signals.deferred():  # a signal that comes now waits until the sweep is done
                scratch_dirs.sweep_all(mine=True)


def output_closed() -> int:
    """Exit as a process that SIGPIPE ended (128 + 13), with stdout pointed at /dev/null so that the interpreter's
    own flush at exit does not fail again on the closed pipe."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 128 + signal.SIGPIPE


def interrupted(command: str, interrupt: KeyboardInterrupt) -> int:
    name = f" ({interrupt.args[0]})" if interrupt.args else ""
    print(f"{command}: interrupted{name}", file=sys.stderr)
    return signals.exit_status(interrupt)


if __name__ == "__main__":
    sys.exit(main())
