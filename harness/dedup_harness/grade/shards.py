"""Shards of a batch: ``--shard i/n`` takes every n-th submission in sorted name order; ``merge`` joins them.

The same list on every machine gives the same split, and the shards are balanced. This module needs
only the CSV rows, so ``merge`` does not import the grading stack.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from dedup_harness.grade.reports.csv_report import read

_SHARD = re.compile(r"^(\d+)/(\d+)$")


class ShardError(ValueError):
    """A ``--shard`` value or a set of shard files that does not make sense: the message says why."""


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def select(self, names: Sequence[str]) -> list[str]:
        return sorted(names)[self.index - 1 :: self.count]


ALL = Shard(1, 1)


def parse_shard(text: str) -> Shard:
    match = _SHARD.match(text.strip())
    if not match:
        raise ShardError(f"--shard {text!r}: expected i/n, e.g. 2/8")
    index, count = int(match.group(1)), int(match.group(2))
    if not 1 <= index <= count:
        raise ShardError(f"--shard {text!r}: i must lie between 1 and n")
    return Shard(index, count)


def merge_rows(paths: Sequence[Path]) -> tuple[list[dict[str, str]], list[str]]:
    """The rows of every shard file, checked to form one batch; and the notes on what was seen."""
    rows: list[dict[str, str]] = []
    empty_files = 0
    for path in paths:
        shard_rows = read(path)
        empty_files += not shard_rows
        rows += shard_rows
    shards = {row["shard"] for row in rows}
    parsed = {parse_shard(s) for s in shards}
    counts = {s.count for s in parsed}
    if len(counts) > 1:
        raise ShardError(f"the shards come from different splits: {sorted(shards)}")
    names = [row["submission"] for row in rows]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ShardError(f"submissions graded in more than one shard (a shard given twice?): {repeated[:5]}")
    notes = []
    if counts:
        count = counts.pop()
        missing = sorted(set(range(1, count + 1)) - {s.index for s in parsed})
        if len(missing) > empty_files:
            raise ShardError(f"shards missing: {', '.join(f'{i}/{count}' for i in missing)}")
        notes.append(f"{len(paths)} shard files, {len(rows)} submissions, split {count} ways")
    return sorted(rows, key=lambda r: r["submission"]), notes
