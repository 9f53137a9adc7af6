"""Which batch a grade CSV belongs to: a digest of everything a score depends on, carried in the file.

A batch is the full, sorted list of submissions given to ``grade`` (before ``--shard`` splits it),
the checks of the suite, the weights, the harness version and the digest of the dependency set it
ran with (``core.provenance``: another Hypothesis release may draw other examples). Every CSV
``grade`` writes starts with one comment line that carries the digest of these, the weights
themselves (exact, as fractions), the version and the dependency digest, so ``merge`` can refuse
shards of different batches and recompute every row's score.
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
from dedup_harness.grade.scoring import Weights

LINE_PREFIX = "# dedup-harness batch "


@dataclass(frozen=True)
class BatchIdentity:
    digest: str  # sha256 of the submissions, checks, weights, harness version and dependency set
    harness: str
    dependencies: str  # the installed dependency set's digest ("sha256:...")
    submissions: int
    weights: Weights

    def line(self) -> str:
        """The CSV's first line: a comment a spreadsheet shows as one cell, and merge reads."""
        fields = {
            "batch": self.digest,
            "harness": self.harness,
            "dependencies": self.dependencies,
            "submissions": self.submissions,
            "weights": {name: str(points) for name, points in self.weights.points.items()},
        }
        return LINE_PREFIX + json.dumps(fields, separators=(",", ":")) + "\n"

    @property
    def short(self) -> str:
        return self.digest[:12]


def identify(
    submissions: Sequence[str], weights: Weights, *, harness: str = __version__, dependencies: str | None = None
) -> BatchIdentity:
    """The identity of the batch that grades ``submissions`` (every one, before sharding) with ``weights``.

    ``dependencies`` defaults to the digest of the dependency set installed here.
    """
    names = sorted(set(submissions))
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


def parse_line(line: str) -> BatchIdentity:
    """The identity a CSV's first line carries; ValueError saying what is wrong with it."""
    if not line.startswith(LINE_PREFIX):
        raise ValueError("its first line is not the batch line grade writes (graded by an older harness?)")
    try:
        fields = json.loads(line[len(LINE_PREFIX) :])
        weights = {name: Fraction(fields["weights"][name]) for name in CHECKS}
        return BatchIdentity(
            str(fields["batch"]),
            str(fields["harness"]),
            str(fields["dependencies"]),
            int(fields["submissions"]),
            Weights(weights),
        )
    except (ValueError, KeyError, TypeError, ZeroDivisionError) as exc:
        raise ValueError(f"its batch line cannot be read ({type(exc).__name__}: {exc})") from None
