"""Benchmark: how often check 9's false-positive budget fails a correct filter, and how surely it fails a wrong one.

Run with ``python benchmarks/false_alarms.py [--seeds N] [--mutant-seeds M] [--case PARAGRAPHS:B ...]
[--json FILE]`` (numpy needed: ``pip install -e '.[bench]'``). Printed, not asserted. For each case of the
check (``core.corpora.BUDGET_CASES`` unless ``--case`` names others):

- **a correct filter, over many seeds**: the course's filter, sized by the rule, screens the SHA-256
  digests of N distinct texts (a seed gives N new ones: a filter of one's own, with other hash
  functions, meets its draws as a new seed does), through the external sort's numpy batch path, whose
  answers are the reference loop's exactly (tests/external/test_bloom_batch.py). It counts the
  screens whose false positives fall outside the budget, beside the chance the budget's own model
  gives (the exact tail of its sum of draws);
- **the check's mutants, over fewer seeds**: the extra mutants aimed at the check and the catalogue
  mutants whose kill set names it, each run through the check's own judge on the first N paragraphs
  of the unique corpus made with each seed (the check's is seed ``UNIQUE_SEED``), the reference beside
  them: how often each case, and the check as a whole, fails it.

With the course's filter a stage's count is the same on every run, so a correct stage that uses it
never meets these odds; they are what a correct filter of a student's own risks.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from power.extra_mutants import load_mutants

from dedup_harness.core import bloom_sizing, reference
from dedup_harness.core.catalogue import load_catalogue
from dedup_harness.core.corpora import BUDGET_CASES, UNIQUE_PER_DOC, UNIQUE_SEED, unique_corpus
from dedup_harness.core.judges import JUDGES, Subject
from dedup_harness.core.kill_matrix import load_kill_sets
from dedup_harness.core.mutant_roots import mutant_root
from dedup_harness.core.paths import FIXTURE_DIR, IMPL_EXTERNAL_ROOT, IMPL_ROOT

CHECK = "test_false_positives_stay_within_the_budget"
Case = tuple[int, float]


@dataclass
class CorrectFilter:
    """One case, a correct filter: the budget, the model's chance of falling outside it, and what the seeds did."""

    paragraphs: int
    bloom_bytes_per_item: float
    k: int
    mean: float
    deviation: float
    least: int
    most: int
    model_above: float  # the budget's model: the chance of more than ``most``
    model_below: float  # ... and of fewer than ``least``
    seeds: int
    above: int  # screens of the seeds with more than ``most``
    below: int
    measured_mean: float
    measured_deviation: float


def draws(paragraphs: int, error_rate: float) -> list[float]:
    """The chance that each paragraph in turn reads present: the budget's own model (core.bloom_sizing)."""
    m = bloom_sizing.bits(paragraphs, error_rate)
    k = bloom_sizing.hashes(m, paragraphs)
    return [(1 - np.exp(-k * t / m)) ** k for t in range(paragraphs)]


def tails(chances: Sequence[float], least: int, most: int) -> tuple[float, float]:
    """P(count > most) and P(count < least) for a sum of independent draws with these chances (exact)."""
    count = np.zeros(len(chances) + 1)
    count[0] = 1.0
    for i, q in enumerate(chances):
        moved = count[: i + 1] * q
        count[: i + 1] *= 1 - q
        count[1 : i + 2] += moved
    return float(count[most + 1 :].sum()), float(count[:least].sum())


def correct_filter(case: Case, seeds: int) -> CorrectFilter:
    paragraphs, b = case
    rate = bloom_sizing.rate(b)
    promised = bloom_sizing.budget(paragraphs, rate)
    above_chance, below_chance = tails(draws(paragraphs, rate), promised.least, promised.most)
    course = reference.course_bloom().BloomFilter(paragraphs, rate)
    batch = reference.module_of(IMPL_EXTERNAL_ROOT, "corpus.bloom_numpy")
    counts = []
    for seed in range(seeds):
        digests = [hashlib.sha256(f"{seed}/{i}".encode()).digest() for i in range(paragraphs)]
        counts.append(sum(batch.screen_batch(bytearray(len(course.bits)), course.m, course.k, digests)))
    found = np.array(counts)
    return CorrectFilter(
        paragraphs,
        b,
        course.k,
        round(promised.mean, 2),
        round(promised.deviation, 2),
        promised.least,
        promised.most,
        above_chance,
        below_chance,
        seeds,
        int((found > promised.most).sum()),
        int((found < promised.least).sum()),
        round(float(found.mean()), 2),
        round(float(found.std(ddof=1)), 2) if seeds > 1 else 0.0,
    )


def fixture_chance() -> float:
    """The chance that a correct filter meets any false positive on the fixture at B = 10 (its budget is 0)."""
    with open(FIXTURE_DIR / "docs.jsonl", encoding="utf-8") as lines:
        texts = [json.loads(line)["text"] for line in lines]
    reference.load("corpus.doc")  # the oracle imports corpus.doc: the reference root's, here
    split = reference.oracle().paragraphs
    paragraphs = len({p for text in texts for p in split(text)})
    above, _ = tails(draws(paragraphs, bloom_sizing.rate(10)), 0, 0)
    return above


