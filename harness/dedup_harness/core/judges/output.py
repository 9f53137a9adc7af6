"""Judges of what the stage returns: against the oracle's output, its counts, and the worked example's questions.

``output`` judges checks 2, 4 and 6 (what comes out and the counts, whatever the input), ``documents``
checks 7 and 13 (what comes out, when the question is a document's text); ``hand`` the worked
example (every stat and every paragraph's digest as well) and the digest of any text; ``tiny_filter``
a filter that errs often (the candidates must still add up, and be the course's filter's when it is
the one in use); ``stage`` how the stage composes with the pipeline.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from dedup_harness.core.judges.expected import Expected
from dedup_harness.core.judges.running import fields, output_differences, records, run_stage, stats_differences
from dedup_harness.core.judges.verdict import Inputs, Subject, Verdict, verdict


def filter_sizes(inputs: Inputs, default: float) -> tuple[float, ...]:
    """The B (or the several B) an input asks the stage to run at."""
    b = inputs.get("bloom_bytes_per_item", default)
    return tuple(b) if isinstance(b, (tuple, list)) else (b,)


@dataclass
class StageRun:
    """One run of the stage beside what it should have given: the verdict's parts, and the stats it filled."""

    differences: list[str]
    expected: dict[str, Any]
    got: dict[str, Any]
    stats: dict[str, Any]


def judged_run(subject: Subject, docs: list[Any], b: float, want_stats: dict[str, Any]) -> StageRun:
    """The stage's output and the stats named in ``want_stats``, against the oracle's output and those stats."""
    want = Expected(docs, b).output
    out, stats = run_stage(subject.impl, docs, b)
    got = {key: stats.get(key) for key in want_stats}
    differences = output_differences(out, want) + stats_differences(got, want_stats)
    expected = {"output": records(want), "stats": want_stats}
    return StageRun(differences, expected, {"output": records(out), "stats": got}, stats)


def compare(subject: Subject, inputs: Inputs, want_stats: dict[str, Any], *, default: float = 10) -> Verdict:
    """``judged_run`` at each B the input asks for; the first B whose answer differs is the verdict."""
    sizes = filter_sizes(inputs, default)
    for b in sizes:
        run = judged_run(subject, inputs["docs"], b, want_stats)
        if run.differences:
            where = f"at B={b:g}: " if len(sizes) > 1 else ""
            return verdict(run.expected, run.got, [where + d for d in run.differences])
    return Verdict(False)


def output(subject: Subject, inputs: Inputs) -> Verdict:
    """The output, and the counts the oracle knows, as the oracle has them."""
    return compare(subject, inputs, Expected(inputs["docs"], 10).counts)


def documents(subject: Subject, inputs: Inputs) -> Verdict:
    """The documents that come out, as the oracle has them, and nothing about the counts: for the checks
    whose question is what happens to a document's text."""
    return compare(subject, inputs, {})


def hand(subject: Subject, inputs: Inputs) -> Verdict:
    """Each distinct paragraph's digest, then the output and every stat: the worked example's questions, in
    the chapter's order (a wrong digest is the first answer that can be wrong, and says enough alone). Given
    ``paragraphs`` alone, their digests: SHA-256 of the UTF-8 text, and a ValueError for a text UTF-8
    cannot encode (a lone surrogate)."""
    if "paragraphs" in inputs:
        return digests(subject, inputs["paragraphs"])
    expected = Expected(inputs["docs"], filter_sizes(inputs, 10)[0])
    found = digests(subject, list(dict.fromkeys(expected.paragraphs)))
    return found if found.failing else compare(subject, inputs, expected.every_stat())


def digests(subject: Subject, paragraphs: list[str]) -> Verdict:
    """``paragraph_hash(p)`` for each paragraph: the SHA-256 digest of its UTF-8 encoding, or, where UTF-8 cannot
    encode it, a ValueError (the stage refuses such a document, naming it: a digest of some other encoding
    would be another identity)."""
    want, got, differences = {}, {}, []
    for p in paragraphs:
        expected, answer = _utf8_digest(p), _digest(subject, p)
        if answer != expected:
            want[p], got[p] = expected, answer
            should = (
                "raise ValueError (UTF-8 cannot encode the text)"
                if expected == RAISES
                else f"be the SHA-256 of its UTF-8 text, {_short(expected)}"
            )
            came = "it raised ValueError" if answer == RAISES else f"got {_short(answer)}"
            differences.append(f"paragraph_hash({p!r}) should {should}, {came}")
    return verdict({"paragraph_hash": want}, {"paragraph_hash": got}, differences)


