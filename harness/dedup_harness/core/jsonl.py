"""JSON Lines corpora: one ``{"id", "text", "meta"}`` record a line, every error naming its line.

Lines are read as bytes and decoded here, so a file in any locale reads the same and a bad UTF-8
sequence is reported with its line number like any other malformed line.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import IO, Any

Record = dict[str, Any]

FIELDS = ("id", "text", "meta")


class CorpusError(ValueError):
    """A line of a JSON Lines corpus that is not a record: the message names the source and the line."""


def read_records(lines: Iterable[bytes], *, source: str) -> Iterator[Record]:
    """The records of a corpus, in order. ``meta`` may be left out (it is then ``{}``)."""
    for number, raw in enumerate(lines, start=1):
        try:
            yield parse_record(raw)
        except ValueError as exc:  # json.JSONDecodeError and UnicodeDecodeError are ValueErrors
            raise CorpusError(f"{source}, line {number}: {exc}") from None


def parse_record(raw: bytes) -> Record:
    """One line as a record, or a ValueError that says what is wrong with it."""
    try:
        value = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(value, dict):
        raise ValueError(f"a record is a JSON object, got {type(value).__name__}")
    unknown = sorted(set(value) - set(FIELDS))
    if unknown:
        raise ValueError(f"unknown field(s) {', '.join(map(repr, unknown))}; a record has {', '.join(FIELDS)}")
    record = {"id": value.get("id"), "text": value.get("text"), "meta": value.get("meta", {})}
    for name, kind in (("id", str), ("text", str), ("meta", dict)):
        if not isinstance(record[name], kind):
            raise ValueError(
                f"{name!r} must be a JSON {'string' if kind is str else 'object'}, got {record[name]!r:.60}"
            )
    return record


def write_record(out: IO[bytes], record: Record) -> None:
    """One record as one line of UTF-8 JSON."""
    line = json.dumps({name: record[name] for name in FIELDS}, ensure_ascii=False)
    out.write(line.encode("utf-8") + b"\n")
