"""The data.03 fixture: 200 documents with planted duplicates, and the values dedup must give on them.

The expected values come from the plan of what was planted (``Plan.expected``), never from running
the reference or the oracle. Regenerate byte for byte with ``python tools/fixture.py [DIR]``.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path

from dedup_harness.core.corpora import Plan, Planned, paragraph, render, sentence
from dedup_harness.core.paths import FIXTURE_DIR

SEED = 3
DOCUMENTS = 200
BLOOM_BYTES_PER_ITEM = 10
FOOTER = "Shared under CC BY-SA 4.0. Report problems to the maintainers of this page."
CONTINUED = "(Quoted from an earlier page, with this line added.)"

# What each planted kind of document does; the planner draws kinds with these weights.
KINDS = {
    "original": 50,  # fresh paragraphs, sometimes the shared footer
    "exact_copy": 6,  # the text of an earlier document, byte for byte: loses everything, dropped
    "retitled_copy": 5,  # a new title over an earlier document's paragraphs
    "inner_repeat": 5,  # one of its own paragraphs twice
    "all_repeats": 4,  # paragraphs picked from several earlier documents: dropped
    "padded_repeat": 5,  # an earlier paragraph with spaces and tabs around it
    "near_duplicate": 5,  # an earlier paragraph with one character changed, and one with a line added: both survive
    "crlf": 8,  # \r\n line ends throughout
    "no_paragraphs": 1,  # empty or blank text: passes through unchanged
}


class Planner:
    """Builds the fixture one document at a time, recording each document's exact paragraphs."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.plan = Plan()
        self.pool: list[str] = []  # single-line paragraphs planted so far (safe to reuse in any line ending)

    def fresh(self) -> str:
        p = paragraph(self.rng, non_ascii=0.15)
        if "\n" not in p:
            self.pool.append(p)
        return p

    def add(self, kind: str, paras: list[str], text: str) -> None:
        i = len(self.plan.docs)
        record = {"id": f"data03-{i:03d}", "text": text, "meta": {"kind": kind, "n": i}}
        self.plan.docs.append(Planned(record, paras))
        self.plan.kinds[kind] = self.plan.kinds.get(kind, 0) + 1

    def earlier(self) -> Planned:
        return self.rng.choice([d for d in self.plan.docs if d.paragraphs])

    def original(self) -> None:
        paras = [self.fresh() for _ in range(self.rng.randint(1, 5))]
        if self.rng.random() < 0.4:
            paras.append(FOOTER)
        self.add("original", paras, render(self.rng, paras))

    def exact_copy(self) -> None:
        source = self.earlier()
        self.add("exact_copy", list(source.paragraphs), source.record["text"])

    def retitled_copy(self) -> None:
        source = self.earlier()
        paras = [sentence(self.rng), *source.paragraphs]
        crlf = "\r\n" in source.record["text"]  # keep the source's line ends, so its paragraphs match
        self.add("retitled_copy", paras, render(self.rng, paras, crlf=crlf))

    def inner_repeat(self) -> None:
        paras = [self.fresh() for _ in range(self.rng.randint(2, 4))]
        paras.insert(self.rng.randint(1, len(paras)), self.rng.choice(paras))
        self.add("inner_repeat", paras, render(self.rng, paras))

    def all_repeats(self) -> None:
        paras = self.rng.sample(self.pool, k=min(3, len(self.pool)))
        self.add("all_repeats", paras, render(self.rng, paras))

    def padded_repeat(self) -> None:
        paras = [self.rng.choice(self.pool), self.fresh()]
        self.add("padded_repeat", paras, render(self.rng, paras, pad=True))

    def near_duplicate(self) -> None:
        source = self.rng.choice(self.pool)
        positions = [n for n, c in enumerate(source) if c.isalpha() and c.isascii()]
        n = self.rng.choice(positions)
        changed = source[:n] + ("x" if source[n] != "x" else "y") + source[n + 1 :]
        paras = [changed, self.fresh()]
        # The source's only line, then one more: the same first line, another paragraph. Added after the
        # rendering, so the generator draws what it drew before this kind had it.
        continued = f"{source}\n{CONTINUED}"
        self.add("near_duplicate", [*paras, continued], f"{render(self.rng, paras)}\n\n{continued}")

    def crlf(self) -> None:
        reused = [self.rng.choice(self.pool)] if self.rng.random() < 0.5 else []
        paras = reused + [self.fresh() for _ in range(self.rng.randint(1, 3))]
        # Inside a \r\n document a paragraph's own line breaks are \r\n too.
        self.add("crlf", [p.replace("\n", "\r\n") for p in paras], render(self.rng, paras, crlf=True))

    def no_paragraphs(self) -> None:
        self.add("no_paragraphs", [], self.rng.choice(("", " \n\t\n  ", "\r\n\r\n")))


def plan_fixture(seed: int = SEED, documents: int = DOCUMENTS) -> Plan:
    """The fixture's plan: ten originals first (so copies have sources), then kinds drawn by weight."""
    planner = Planner(seed)
    for _ in range(10):
        planner.original()
    kinds, weights = list(KINDS), list(KINDS.values())
    while len(planner.plan.docs) < documents:
        getattr(planner, planner.rng.choices(kinds, weights)[0])()
    return planner.plan


def fixture_files(seed: int = SEED) -> dict[str, bytes]:
    """The fixture's files, by name, exactly as they are committed."""
    plan = plan_fixture(seed)
    expected = plan.expected()
    docs = "".join(json.dumps(d.record, ensure_ascii=False) + "\n" for d in plan.docs)
    values = {
        "generator": "tools/fixture.py plan_fixture",
        "seed": seed,
        "bloom_bytes_per_item": BLOOM_BYTES_PER_ITEM,
        "planted": dict(sorted(plan.kinds.items())),
        "counts": expected["counts"],
        "kept_sha256": {
            doc_id: hashlib.sha256(text.encode("utf-8")).hexdigest() for doc_id, text in expected["kept_texts"].items()
        },
    }
    return {
        "docs.jsonl": docs.encode("utf-8"),
        "expected.json": (json.dumps(values, indent=2, ensure_ascii=False) + "\n").encode("utf-8"),
    }


def write_fixture(folder: Path = FIXTURE_DIR) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in fixture_files().items():
        (folder / name).write_bytes(data)


if __name__ == "__main__":
    write_fixture(Path(sys.argv[1]) if len(sys.argv) > 1 else FIXTURE_DIR)
