"""Which batch a grade CSV row belongs to: a digest of everything a score depends on, carried in every row.

A batch is the full, sorted list of submissions given to ``grade`` (before ``--shard`` splits it),
the checks of the suite, the weights, the harness version and the digest of the dependency set it
ran with (``core.provenance``: another Hypothesis release may draw other examples). Every row of a
CSV ``grade`` writes ends with the batch's columns (``csv_report.BATCH``): the digest of these, the
number of submissions, the weights themselves (exact, as fractions, in the checks' order), the
version and the dependency digest, so ``merge`` can refuse shards of different batches and
recompute every row's score. They are columns, not a line of their own above the header, so every
reader of CSV takes the file as it is.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from dedup_harness import __version__
from dedup_harness.core.checks import CHECKS
from dedup_harness.core.provenance import here
from dedup_harness.grade.reports.csv_report import BATCH
from dedup_harness.grade.reports.harmless import cell
from dedup_harness.grade.scoring import Weights


@dataclass(frozen=True)
class BatchIdentity:
    digest: str  # sha256 of the submissions, checks, weights, harness version and dependency set
    harness: str
    dependencies: str  # the installed dependency set's digest ("sha256:...")
    submissions: int
    weights: Weights

    def cells(self) -> dict[str, str]:
        """The batch's columns of every CSV row, as ``csv_report.BATCH`` names them."""
        weights = " ".join(str(self.weights.points[name]) for name in CHECKS)
        values = (self.digest, str(self.submissions), weights, self.harness, self.dependencies)
        return dict(zip(BATCH, values, strict=True))

    @property
    def short(self) -> str:
        return self.digest[:12]


def identify(
    submissions: Sequence[str], weights: Weights, *, harness: str = __version__, dependencies: str | None = None
) -> BatchIdentity:
    """The identity of the batch that grades ``submissions`` (every one, before sharding) with ``weights``.

    The names are taken as the CSV writes them (``harmless.cell``), so merge finds the same digest in
    the rows. ``dependencies`` defaults to the digest of the dependency set installed here.
    """
    names = sorted({cell(name) for name in submissions})
    deps = dependencies if dependencies is not None else here().digest
    return BatchIdentity(digest_of(names, weights.points, harness, deps), harness, deps, len(names), weights)


def digest_of(names: Sequence[str], points: Mapping[str, Fraction], harness: str, dependencies: str) -> str:
    canonical = {
        "checks": list(CHECKS),
        "dependencies": dependencies,
        "harness": harness,
        "submissions": sorted(names),
        "weights": {name: str(points[name]) for name in CHECKS},
    }
    return hashlib.sha256(json.dumps(canonical, sort_keys=True).encode("utf-8")).hexdigest()


def from_row(row: Mapping[str, str]) -> BatchIdentity:
    """The identity a CSV row carries; ValueError saying what is wrong with it."""
    digest, submissions, weights, harness, dependencies = (row[column] for column in BATCH)
    try:
        points = [Fraction(text) for text in weights.split()]
        if len(points) != len(CHECKS):
            raise ValueError(f"{len(points)} weights for {len(CHECKS)} checks")
        weighted = Weights(dict(zip(CHECKS, points, strict=True)))
        return BatchIdentity(digest, harness, dependencies, int(submissions), weighted)
    except (ValueError, ZeroDivisionError) as exc:
        raise ValueError(f"its batch columns cannot be read ({type(exc).__name__}: {exc})") from None