def mutant_roots(scratch: Path) -> dict[str, Path]:
    """The reference, the extra mutants aimed at the check, and the catalogue mutants whose kill set names it."""
    roots = {"reference": IMPL_ROOT}
    for mutant in load_mutants():
        if mutant.check == CHECK:
            roots[mutant.name] = mutant.build(scratch / mutant.name)
    kill_sets = load_kill_sets()
    for entry in load_catalogue():
        if CHECK in kill_sets.get(entry.id, ()):
            roots[entry.id] = mutant_root(entry, scratch / entry.id)
    return roots


def kill_rates(cases: Sequence[Case], seeds: int, scratch: Path) -> dict[str, dict[str, float]]:
    """For each root, the share of seeds on which each case fails it (the fixture's case is one and the same on
    every seed), and the share on which any case does."""
    stages = {name: reference.stage_of(root) for name, root in mutant_roots(scratch).items()}
    judge = JUDGES["budget"]
    labels = [*(f"{n}:{b:g}" for n, b in cases), FIXTURE_CASE]
    kills: dict[str, dict[str, int]] = {name: dict.fromkeys([*labels, "any"], 0) for name in stages}
    fixture = {name: _fails(judge, Subject(stage, scratch), fixture_inputs(stage)) for name, stage in stages.items()}
    for seed in range(UNIQUE_SEED, UNIQUE_SEED + seeds):
        records = unique_corpus(seed, paragraphs=max(n for n, _ in cases), per_doc=UNIQUE_PER_DOC)
        for name, stage in stages.items():
            subject = Subject(stage, scratch)
            docs = [stage.Doc(r["id"], r["text"], r["meta"]) for r in records]
            failed = [
                f"{n}:{b:g}"
                for n, b in cases
                if _fails(judge, subject, {"docs": docs[: n // UNIQUE_PER_DOC], "bloom_bytes_per_item": b})
            ]
            failed += [FIXTURE_CASE] if fixture[name] else []
            for label in [*failed, "any"] if failed else []:
                kills[name][label] += 1
    return {name: {label: n / seeds for label, n in found.items()} for name, found in kills.items()}


FIXTURE_CASE = "fixture:10"


def fixture_inputs(stage: Any) -> dict[str, Any]:
    with open(FIXTURE_DIR / "docs.jsonl", encoding="utf-8") as lines:
        docs = [stage.Doc(r["id"], r["text"], r["meta"]) for r in map(json.loads, lines)]
    return {"docs": docs, "bloom_bytes_per_item": 10}


def _fails(judge: Any, subject: Subject, inputs: dict[str, Any]) -> bool:
    try:
        return bool(judge(subject, inputs).failing)
    except Exception:  # a mutant that crashes on a case is not killed by it
        return False


def case_of(text: str) -> Case:
    paragraphs, _, b = text.partition(":")
    try:
        return int(paragraphs), float(b)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a case is PARAGRAPHS:B, like 5000:0.25, not {text!r}") from None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=20_000, help="seeds of a correct filter per case")
    parser.add_argument("--mutant-seeds", type=int, default=50, help="seeds of each mutant (0: none)")
    parser.add_argument("--case", type=case_of, action="append", help="PARAGRAPHS:B (repeatable; default: the check's)")
    parser.add_argument("--json", type=Path, help="write the figures here as JSON")
    args = parser.parse_args()
    cases: list[Case] = args.case or list(BUDGET_CASES)
    started = time.monotonic()
    correct = [correct_filter(case, args.seeds) for case in cases]
    print(
        f"{'case':>10} {'k':>3} {'expected':>15} {'window':>12} {'model: above, below':>22} {'seeds: above, below':>20}"
    )
    for c in correct:
        print(
            f"{c.paragraphs:>6}:{c.bloom_bytes_per_item:<4g} {c.k:>2} {c.mean:>9.1f} ± {c.deviation:<4.1f}"
            f" {f'[{c.least}, {c.most}]':>12} {c.model_above:>11.1e}, {c.model_below:.1e}"
            f" {c.above:>8}, {c.below} of {c.seeds} (mean {c.measured_mean}, sd {c.measured_deviation})"
        )
    fixture = fixture_chance()
    print(f"{'fixture:10':>10}     budget 0: a correct filter meets a false positive with chance {fixture:.1e}")
    model_any = 1 - np.prod([(1 - c.model_above - c.model_below) for c in correct]) * (1 - fixture)
    seen = sum(c.above + c.below for c in correct)
    print(
        f"the check as a whole, a correct filter: outside with chance {model_any:.1e} by the model; "
        f"{seen} screens outside in {args.seeds} seeds of each case"
    )
    rates: dict[str, dict[str, float]] = {}
    if args.mutant_seeds:
        with tempfile.TemporaryDirectory() as scratch:
            rates = kill_rates(cases, args.mutant_seeds, Path(scratch))
        labels = [*(f"{n}:{b:g}" for n, b in cases), FIXTURE_CASE, "any"]
        print(f"\nfailed, over {args.mutant_seeds} seeds of the unique corpus (from seed {UNIQUE_SEED}):")
        print(f"{'':<28}" + "".join(f"{label:>12}" for label in labels))
        for name, by_case in rates.items():
            print(f"{name:<28}" + "".join(f"{by_case[label]:>12.2f}" for label in labels))
    print(f"({time.monotonic() - started:.0f} s)", file=sys.stderr)
    if args.json:
        figures = {
            "cases": [asdict(c) for c in correct],
            "fixture_chance": fixture,
            "check_false_alarm_model": model_any,
            "mutant_seeds": args.mutant_seeds,
            "failed_share": rates,
        }
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
