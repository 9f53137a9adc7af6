"""PLACEHOLDER: replaced by the issue that builds `dedup-harness merge`."""

from __future__ import annotations

import argparse

HELP = "(not built yet)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    del parser


def run(args: argparse.Namespace) -> int:
    del args
    raise SystemExit("dedup-harness merge: not built yet")
