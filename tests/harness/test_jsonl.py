"""Reading and writing JSON Lines corpora: records in order, every bad line named by its number."""

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
    with pytest.raises(CorpusError, match=r"^c\.jsonl, line 2: ") as caught:
        next(records)
    assert says in str(caught.value)


def test_written_records_read_back_equal_in_utf8() -> None:
    record = {"id": "é", "text": "東京\n\n🙂", "meta": {"n": 1}}
    out = io.BytesIO()
    write_record(out, record)
    assert out.getvalue().endswith(b"\n") and "東京".encode() in out.getvalue()
    assert list(read_records(out.getvalue().splitlines(keepends=True), source="x")) == [record]
