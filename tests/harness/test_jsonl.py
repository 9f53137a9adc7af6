"""Reading and writing JSON Lines corpora: records in order, every bad line named by its number (and column)."""

from __future__ import annotations

import io

import pytest

from dedup_harness.core.jsonl import CorpusError, read_records, write_record


def test_records_come_back_in_order_with_meta_defaulting_to_empty() -> None:
    lines = [b'{"id": "a", "text": "x", "meta": {"k": [1, 2.5, null]}}\n', b'{"id": "b", "text": "y\\n\\nz"}']
    assert list(read_records(lines, source="c.jsonl")) == [
        {"id": "a", "text": "x", "meta": {"k": [1, 2.5, None]}},
        {"id": "b", "text": "y\n\nz", "meta": {}},
    ]


@pytest.mark.parametrize(
    ("line", "says"),
    [
        (b"{not json\n", "not JSON"),
        (b"[1, 2]\n", "JSON object, got list"),
        (b'{"text": "x"}\n', "'id' must be a JSON string"),
        (b'{"id": 3, "text": "x"}\n', "'id' must be a JSON string"),
        (b'{"id": "a", "text": null}\n', "'text' must be a JSON string"),
        (b'{"id": "a", "text": "x", "meta": []}\n', "'meta' must be a JSON object"),
        (b'{"id": "a", "txt": "x"}\n', "unknown field(s) 'txt'"),
        (b'{"id": "a", "text": "caf\xe9"}\n', "not UTF-8"),
    ],
)
def test_a_malformed_line_is_an_error_naming_its_number(line: bytes, says: str) -> None:
    lines = [b'{"id": "ok", "text": "fine"}\n', line]
    records = read_records(lines, source="c.jsonl")
    assert next(records)["id"] == "ok"  # the good line before it still comes through
    with pytest.raises(CorpusError, match=r"^c\.jsonl, line 2(, column \d+)?: ") as caught:
        next(records)
    assert says in str(caught.value)


def error_for(line: bytes) -> str:
    with pytest.raises(CorpusError) as caught:
        list(read_records([b'{"id": "ok", "text": "fine"}\n', line], source="c.jsonl"))
    return str(caught.value)


@pytest.mark.parametrize(
    ("line", "column", "at"),
    [
        (b'{"id": "doc-1", "text": "one two", "meta" {}}\n', 43, "{"),  # deep in the line, not column 1
        (b'{"id": "\xc3\xa9\xc3\xa9", "text": "x",, "meta": {}}\n', 26, ","),  # counted in characters, not bytes
        (b'{"id": "a", "text": "x"} {"id": "b"}\n', 26, "{"),  # a second record on the line
    ],
)
def test_malformed_json_is_named_by_the_column_where_the_decoder_stopped(line: bytes, column: int, at: str) -> None:
    message = error_for(line)
    assert message.startswith(f"c.jsonl, line 2, column {column}: not JSON: "), message
    assert line.decode("utf-8")[column - 1] == at  # the column points at the offending character


def test_a_control_character_in_a_string_is_said_once_without_a_doubled_at() -> None:
    message = error_for(b'{"id": "a", "text": "tab\there"}\n')
    assert message == "c.jsonl, line 2, column 25: not JSON: Invalid control character"
    assert "at at" not in message


def test_a_byte_order_mark_is_named_as_such() -> None:
    with pytest.raises(CorpusError) as caught:
        list(read_records([b'\xef\xbb\xbf{"id": "a", "text": "x"}\n'], source="c.jsonl"))
    assert str(caught.value).startswith("c.jsonl, line 1 starts with a UTF-8 byte-order mark: ")


def test_a_bad_utf8_byte_is_named_by_its_place_in_the_line() -> None:
    assert error_for(b'{"id": "a", "text": "caf\xe9"}\n') == "c.jsonl, line 2: not UTF-8 (byte 25 of the line is 0xe9)"


def test_written_records_read_back_equal_in_utf8() -> None:
    record = {"id": "é", "text": "東京\n\n🙂", "meta": {"n": 1}}
    out = io.BytesIO()
    write_record(out, record)
    assert out.getvalue().endswith(b"\n") and "東京".encode() in out.getvalue()
    assert list(read_records(out.getvalue().splitlines(keepends=True), source="x")) == [record]
