"""Does an input still fail a check? Each kind of check judged on any input, against trusted answers.

A check's own assertions are written for its own input (the worked example's exact stats, the
fixture's planted counts). Shrinking asks the same question of smaller inputs, so each kind of
check is judged here in general terms: the output against the oracle's, the stats the oracle knows
against its counts, the filter's stats against the reference's (it shares the filter's rules), a
split against the oracle's split. A ``Verdict`` says whether the input fails and holds what was
expected and what came back, as plain data for the reports.
"""

from __future__ import annotations

import functools
import math
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from dedup_harness.core.removal import entries_under

LN2_SQUARED = math.log(2) ** 2


@dataclass
class Verdict:
    failing: bool
    expected: dict[str, Any] = field(default_factory=dict)
    got: dict[str, Any] = field(default_factory=dict)
    differences: list[str] = field(default_factory=list)


@dataclass
class Trusted:
    """What judges an input: the oracle, the reference's stage, the Doc type, a folder for spools."""

    oracle: ModuleType
    reference: ModuleType
    doc: type
    scratch: Path


Inputs = dict[str, Any]


def run_stage(
    impl: Any, docs: Iterable[Any], bloom_bytes_per_item: float, **options: Any
) -> tuple[list[Any], dict[str, Any]]:
    """The stage run to the end over a one-shot iterator, as the suite runs it: (output, stats)."""
    stats: dict[str, Any] = {}
    output = impl.exact_dedup(iter(list(docs)), bloom_bytes_per_item, stats=stats, **options)
    read_all = getattr(type(output), "read_all", None)
    return (read_all(output) if read_all is not None else list(output)), stats


def records(docs: Iterable[Any]) -> list[dict[str, Any]]:
    return [{"id": d.id, "text": d.text, "meta": d.meta} for d in docs]


def output_differences(got: list[Any], want: list[Any]) -> list[str]:
    """How two outputs differ, document by document, in input order (by fields: the two sides may use
    Doc classes of different roots)."""
    got_by_id, want_by_id = {d.id: _fields(d) for d in got}, {d.id: _fields(d) for d in want}
    lines = []
    for doc_id in dict.fromkeys([*(d.id for d in want), *(d.id for d in got)]):
        if doc_id not in got_by_id:
            lines.append(f"document {doc_id!r}: expected {want_by_id[doc_id][1]!r}, missing from the output")
        elif doc_id not in want_by_id:
            lines.append(f"document {doc_id!r}: expected to be dropped, came out as {got_by_id[doc_id][1]!r}")
        elif got_by_id[doc_id] != want_by_id[doc_id]:
            (_, want_text, want_meta), (_, got_text, got_meta) = want_by_id[doc_id], got_by_id[doc_id]
            what, want_value, got_value = (
                ("text", want_text, got_text) if want_text != got_text else ("meta", want_meta, got_meta)
            )
            lines.append(f"document {doc_id!r}: expected {what} {want_value!r}, got {got_value!r}")
    if not lines and [d.id for d in got] != [d.id for d in want]:
        lines.append(f"documents in another order: expected {[d.id for d in want]}, got {[d.id for d in got]}")
    return lines


def _fields(doc: Any) -> tuple[Any, Any, Any]:
    return doc.id, doc.text, doc.meta


def stats_differences(got: dict[str, Any], want: dict[str, Any]) -> list[str]:
    return [f"{key}: expected {value!r}, got {got.get(key)!r}" for key, value in want.items() if got.get(key) != value]


def oracle_run(trusted: Trusted, docs: list[Any]) -> tuple[list[Any], dict[str, Any]]:
    stats: dict[str, Any] = {}
    return list(trusted.oracle.exact_dedup(docs, stats=stats)), stats


def compare(trusted: Trusted, impl: Any, inputs: Inputs, want_stats: Callable[[list[Any]], dict[str, Any]]) -> Verdict:
    """The stage's output and the stats ``want_stats`` names, against the oracle's output and those stats."""
    docs, b = inputs["docs"], inputs.get("bloom_bytes_per_item", 10)
    want_out, _ = oracle_run(trusted, docs)
    want = want_stats(docs)
    out, stats = run_stage(impl, docs, b)
    shown_stats = {key: stats.get(key) for key in want}
    differences = output_differences(out, want_out) + stats_differences(shown_stats, want)
    return Verdict(
        bool(differences),
        {"output": records(want_out), "stats": want},
        {"output": records(out), "stats": shown_stats},
        differences,
    )


def judge_output(trusted: Trusted, impl: Any, inputs: Inputs) -> Verdict:
    """The output, and the counts the oracle knows (duplicates, drops), as the oracle has them."""
    return compare(trusted, impl, inputs, lambda docs: oracle_run(trusted, docs)[1])


