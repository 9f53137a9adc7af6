"""The judge of the spool's purpose: the documents go to disk, and the stage's memory does not grow with them.

Two corpora, one twice the other. What a stage needs whatever the corpus (buffers, a batch in
flight) is the same in both, so the difference in peak memory is what it holds per document; and
while it runs, the spool under ``spool_dir`` holds at least the documents' bytes, counted in the
blocks the file system allocated (a sparse file cannot pass for a copy). The documents are random
text, which no compressor shrinks by much: a stage that holds them compressed holds most of their
bytes, where a repeated sentence shrank 135 times and fit in the allowance.
"""

from __future__ import annotations

import base64
import random
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from dedup_harness.core.judges.verdict import Inputs, Subject, Verdict, verdict
from dedup_harness.core.removal import allocated_bytes

# A long paragraph (16 KiB of base64 from random bytes, '+' and '/' made spaces: about 6 bits of
# randomness a character, so zlib, lzma or anything else keeps at least three quarters of it): a few
# documents of these make megabytes while the filter, the candidates and their occurrences stay tiny,
# so what grows with the corpus is the documents alone.
PARAGRAPH_BYTES = 12 << 10  # random bytes a paragraph is made of (16 KiB of text)
CORPORA = (64, 192)  # documents in the two corpora (about 2.1 and 6.3 MB)
GROWTH_ALLOWED = 4  # the peak may grow by at most a quarter of what the documents grew by
# A correct stage's growth between the two corpora is noise: at most 0.4 MB in 16 measurements of each of
# three correct stages in each of four tiers (benchmarks/check14_spread.py: the allocator's arenas, the
# batch in flight), beside an allowance of 1 MB; a stage that holds the documents grows by 4 MB every
# time. So a growth over the allowance is measured again, and the check fails only when every one of
# MEASUREMENTS is over it: noise must repeat three times to cost a correct student the point, and a
# holding stage pays two more measurements.
MEASUREMENTS = 3
# B for both runs. The filter is tiny beside the documents at any B; at B = 1 (6 hashes a paragraph
# rather than 55) a pure-Python stage spends its time on the documents, which is what is measured.
FILTER_SIZE = 1


class SpooledRun(NamedTuple):
    corpus_bytes: int  # the UTF-8 size of every document's text
    spool_bytes: int  # what lay under spool_dir once the first document came out, in allocated blocks
    used: dict[str, int]  # the memory the stage used, each way the subject's gauge measured it (empty: it could not)
    documents_out: int


def random_paragraph(generator: random.Random) -> str:
    """16 KiB of random text, no blank line in it: one long paragraph that compresses by a quarter at best."""
    return base64.b64encode(generator.randbytes(PARAGRAPH_BYTES)).decode("ascii").translate(SPACES)


SPACES = str.maketrans("+/", "  ")


def big_documents(count: int, sizes: list[int]) -> Iterator[Any]:
    """``count`` documents of two long random paragraphs each, the same for the same ``count`` every time, made
    one at a time (the judge holds none of them)."""
    from corpus.doc import Doc

    generator = random.Random(f"the memory check's {count} documents")
    for i in range(count):
        text = f"{i}a {random_paragraph(generator)}\n\n{i}b {random_paragraph(generator)}"
        doc = Doc(f"big{i}", text, {"n": i})
        sizes.append(len(doc.text.encode("utf-8")))
        yield doc


def spooled_run(subject: Subject, count: int) -> SpooledRun:
    folder = Path(tempfile.mkdtemp(prefix="spooled-", dir=subject.scratch))
    sizes: list[int] = []
    with subject.memory() as measured:
        stage = subject.impl.exact_dedup(big_documents(count, sizes), FILTER_SIZE, spool_dir=folder)
        next(stage)  # every pass before the emit is done: the whole input is in the spool
        measured.mark()  # and a stage that holds the documents holds them all
        on_disk = allocated_bytes(folder)
        out = 1 + sum(1 for _ in stage)  # one at a time, as a pipeline reads it
    return SpooledRun(sum(sizes), on_disk, measured.figures, out)


def memory(subject: Subject, inputs: Inputs) -> Verdict:
    """Both corpora come out whole; the spool holds a full copy of each; the peak grows by at most a quarter
    of what the documents grew by."""
    subject.scratch.mkdir(parents=True, exist_ok=True)
    small_count, large_count = inputs.get("corpora", CORPORA)
    small, large = spooled_run(subject, small_count), spooled_run(subject, large_count)
    more = large.corpus_bytes - small.corpus_bytes
    growths = [growth(small, large)]
    while len(growths) < MEASUREMENTS and (growths[-1] is None or growths[-1] > more / GROWTH_ALLOWED):
        growths.append(growth(spooled_run(subject, small_count), spooled_run(subject, large_count)))
    grown = min((g for g in growths if g is not None), default=None)
    differences = []
    if (small.documents_out, large.documents_out) != (small_count, large_count):
        differences.append(
            f"every document is unique and must come out: expected {small_count} and {large_count}, "
            f"got {small.documents_out} and {large.documents_out}"
        )
    differences += [
        f"while the stage ran, spool_dir held {run.spool_bytes:,} bytes for {run.corpus_bytes:,} bytes of documents: "
        "the spool should hold a full copy of them"
        for run in (small, large)
        if run.spool_bytes < run.corpus_bytes
    ]
    if grown is None:
        differences.append("the stage's memory could not be measured")
    elif grown > more / GROWTH_ALLOWED:
        differences.append(
            f"for {more:,} more bytes of documents the stage's peak memory grew by {grown:,} bytes (the least of "
            f"{MEASUREMENTS} measurements): it holds the documents in memory instead of reading them back from its "
            "spool"
        )
    return verdict({"peak_growth_at_most": more // GROWTH_ALLOWED}, {"peak_growth": grown}, differences)


def growth(small: SpooledRun, large: SpooledRun) -> int | None:
    """How much more memory the stage used for the large corpus than for the small one, the most any way of
    measuring it says (each compared with itself); None if unmeasured."""
    both = small.used.keys() & large.used.keys()
    return max((large.used[name] - small.used[name] for name in both), default=None)
