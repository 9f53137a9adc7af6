"""``dedup-harness merge SHARD...``: join the CSVs of ``grade --shard i/n`` runs into one CSV and one summary.

Refuses shards of different batches (other submissions, weights or harness version: every row of a
grade CSV names its batch in its last columns), shards from different splits, a submission graded twice, a missing
shard (a shard that graded nothing still writes its header, so pass every shard's file), and a row
whose score does not follow from its outcomes and the weights, or whose keyed digest does not match the key
(``--shard-key``; without one, a warning line says so). Exit status 0 on success, 2 on bad input, always with
one line that names the file and the row.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from dedup_harness.commands.arguments import NO_SHARD_KEY, add_shard_key
from dedup_harness.commands.outputs import OutputError, Outputs, fail
from dedup_harness.distribution.shard_files import CsvError
from dedup_harness.distribution.shards import ShardError, merge_rows
from dedup_harness.grade.reports import csv_report
from dedup_harness.grade.reports.summary import Outline, summarize

HELP = "join the CSVs of `grade --shard i/n` runs into one CSV and one summary"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("shards", nargs="+", type=Path, metavar="SHARD", help="a CSV written by grade --csv")
    parser.add_argument(
        "--csv", metavar="FILE", default="-", help="write the merged CSV to FILE (default: '-', stdout)"
    )
    parser.add_argument("--json", metavar="FILE", help="write the summary as JSON to FILE ('-' for stdout)")
    add_shard_key(parser, "check every row's keyed digest with it, and refuse a row whose digest does not match")


def run(args: argparse.Namespace) -> int:
    with Outputs("merge") as outputs:
        try:
            outputs.file("--csv", args.csv)
            outputs.file("--json", args.json)
            rows, notes, batch = merge_rows(args.shards, args.shard_key)
            summary = summarize(map(Outline.from_row, rows))
            outputs.put("--csv", csv_report.render(rows, batch.cells()))
            if args.json:
                outputs.put("--json", json.dumps(summary, indent=2, sort_keys=True) + "\n")
            outputs.commit()
        except (CsvError, ShardError, OutputError) as exc:
            return fail("merge", exc)
    if args.shard_key is None:
        print(f"dedup-harness merge: warning: {NO_SHARD_KEY}: a row edited consistently merges unseen", file=sys.stderr)
    console = Console(stderr=outputs.stdout)
    for note in notes:
        console.print(note)
    console.print(summary_table(summary))
    return 0


def summary_table(summary: dict[str, Any]) -> Table:
    table = Table(title="batch summary", show_edge=False, show_header=False)
    table.add_column("what")
    table.add_column("value", justify="right")
    for key in ("submissions", "graded", "harness_errors", "full_marks", "mean_score", "max_score"):
        table.add_row(key.replace("_", " "), str(summary[key]))
    for name, count in summary["passed_by_check"].items():
        table.add_row(f"passed {name}", str(count))
    for mutant, count in summary["fails_like"].items():
        table.add_row(f"fails like {mutant}", str(count))
    return table