RAISES = "ValueError"  # what a digest is said to be when paragraph_hash raises it


def _utf8_digest(p: str) -> str:
    try:
        return hashlib.sha256(p.encode("utf-8")).hexdigest()
    except UnicodeEncodeError:
        return RAISES


def _digest(subject: Subject, p: str) -> str:
    """The submission's digest of ``p`` in hex; RAISES for a ValueError (UnicodeEncodeError is one); else what
    came back, as Python writes it."""
    try:
        digest = subject.impl.paragraph_hash(p)
    except ValueError:
        return RAISES
    return digest.hex() if isinstance(digest, bytes) else repr(digest)


def _short(answer: str) -> str:
    return answer if len(answer) <= 19 else f"{answer[:16]}..."


def tiny_filter(subject: Subject, inputs: Inputs) -> Verdict:
    """The output as the oracle's, candidates = the repeated paragraphs + the false positives, and the screen the
    contract's: with the course's filter, exactly its candidates and false positives; with a filter of the
    student's own (which the trusted side cannot replay), false positives where the budget expects dozens."""
    docs, b = inputs["docs"], filter_sizes(inputs, 0.25)[0]
    expected = Expected(docs, b)
    run = judged_run(subject, docs, b, expected.counts)
    candidates, positives = run.stats.get("candidates"), run.stats.get("false_positives")
    if type(positives) is not int or candidates != expected.repeated + positives:
        run.expected["candidates"] = (
            f"the {expected.repeated} repeated paragraphs + the false positives ({positives!r})"
        )
        run.got["candidates"] = candidates
        run.differences.append(
            f"candidates should be the {expected.repeated} repeated paragraphs plus the {positives!r} false "
            f"positives, got {candidates!r}"
        )
    elif not subject.own_filter:
        run.differences += _screened_by_the_course_filter(expected, run, b)
    elif positives == 0 and expected.budget.least > 0:
        run.expected["false_positives_at_least"] = expected.budget.least
        run.got["false_positives"] = positives
        run.differences.append(
            f"no false positives at B={b}, where a filter sized by the rule meets {expected.budget.mean:.0f} on "
            f"average: the screen is not a Bloom filter of B bytes a paragraph"
        )
    return verdict(run.expected, run.got, run.differences)


def _screened_by_the_course_filter(expected: Expected, run: StageRun, b: float) -> list[str]:
    """The stage's candidates and false positives against the course's filter's, replayed on the same paragraphs
    in the same order (it answers the same on every run): a differing count is another screen."""
    want = expected.screen
    got = {key: run.stats.get(key) for key in want}
    if got == want:
        return []
    run.expected["screen"], run.got["screen"] = want, got
    first = ", ".join(repr(p) for p in expected.false_positive_paragraphs[:3])
    return [
        f"the course's filter at B={b:g} reads {want['false_positives']} unique paragraphs present (the first: "
        f"{first or 'none'}), so {want['candidates']} candidates and {want['false_positives']} false positives; got "
        f"{got['candidates']!r} and {got['false_positives']!r}"
    ]


def stage(subject: Subject, inputs: Inputs) -> Verdict:
    """Composed after another stage with its options bound by partial: the oracle's output of what it was
    given; an iterator; and run again on its own output, nothing more to remove."""
    doc = importlib.import_module("corpus.doc")
    b, docs = filter_sizes(inputs, 1)[0], inputs["docs"]

    def tag(stream: Iterable[Any]) -> Iterator[Any]:
        for d in stream:
            yield doc.Doc(d.id, d.text, {**d.meta, "tagged": True})

    bound = functools.partial(subject.impl.exact_dedup, bloom_bytes_per_item=b)
    got = list(doc.compose(tag, bound)(iter(docs)))
    want = Expected(list(tag(docs)), b).output
    differences = output_differences(got, want)
    stream = bound(iter(docs))
    if iter(stream) is not stream:
        differences.append(f"the stage should return an iterator; iter() of what it returned is {iter(stream)!r}")
    getattr(stream, "close", lambda: None)()
    once = list(bound(iter(docs)))
    twice = list(doc.compose(bound, bound)(iter(docs)))
    if [fields(d) for d in twice] != [fields(d) for d in once]:
        differences.append(
            f"run twice, it should change nothing more: expected {records(once)!r}, got {records(twice)!r}"
        )
    return verdict({"output": records(want)}, {"output": records(got)}, differences)
