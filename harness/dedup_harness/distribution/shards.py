"""Shards of a batch: ``--shard i/n`` takes every n-th submission in sorted name order; ``merge`` joins them.

The same list on every machine gives the same split, and the shards are balanced. ``merge`` trusts
nothing in the files it joins: every file must belong to one batch (``batch_identity``), together
they must hold that batch's submissions, and every row's score must follow from its outcomes and the
batch's weights; a row edited consistently, by its keyed digest (``row_digest``, under the staff's key).
This module needs only the CSV rows, so ``merge`` does not import the grading stack.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from dedup_harness.core.checks import CHECKS
from dedup_harness.core.outcome import Outcome
from dedup_harness.distribution.batch_identity import BatchIdentity, digest_of
from dedup_harness.distribution.shard_files import ShardFile, read
from dedup_harness.grade.reports.csv_report import COLUMNS, KEYED
from dedup_harness.grade.reports.harmless import cell
from dedup_harness.grade.reports.model import Status
from dedup_harness.grade.scoring import ZERO, parse_points, points_text

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


def row_digest(row: Mapping[str, str], key: bytes) -> str:
    """HMAC-SHA256 under ``key`` of every cell of a CSV row but its own digest, as the CSV writes them."""
    return hmac.new(key, json.dumps([row[c] for c in COLUMNS if c != KEYED]).encode(), hashlib.sha256).hexdigest()


def keyed_rows(rows: Sequence[Mapping[str, str]], batch: BatchIdentity, key: bytes | None) -> list[dict[str, str]]:
    """Each row with its batch's cells and its keyed digest (empty without a key), every cell as the CSV writes it."""
    written = [{name: cell(value) for name, value in {**row, **batch.cells()}.items()} for row in rows]
    return [{**row, KEYED: row_digest(row, key) if key else ""} for row in written]


def merge_rows(paths: Sequence[Path], key: bytes | None) -> tuple[list[dict[str, str]], list[str], BatchIdentity]:
    """The rows of every shard file, checked to form one batch (under ``key``); notes on what was seen; the batch."""
    files = [read(path) for path in paths]
    batch = same_batch(files)
    rows = [row for file in files for row in file.rows]
    for file in files:
        for row, line in zip(file.rows, file.lines, strict=True):
            check_row(row, batch, f"{file.path}, line {line} ({row['submission']})", key)
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
        if len(missing) > sum(1 for file in files if not file.rows):
            raise ShardError(f"shards missing: {', '.join(f'{i}/{count}' for i in missing)}")
        notes.append(f"{len(paths)} shard files, {len(rows)} submissions, split {count} ways, batch {batch.short}")
    if digest_of(names, batch.weights.points, batch.harness, batch.dependencies) != batch.digest:
        raise ShardError(
            f"the shards hold {len(rows)} of the batch's {batch.submissions} submissions, or not the same ones "
            f"(batch {batch.short}): pass every shard file of one `grade --shard` run"
        )
    return sorted(rows, key=lambda r: r["submission"]), notes, batch


def same_batch(files: Sequence[ShardFile]) -> BatchIdentity:
    """The one batch every file's rows belong to; a ShardError naming the files that differ.

    A file without rows (a shard that graded nothing) names no batch: the batch's digest of every
    submission's name, checked once the rows are joined, is what tells whether it was the right one.
    """
    named = [(file, file.batch) for file in files if file.batch is not None]
    if not named:
        raise ShardError(f"no shard file holds a row ({', '.join(str(f.path) for f in files)}): nothing to merge")
    first, batch = named[0]
    for file, other in named[1:]:
        if other == batch:
            continue
        pair = f"{first.path} (batch {batch.short}) and {file.path} (batch {other.short})"
        raise ShardError(f"{pair} are {_how_they_differ(batch, other)}")
    return batch


def _how_they_differ(one: BatchIdentity, other: BatchIdentity) -> str:
    if other.harness != one.harness:
        return f"graded by different harness versions ({one.harness}, {other.harness})"
    if other.dependencies != one.dependencies:
        return (
            f"graded with different dependency sets ({one.dependencies[:19]}, "
            f"{other.dependencies[:19]}): install the same releases on every machine of the batch"
        )
    if other.weights != one.weights:
        return "graded with different weights"
    return "from different batches (not the same submissions)"


def check_row(row: Mapping[str, str], batch: BatchIdentity, where: str, key: bytes | None) -> None:
    """A row whose status, outcomes, score, the batch's weights and its keyed digest under ``key`` all agree."""
    if key is None and row[KEYED]:
        raise ShardError(f"{where}: the row carries a keyed digest, and merge was given no key to check it with")
    if key is not None and not hmac.compare_digest(row[KEYED], row_digest(row, key)):
        raise ShardError(f"{where}: its keyed digest is missing or does not match its cells: edited, or another key")
    if row["status"] not in set(Status):
        raise ShardError(f"{where}: status {row['status']!r} is not one of {sorted(Status)}")
    bad = [name for name in CHECKS if row[name] not in set(Outcome)]
    if bad:
        raise ShardError(f"{where}: {bad[0]} has the outcome {row[bad[0]]!r}, not one of {sorted(Outcome)}")
    for column in ("score", "max_score"):
        try:
            parse_points(row[column])
        except ValueError as exc:
            raise ShardError(f"{where}: {column} {exc}") from None
    passed = frozenset(name for name in CHECKS if row[name] == Outcome.PASSED)
    earned = batch.weights.earned(passed) if row["status"] == Status.GRADED else ZERO
    expected = {"score": points_text(earned), "max_score": points_text(batch.weights.max_score)}
    for column, value in expected.items():
        if row[column] != value:
            raise ShardError(
                f"{where}: {column} {row[column]} does not follow from its outcomes and the batch's weights "
                f"({value}): edited by hand?"
            )
