"""``dedup-harness merge SHARD...``: join the CSVs of ``grade --shard i/n`` runs into one CSV and one summary.

Refuses shards from different splits, a submission graded twice, and a missing shard (a shard that
graded nothing still writes its header, so pass every shard's file). Exit status 0 on success, 2 on
bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from dedup_harness.batch import ShardError, merge_rows
from dedup_harness.reports import csv_report
from dedup_harness.reports.csv_report import CsvError
from dedup_harness.reports.summary import summarize

HELP = "join the CSVs of `grade --shard i/n` runs into one CSV and one summary"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("shards", nargs="+", type=Path, metavar="SHARD", help="a CSV written by grade --csv")
    parser.add_argument("--csv", type=Path, metavar="FILE", help="write the merged CSV (default: stdout)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the summary as JSON")


def run(args: argparse.Namespace) -> int:
    try:
        rows, notes = merge_rows(args.shards)
    except (CsvError, ShardError) as exc:
        print(f"dedup-harness merge: {exc}", file=sys.stderr)
        return 2
    summary = summarize(rows)
    merged = csv_report.render(rows)
    if args.csv:
        args.csv.write_text(merged, encoding="utf-8")
    else:
        sys.stdout.write(merged)
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    console = Console(stderr=args.csv is None)
    for note in notes:
        console.print(note)
    console.print(summary_table(summary))
    return 0


def summary_table(summary: dict[str, Any]) -> Table:
    table = Table(title="batch summary", show_edge=False, show_header=False)
    table.add_column("what")
    table.add_column("value", justify="right")
    for key in ("submissions", "graded", "harness_errors", "full_marks", "mean_score", "max_score"):
        table.add_row(
            key.replace("_", " "), f"{summary[key]:g}" if isinstance(summary[key], float) else str(summary[key])
        )
    for name, count in summary["passed_by_check"].items():
        table.add_row(f"passed {name}", str(count))
    for mutant, count in summary["fails_like"].items():
        table.add_row(f"fails like {mutant}", str(count))
    return table
