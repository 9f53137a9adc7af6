"""The committed fixture is exactly what the generator writes, and what it planted is what the oracle finds."""

from __future__ import annotations

import hashlib
import json

from dedup_harness.core import reference
from dedup_harness.core.paths import FIXTURE_DIR
from fixture import fixture_files


def test_the_fixture_regenerates_byte_for_byte() -> None:
    for name, data in fixture_files().items():
        assert (FIXTURE_DIR / name).read_bytes() == data, f"fixtures/data.03/{name} differs from the generator's output"


def test_the_fixtures_planted_answer_is_the_oracles() -> None:
    """The fixture check judges against the oracle; the generator's plan (counts and kept texts) must agree."""
    expected = json.loads((FIXTURE_DIR / "expected.json").read_text(encoding="utf-8"))
    oracle = reference.oracle()
    Doc = reference.load("corpus.doc").Doc
    with open(FIXTURE_DIR / "docs.jsonl", encoding="utf-8") as lines:
        docs = [Doc(r["id"], r["text"], r["meta"]) for r in map(json.loads, lines)]
    counts: dict[str, int] = {}
    kept = {d.id: hashlib.sha256(d.text.encode("utf-8")).hexdigest() for d in oracle.exact_dedup(docs, stats=counts)}
    assert counts == expected["counts"]
    assert kept == expected["kept_sha256"] and list(kept) == list(expected["kept_sha256"])
