"""argparse types for the numbers and names commands take: refused as the arguments are parsed, naming the option."""

from __future__ import annotations

import argparse
import math
import os
import re
import secrets
import string
import sys
from pathlib import Path

from dedup_harness.core.hidden_cases import SEED_BITS

# A distribution's name as packaging's rules spell one (PEP 508): no version, no path, no extra.
PACKAGE_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")
ALLOW_HELP = "a package submissions may import beside the standard library and corpus (repeatable)"
OWN_DEPS_HELP = (
    "the course grades each dedup.py with the student's own doc.py, hashing.py and bloom.py, where a corpus/ beside "
    "it holds them (default: the course's; dedup.py is graded alone)"
)


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


SHARD_KEY_VARIABLE = "DEDUP_HARNESS_SHARD_KEY"  # the shard key where no --shard-key FILE names one
NO_SHARD_KEY = f"no shard key (--shard-key FILE or ${SHARD_KEY_VARIABLE})"


def add_shard_key(parser: argparse.ArgumentParser, what: str) -> None:
    """``--shard-key FILE``, else ``$DEDUP_HARNESS_SHARD_KEY``: ``args.shard_key``, bytes or None (never argv)."""
    parser.add_argument(
        "--shard-key",
        type=key_file,
        default=os.environb.get(SHARD_KEY_VARIABLE.encode()) or None,
        metavar="FILE",
        help=f"the key of every CSV row's keyed digest (HMAC-SHA256), read from FILE (default: "
        f"${SHARD_KEY_VARIABLE}, when set): {what}",
    )


def key_file(text: str) -> bytes:
    """The key a ``--shard-key`` file holds, its surrounding white space dropped."""
    try:
        key = Path(text).read_bytes().strip()
    except OSError as exc:
        raise argparse.ArgumentTypeError(f"{text}: {exc.strerror or exc}") from None
    if not key:
        raise argparse.ArgumentTypeError(f"{text}: the file is empty")
    return key


def add_own_deps(parser: argparse.ArgumentParser, what: str = "") -> None:
    """``--own-deps``: whose doc, hashing and bloom are graded, one decision grade, the kit and the bundle carry."""
    parser.add_argument("--own-deps", action="store_true", help=OWN_DEPS_HELP + what)


SEED_DIGITS = SEED_BITS // 4  # a held-back seed's hex digits, at least


class SeedError(ValueError):
    """A held-back seed's file cannot be read or written, or holds no seed."""


def held_back_seed(text: str) -> int:
    """A seed for the cases a course holds back: SEED_DIGITS hex digits or more, so no search over seeds finds it."""
    digits = text.strip().lower().removeprefix("0x")
    if len(digits) < SEED_DIGITS or not set(digits) <= set(string.hexdigits):
        raise argparse.ArgumentTypeError(
            f"{text[:80]!r}: a seed for held-back cases is {SEED_DIGITS} hex digits or more ({SEED_BITS} bits, so no "
            "document a submission sees gives it back); --hidden-seed-file FILE draws one and keeps it in FILE"
        )
    return int(digits, 16)


def add_hidden_seed(parser: argparse.ArgumentParser, what: str) -> None:
    """``--hidden-seed HEX`` or ``--hidden-seed-file FILE``: the course's seed for the cases it holds back."""
    given = parser.add_mutually_exclusive_group()
    given.add_argument("--hidden-seed", type=held_back_seed, metavar="HEX", help=f"the course's seed {what}")
    given.add_argument(
        "--hidden-seed-file",
        type=Path,
        metavar="FILE",
        help=f"the seed in FILE, as --hidden-seed; a FILE that does not exist gets a new one drawn from the operating "
        f"system ({SEED_BITS} bits, the file readable by you alone), and the command says so",
    )


def hidden_seed(args: argparse.Namespace, command: str) -> int | None:
    """The seed ``--hidden-seed`` gives, or the one kept in ``--hidden-seed-file`` (drawn now if it has none)."""
    path: Path | None = args.hidden_seed_file
    if path is None:
        return args.hidden_seed  # type: ignore[no-any-return]
    try:
        if path.exists():
            return held_back_seed(path.read_text(encoding="ascii"))
        drawn = secrets.token_hex(SEED_BITS // 8)
        with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w", encoding="ascii") as out:
            out.write(drawn + "\n")
    except (OSError, UnicodeDecodeError, argparse.ArgumentTypeError) as error:
        raise SeedError(f"--hidden-seed-file {path}: {error}") from None
    said = f"drew a new seed for the cases held back ({SEED_BITS} bits) and kept it in {path}: keep that file from"
    print(f"{command}: {said} students; the same file grades the same cases again", file=sys.stderr)
    return int(drawn, 16)
