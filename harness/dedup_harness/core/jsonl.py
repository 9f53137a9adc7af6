"""JSON Lines corpora: one ``{"id", "text", "meta"}`` record a line, every error naming its line.

Lines are read as bytes and decoded here, so a file in any locale reads the same and a bad UTF-8
sequence is reported with its line number like any other malformed line. A record is checked here
for everything the stage would refuse later (a value JSON cannot hold again, text UTF-8 cannot
encode, a meta nested deeper than ``MAX_DEPTH``), so the error names the line, not a document deep
inside the run. Blank lines at the end of a file are accepted; a blank line before a record is not.
Malformed JSON is named by line and column (the decoder's own position, counted in characters from 1),
and a UTF-8 byte-order mark, which some editors put at the start of a file, is named as what it is.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Iterator
from typing import IO, Any

Record = dict[str, Any]

FIELDS = ("id", "text", "meta")
# Deeper than any real corpus's meta, and far inside Python's recursion limit: the stage copies meta
# through JSON and checks it recursively, and neither may fail on a record this reader let through.
MAX_DEPTH = 100
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")  # the only way JSON text can hold a lone surrogate


BOM = b"\xef\xbb\xbf"  # UTF-8's byte-order mark: JSON text may not start with one (RFC 8259, section 8.1)


class CorpusError(ValueError):
    """A line of a JSON Lines corpus that is not a record: the message names the source and the line."""


class LineError(ValueError):
    """What is wrong with one line; ``column`` (from 1, in characters) when the JSON decoder found the place."""

    def __init__(self, message: str, column: int | None = None) -> None:
        super().__init__(message)
        self.column = column


def read_records(lines: Iterable[bytes], *, source: str) -> Iterator[Record]:
    """The records of a corpus, in order. ``meta`` may be left out (it is then ``{}``)."""
    first_blank = 0  # the first of the blank lines seen since the last record
    for number, raw in enumerate(lines, start=1):
        if not raw or raw.isspace():  # (strip() would copy every line)
            first_blank = first_blank or number
            continue
        if first_blank:
            raise CorpusError(f"{source}, line {first_blank}: a blank line (only the end of a file may hold them)")
        if raw.startswith(BOM):
            raise CorpusError(
                f"{source}, line {number} starts with a UTF-8 byte-order mark: save the file as UTF-8 without one"
            )
        try:
            yield parse_record(raw)
        except ValueError as exc:  # a LineError, or the decoder's hooks refusing a NaN or an out-of-range number
            column = getattr(exc, "column", None)
            where = f", column {column}" if column is not None else ""
            raise CorpusError(f"{source}, line {number}{where}: {exc}") from None


def parse_record(raw: bytes) -> Record:
    """One line as a record, or a ValueError that says what is wrong with it."""
    try:
        value = _DECODER.decode(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise LineError(f"not UTF-8 (byte {exc.start + 1} of the line is {raw[exc.start]:#04x})") from None
    except json.JSONDecodeError as exc:
        # The decoder's message may end in "at" (it expects its own " at line L column C" after it);
        # the position is its index into this one line, so the column is that index from 1.
        message = exc.msg.removesuffix(" at")
        raise LineError(f"not JSON: {message}", column=exc.pos + 1) from None
    except RecursionError:
        raise LineError(f"nested deeper than {MAX_DEPTH} levels") from None
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
    if raw.count(b"{") + raw.count(b"[") > MAX_DEPTH:  # else no value in it can be nested that deep
        check_depth(record["meta"])
    if _SURROGATE_ESCAPE.search(raw):
        for name in FIELDS:
            check_encodable(record[name], name)
    return record


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text} is out of range (JSON cannot hold {value} again)")
    return value


# One decoder for every line: json.loads with a hook would build a decoder per call (twice the time).
_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite)


def check_depth(meta: dict[str, Any]) -> None:
    """``meta`` is at most ``MAX_DEPTH`` deep (looked at without recursion)."""
    pending: list[tuple[Any, int]] = [(meta, 1)]
    while pending:
        value, depth = pending.pop()
        if depth > MAX_DEPTH:
            raise ValueError(f"'meta' is nested deeper than {MAX_DEPTH} levels")
        if isinstance(value, dict):
            pending += [(v, depth + 1) for v in value.values()]
        elif isinstance(value, list):
            pending += [(v, depth + 1) for v in value]


def check_encodable(value: Any, name: str) -> None:
    """Every string in ``value`` (keys too) can be written as UTF-8: no lone surrogate (``\\ud800``)."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise ValueError(
                    f"{name!r} holds a lone surrogate ({item[exc.start]!r}), which UTF-8 cannot encode"
                ) from None
        elif isinstance(item, dict):
            pending += [*item.keys(), *item.values()]
        elif isinstance(item, list):
            pending += item


def write_record(out: IO[bytes], record: Record) -> None:
    """One record as one line of UTF-8 JSON."""
    line = json.dumps({name: record[name] for name in FIELDS}, ensure_ascii=False)
    out.write(line.encode("utf-8") + b"\n")
