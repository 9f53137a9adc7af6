"""argparse types for the numbers and names commands take: refused as the arguments are parsed, naming the option."""

from __future__ import annotations

import argparse
import math
import re

# A distribution's name as packaging's rules spell one (PEP 508): no version, no path, no extra.
PACKAGE_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")
ALLOW_HELP = "a package submissions may import beside the standard library and corpus (repeatable)"


def count(text: str) -> int:
    """A whole number of at least 1 (jobs, children)."""
    return _whole_number(text, 1, "at least 1")


def seconds(text: str) -> float:
    """A positive, finite number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text}: expected a positive number of seconds")
    return value


def share(text: str) -> float:
    """A fraction above 0 and at most 1 (a similarity threshold): ``0.7`` or ``70%``."""
    number = text.removesuffix("%")
    try:
        value = float(number) / (100 if number != text else 1)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a fraction (0.7) or a percentage (70%)") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"{text}: expected more than 0 and at most 1 (100%)")
    return value


def non_negative_int(text: str) -> int:
    """A whole number of at least 0 (0 turns an optional measurement off)."""
    return _whole_number(text, 0, "0 or more")


def _whole_number(text: str, least: int, words: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a whole number") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"{text}: expected {words}")
    return value


def package_name(text: str) -> str:
    """The name of a package (a distribution, as pip installs it: ``numpy``, ``scikit-learn``), nothing more."""
    if not PACKAGE_NAME.fullmatch(text):
        raise argparse.ArgumentTypeError(f"{text!r}: expected a package's name (numpy), without a version or a path")
    return text


def add_allow(parser: argparse.ArgumentParser, what: str) -> None:
    """``--allow PACKAGE`` (repeatable): a package submissions may import beside the standard library; ``what``
    says what the command does with it."""
    parser.add_argument(
        "--allow", action="append", default=[], type=package_name, metavar="PACKAGE", help=f"{ALLOW_HELP}: {what}"
    )
