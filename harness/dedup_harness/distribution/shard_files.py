"""What merge reads: a grade CSV's header, rows and the batch they name, each refused in one line naming the file."""

from __future__ import annotations

import csv
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from dedup_harness.core.checks import CHECKS
from dedup_harness.distribution.batch_identity import BatchIdentity, from_row
from dedup_harness.grade.reports.csv_report import BATCH, COLUMNS, FIXED, KEYED

HEADER_SHOWN = 6  # fields of a foreign header a refusal quotes


class CsvError(ValueError):
    """A shard's CSV is not one ``grade --csv`` wrote: the message names the file (and the line)."""


@dataclass(frozen=True)
class ShardFile:
    """What one grade CSV holds: its batch (None when it has no rows), and its rows with the line each ends on."""

    path: Path
    batch: BatchIdentity | None
    rows: list[dict[str, str]]
    lines: list[int]


def read(path: Path) -> ShardFile:
    try:
        with open(path, encoding="utf-8", newline="") as f:
            reader = csv.DictReader(f)
            check_header(path, tuple(reader.fieldnames or ()))
            rows, lines = [], []
            for row in reader:
                if None in row or None in row.values():
                    width = _width(row)
                    raise CsvError(f"{path}, line {reader.line_num}: {width} fields; the header has {len(COLUMNS)}")
                rows.append(row)
                lines.append(reader.line_num)
            return ShardFile(path, one_batch(path, rows, lines), rows, lines)
    except OSError as exc:
        raise CsvError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise CsvError(f"{path}: not a grade CSV (not UTF-8 text)") from None
    except csv.Error as exc:
        raise CsvError(f"{path}: not a grade CSV ({exc})") from None


def one_batch(path: Path, rows: list[dict[str, str]], lines: list[int]) -> BatchIdentity | None:
    """The batch every row of the file names; a CsvError at the first row that names another, or none."""
    first: BatchIdentity | None = None
    for row, line in zip(rows, lines, strict=True):
        try:
            batch = from_row(row)
        except ValueError as exc:
            raise CsvError(f"{path}, line {line}: {exc}") from None
        if first is not None and batch != first:
            raise CsvError(
                f"{path}, line {line}: batch {batch.short} where the rows above name {first.short}: "
                "rows of two batches in one file (edited, or files joined by hand?)"
            )
        first = first or batch
    return first


def _width(row: Mapping[str | None, object]) -> int:
    extra = row.get(None)
    return sum(1 for key, value in row.items() if key is not None and value is not None) + (
        len(extra) if isinstance(extra, list) else 0
    )


def check_header(path: Path, header: tuple[str, ...]) -> None:
    """A grade CSV of this harness's checks, or a CsvError that says what differs."""
    if header == COLUMNS:
        return
    tail = (*BATCH, KEYED)
    if header[: len(FIXED)] != FIXED or header[-len(tail) :] != tail:
        shown = [*header[:HEADER_SHOWN], "..."] if len(header) > HEADER_SHOWN else list(header)
        raise CsvError(f"{path}: not a grade CSV (its header is {shown})")
    theirs = header[len(FIXED) : -len(tail)]
    missing = [c for c in CHECKS if c not in theirs]
    extra = [c for c in theirs if c not in CHECKS]
    parts = [f"it lacks {missing}"] if missing else []
    parts += [f"it has checks this harness does not: {extra}"] if extra else []
    detail = "; ".join(parts) or "its checks come in another order"
    raise CsvError(
        f"{path}: graded with a different set of checks ({len(theirs)} checks; this harness has {len(CHECKS)}): "
        f"{detail}. Grade every shard with the same harness version."
    )
