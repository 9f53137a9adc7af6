"""What merge reads: a grade CSV's batch line, header and rows, each refused in one line naming the file."""

from __future__ import annotations

import csv
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from dedup_harness.core.checks import CHECKS
from dedup_harness.distribution.batch_identity import BatchIdentity, parse_line
from dedup_harness.grade.reports.csv_report import COLUMNS, FIXED


class CsvError(ValueError):
    """A shard's CSV is not one ``grade --csv`` wrote: the message names the file (and the line)."""


@dataclass(frozen=True)
class ShardFile:
    """What one grade CSV holds: its batch, and its rows with the line each ends on."""

    path: Path
    batch: BatchIdentity
    rows: list[dict[str, str]]
    lines: list[int]


def read(path: Path) -> ShardFile:
    try:
        with open(path, encoding="utf-8", newline="") as f:
            try:
                batch = parse_line(f.readline())
            except ValueError as exc:
                raise CsvError(f"{path}: not a grade CSV: {exc}") from None
            reader = csv.DictReader(f)
            check_header(path, tuple(reader.fieldnames or ()))
            rows, lines = [], []
            for row in reader:
                if None in row or None in row.values():
                    raise CsvError(
                        f"{path}, line {reader.line_num + 1}: {_width(row)} fields; the header has {len(COLUMNS)}"
                    )
                rows.append(row)
                lines.append(reader.line_num + 1)  # the batch line comes before what the reader counts
            return ShardFile(path, batch, rows, lines)
    except OSError as exc:
        raise CsvError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise CsvError(f"{path}: not a grade CSV (not UTF-8 text)") from None
    except csv.Error as exc:
        raise CsvError(f"{path}: not a grade CSV ({exc})") from None


def _width(row: Mapping[str | None, object]) -> int:
    extra = row.get(None)
    return sum(1 for key, value in row.items() if key is not None and value is not None) + (
        len(extra) if isinstance(extra, list) else 0
    )


def check_header(path: Path, header: tuple[str, ...]) -> None:
    """A grade CSV of this harness's checks, or a CsvError that says what differs."""
    if header == COLUMNS:
        return
    if header[: len(FIXED)] != FIXED:
        raise CsvError(f"{path}: not a grade CSV (its header is {list(header)})")
    theirs = header[len(FIXED) :]
    missing = [c for c in CHECKS if c not in theirs]
    extra = [c for c in theirs if c not in CHECKS]
    parts = [f"it lacks {missing}"] if missing else []
    parts += [f"it has checks this harness does not: {extra}"] if extra else []
    detail = "; ".join(parts) or "its checks come in another order"
    raise CsvError(
        f"{path}: graded with a different set of checks ({len(theirs)} checks; this harness has {len(CHECKS)}): "
        f"{detail}. Grade every shard with the same harness version."
    )