def judge_hand(trusted: Trusted, impl: Any, inputs: Inputs) -> Verdict:
    """The output and every stat, and each paragraph's digest: the worked example's questions."""

    def every_stat(docs: list[Any]) -> dict[str, Any]:
        _, counts = oracle_run(trusted, docs)
        _, reference = run_stage(trusted.reference, docs, inputs.get("bloom_bytes_per_item", 10))
        return {key: (counts | reference).get(key) for key in trusted.reference.STATS_KEYS}

    verdict = compare(trusted, impl, inputs, every_stat)
    for paragraph in dict.fromkeys(p for d in inputs["docs"] for p in trusted.oracle.paragraphs(d.text)):
        want, got = trusted.reference.paragraph_hash(paragraph).hex(), impl.paragraph_hash(paragraph).hex()
        if got != want:
            verdict.failing = True
            verdict.differences.append(f"paragraph_hash({paragraph!r}): expected {want[:16]}..., got {got[:16]}...")
    return verdict


def judge_tiny_filter(trusted: Trusted, impl: Any, inputs: Inputs) -> Verdict:
    """The output as the oracle's, and candidates = repeated paragraphs + false positives."""
    verdict = judge_output(trusted, impl, inputs)
    out, stats = run_stage(impl, inputs["docs"], inputs.get("bloom_bytes_per_item", 0.25))
    counts: dict[str, int] = {}
    for doc in inputs["docs"]:
        for p in trusted.oracle.paragraphs(doc.text):
            counts[p] = counts.get(p, 0) + 1
    repeated = sum(1 for n in counts.values() if n > 1)
    candidates, positives = stats.get("candidates"), stats.get("false_positives")
    if not isinstance(positives, int) or candidates != repeated + positives:
        verdict.failing = True
        verdict.expected["candidates"] = f"{repeated} repeated paragraphs + the false positives ({positives!r})"
        verdict.got["candidates"] = candidates
        verdict.differences.append(
            f"candidates: expected the {repeated} repeated paragraphs plus the {positives!r} false positives, "
            f"got {candidates!r}"
        )
    return verdict


def judge_split(trusted: Trusted, impl: Any, inputs: Inputs) -> Verdict:
    """paragraphs(text) as the rule has it, and the stage splitting the same way."""
    text = inputs["text"]
    want, got = trusted.oracle.paragraphs(text), impl.paragraphs(text)
    if got != want:
        return Verdict(
            True, {"paragraphs": want}, {"paragraphs": got}, [f"paragraphs({text!r}): expected {want!r}, got {got!r}"]
        )
    docs = [trusted.doc("first", text)] + ([trusted.doc("copy", want[-1])] if want else [])
    verdict = judge_output(trusted, impl, {"docs": docs, "bloom_bytes_per_item": 10})
    verdict.differences = [
        f"the stage, given 'first' = the text and 'copy' = its last paragraph: {d}" for d in verdict.differences
    ]
    return verdict


def judge_sizing(trusted: Trusted, impl: Any, inputs: Inputs) -> Verdict:
    """bloom_rate(B) by the formula, a bad B refused, and about 8BN bits for N paragraphs."""
    b = inputs["bloom_bytes_per_item"]
    if not (isinstance(b, (int, float)) and math.isfinite(b) and b > 0):
        return _refused(impl, b)
    if "docs" not in inputs:
        want, got = math.exp(-8 * b * LN2_SQUARED), impl.bloom_rate(b)
        failing = not math.isclose(got, want, rel_tol=1e-9)
        return Verdict(
            failing,
            {"bloom_rate": want},
            {"bloom_rate": got},
            [f"bloom_rate({b}): expected {want!r}, got {got!r}"] if failing else [],
        )
    n = sum(len(trusted.oracle.paragraphs(d.text)) for d in inputs["docs"])
    _, stats = run_stage(impl, inputs["docs"], b)
    want_bits, got_bits = 8 * b * max(n, 1), stats.get("bloom_bits")
    failing = not isinstance(got_bits, int) or abs(got_bits - want_bits) > 1
    difference = f"bloom_bits for {n} paragraphs at B={b}: expected about 8BN = {want_bits:g}, got {got_bits!r}"
    return Verdict(failing, {"bloom_bits": want_bits}, {"bloom_bits": got_bits}, [difference] if failing else [])


def _refused(impl: Any, b: Any) -> Verdict:
    try:
        list(impl.exact_dedup([], b))
    except ValueError:
        return Verdict(False)
    return Verdict(
        True, {"raises": "ValueError"}, {"raises": None}, [f"exact_dedup([], {b!r}): expected a ValueError, got none"]
    )


def judge_budget(trusted: Trusted, impl: Any, inputs: Inputs) -> Verdict:
    """No more false positives than the sizing promises (none at all at B = 10)."""
    docs, b = inputs["docs"], inputs["bloom_bytes_per_item"]
    n = sum(len(trusted.oracle.paragraphs(d.text)) for d in docs)
    p = math.exp(-8 * b * LN2_SQUARED)
    budget = 0 if b >= 10 else n * p + 4 * math.sqrt(n * p * (1 - p))
    _, stats = run_stage(impl, docs, b)
    positives = stats.get("false_positives")
    failing = not isinstance(positives, int) or positives > budget
    difference = (
        f"false positives among {n} unique paragraphs at B={b}: expected at most {budget:.2f}, got {positives!r}"
    )
    return Verdict(
        failing,
        {"false_positives_at_most": round(budget, 2)},
        {"false_positives": positives},
        [difference] if failing else [],
    )


def judge_stats(trusted: Trusted, impl: Any, inputs: Inputs) -> Verdict:
    """Every stat filled with a whole number once the output is exhausted; for an empty input, a filter
    sized for one paragraph and every count 0, with B's default of 10."""
    names = tuple(trusted.reference.STATS_KEYS)
    docs, b = inputs["docs"], inputs.get("bloom_bytes_per_item", 10)
    _, stats = run_stage(impl, docs, b)
    missing = [key for key in names if type(stats.get(key)) is not int]
    got_names = tuple(impl.STATS_KEYS)
    differences = (
        [f"stats {missing} missing or not whole numbers after the output was read to the end"] if missing else []
    )
    if got_names != names:
        differences.append(f"STATS_KEYS: expected {names!r}, got {got_names!r}")
    _, want = run_stage(trusted.reference, docs, b)
    if not docs and not missing:
        differences += stats_differences(stats, want)
        default: dict[str, Any] = {}
        list(impl.exact_dedup(iter(docs), stats=default))
        if default != stats:
            differences.append(f"with B left out (its default is 10): expected the stats {stats!r}, got {default!r}")
    return Verdict(
        bool(differences),
        {"stats": {k: want.get(k) for k in names}},
        {"stats": {k: stats.get(k) for k in names}},
        differences,
    )


def judge_spool(trusted: Trusted, impl: Any, inputs: Inputs) -> Verdict:
    """Nothing left under spool_dir once the stage ended the way the check ended it."""
    docs, ending = inputs["docs"], inputs["ending"]
    trusted.scratch.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="spool-", dir=trusted.scratch))
    source: Iterable[Any] = _raising(docs) if ending == "input raised" else docs
    stage = impl.exact_dedup(iter(source), 10, spool_dir=folder)
    try:
        _end(stage, ending)
    except RuntimeError as error:
        if ending != "input raised" or "the input broke" not in str(error):
            raise
    left = entries_under(folder)
    failing = bool(left)
    difference = f"spool_dir after the stage was {ending}: expected empty, holds {left}"
    return Verdict(failing, {"left_in_spool_dir": []}, {"left_in_spool_dir": left}, [difference] if failing else [])


def _raising(docs: list[Any]) -> Iterator[Any]:
    yield from docs
    raise RuntimeError("the input broke")


def _end(stage: Any, ending: str) -> None:
    if ending == "read to the end" or ending == "input raised":
        list(stage)
    elif ending == "closed early":
        next(stage)
        stage.close()
    else:
        stage.close()


def judge_stage(trusted: Trusted, impl: Any, inputs: Inputs) -> Verdict:
    """Composed after another stage with its options bound: the oracle's output of what it was given; an
    iterator; and run again on its own output, nothing more to remove."""
    b = inputs.get("bloom_bytes_per_item", 1)

    def tag(docs: Iterable[Any]) -> Iterator[Any]:
        for doc in docs:
            yield trusted.doc(doc.id, doc.text, {**doc.meta, "tagged": True})

    stage = functools.partial(impl.exact_dedup, bloom_bytes_per_item=b)
    got = list(stage(tag(iter(inputs["docs"]))))
    want, _ = oracle_run(trusted, list(tag(inputs["docs"])))
    differences = output_differences(got, want)
    stream = stage(iter(inputs["docs"]))
    if iter(stream) is not stream:
        differences.append(f"the stage should return an iterator; iter() of what it returned is {iter(stream)!r}")
    once = list(stage(iter(inputs["docs"])))
    twice = list(stage(iter(list(stage(iter(inputs["docs"]))))))
    if [_fields(d) for d in twice] != [_fields(d) for d in once]:
        differences.append(
            f"run again on its own output: expected it unchanged, {records(once)!r}, got {records(twice)!r}"
        )
    return Verdict(bool(differences), {"output": records(want)}, {"output": records(got)}, differences)


JUDGES: dict[str, Callable[[Trusted, Any, Inputs], Verdict]] = {
    "hand": judge_hand,
    "output": judge_output,
    "tiny filter": judge_tiny_filter,
    "split": judge_split,
    "sizing": judge_sizing,
    "budget": judge_budget,
    "stats": judge_stats,
    "spool": judge_spool,
    "stage": judge_stage,
}
