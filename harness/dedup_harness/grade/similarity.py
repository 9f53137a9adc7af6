"""``grade --similarity``: copies found, for staff. Every pair of submissions, and each with the reference.

The fingerprints are copydetect's (MIT): each ``dedup.py`` tokenized (Pygments), names made ``V``,
``F`` or ``O`` and strings ``S``, comments and spaces dropped, every run of ``K`` characters hashed, so
renaming everything or rewriting the comments changes nothing. A pair's *shares* are how much of each
file is found in the other, its similarity the larger: a short file copied whole into a long one shows.
Two choices differ from copydetect's command: every k-gram is kept (``win_size=1``), since winnowing
keeps the smallest of Python's ``hash``, which changes per process, and scores would wander (about a
millisecond a pair); and the stub's lines (``check/stub.py``) are taken out first, never evidence.

Similarity changes no score and reaches only staff outputs (the terminal, ``--json``, ``--html``).
Source is read as text and never run.
"""

from __future__ import annotations

import bisect
import importlib.util
import io
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dedup_harness.core.paths import IMPL_ROOT
from dedup_harness.grade import submitted_files
from dedup_harness.grade.submitted_files import SubmissionError

K = 25  # characters of tokenized code in a fingerprint: copydetect's default noise threshold
THRESHOLD = 0.7  # independent solutions of this module share 0.2-0.5 with each other (docs/grade.md)
REFERENCE = "the reference"  # the name the reference's dedup.py goes by in a pair
PASSAGES_SHOWN = 12  # per pair, the longest first
PASSAGE_LINES = 40  # lines of a passage kept, each side


@dataclass(frozen=True)
class Lines:
    """Lines ``first`` to ``last`` (from 1, both included) of one file, and their text."""

    first: int
    last: int
    text: str


@dataclass(frozen=True)
class Passage:
    """Text the two files share, side by side: where it is in each."""

    left: Lines
    right: Lines


@dataclass(frozen=True)
class Pair:
    left: str  # a submission, as grade was given it, or REFERENCE
    right: str
    shares: tuple[float, float]  # of the left's fingerprinted text found in the right, and the other way
    passages: tuple[Passage, ...]  # the longest first, at most PASSAGES_SHOWN

    @property
    def similarity(self) -> float:
        return max(self.shares)


@dataclass(frozen=True)
class Similarity:
    threshold: float
    compared: tuple[str, ...]  # the submissions compared, in the order given
    pairs: tuple[Pair, ...]  # at or above the threshold, most similar first
    not_compared: tuple[tuple[str, str], ...]  # (submission, why it could not be read)

    def clusters(self) -> list[list[str]]:
        """The files tied together by pairs at or above the threshold (a copy of a copy too), largest first,
        each in the order given (the reference first where it is one of them)."""
        order = {name: n for n, name in enumerate((REFERENCE, *self.compared))}
        group = {name: {name} for name in order}
        for pair in self.pairs:
            joined = group[pair.left] | group[pair.right]
            for name in joined:
                group[name] = joined
        found = {tuple(sorted(members, key=order.__getitem__)) for members in group.values() if len(members) > 1}
        return [list(c) for c in sorted(found, key=lambda c: (-len(c), order[c[0]]))]

    def as_json(self) -> dict[str, Any]:
        return {
            "threshold": self.threshold,
            "clusters": self.clusters(),
            "k": K,
            "compared": list(self.compared),
            "not_compared": [{"submission": name, "why": why} for name, why in self.not_compared],
            "pairs": [
                {
                    "left": pair.left,
                    "right": pair.right,
                    "similarity": round(pair.similarity, 4),
                    "shares": [round(share, 4) for share in pair.shares],
                    "passages": [
                        {side: vars(getattr(passage, side)) for side in ("left", "right")} for passage in pair.passages
                    ],
                }
                for pair in self.pairs
            ],
        }


class Fingerprinted:
    """One file's source and its copydetect fingerprint, the kit's lines taken out."""

    def __init__(self, name: str, source: str, boilerplate: Any) -> None:
        from copydetect import CodeFingerprint  # the staff extra; `grade` asked for it before any work

        self.name = name
        self.source = source
        self.print = CodeFingerprint("dedup.py", k=K, win_size=1, boilerplate=boilerplate, fp=io.StringIO(source))

    def in_source(self, at: int) -> int:
        """An offset in copydetect's tokenized text as an offset in the source, mapped as copydetect maps its
        copied slices (the removed characters counted up to the next place filtering changed)."""
        offsets = self.print.offsets
        if not len(offsets):
            return at
        row = min(bisect.bisect_left(offsets[:, 0], at), len(offsets) - 1)
        return at + int(offsets[row, 1])


def compare(
    submissions: Sequence[str],
    threshold: float = THRESHOLD,
    *,
    kit: str,
    on_pair: Callable[[], None] = lambda: None,
    reference: Path = IMPL_ROOT / "corpus" / "dedup.py",
) -> Similarity:
    """Every pair of ``submissions`` (paths as ``grade`` takes them), and each with the reference's dedup.py;
    ``kit`` is what the course hands out (the stub ``start`` writes), boilerplate taken out of every file."""
    import numpy

    handed_out = Fingerprinted("the kit", kit, None)
    boilerplate = numpy.unique(numpy.fromiter(handed_out.print.hashes, dtype=numpy.int64))
    files, unread = [], []
    for name in submissions:
        try:
            data = submitted_files.read(*submitted_files.find(Path(name))).data  # as grade reads it
            files.append(Fingerprinted(name, importlib.util.decode_source(data), boilerplate))
        except (SubmissionError, OSError, SyntaxError, UnicodeDecodeError) as error:  # undecodable: not compared
            unread.append((name, str(error)))
    everyone = [Fingerprinted(REFERENCE, reference.read_text(encoding="utf-8"), boilerplate), *files]
    pairs = []
    for left, right in itertools.combinations(everyone, 2):
        pair = compared(left, right, threshold)
        on_pair()
        if pair is not None:
            pairs.append(pair)
    pairs.sort(key=lambda p: (-p.similarity, p.left, p.right))
    return Similarity(threshold, tuple(f.name for f in files), tuple(pairs), tuple(unread))


def pairs_count(submissions: int) -> int:
    """How many comparisons ``compare`` makes for that many submissions (the reference is one more file)."""
    return (submissions + 1) * submissions // 2


def compared(left: Fingerprinted, right: Fingerprinted, threshold: float) -> Pair | None:
    """The two files' shares and the passages they share; None below ``threshold``."""
    from copydetect import compare_files

    _, shares, _ = compare_files(left.print, right.print)
    if max(shares) < threshold:
        return None
    return Pair(left.name, right.name, (float(shares[0]), float(shares[1])), passages(left, right))


@dataclass
class Run:
    """Fingerprints that follow each other in both files: left ``start`` to ``end`` (tokenized offsets, each a
    fingerprint's start), the right's ``shift`` characters on."""

    start: int
    end: int
    shift: int


def passages(left: Fingerprinted, right: Fingerprinted) -> tuple[Passage, ...]:
    """The text the two share, as runs of fingerprints in the same order in both, the longest first.

    Every k-gram is a fingerprint here, so text copied whole is a run of fingerprints at consecutive
    offsets in both files; a function moved elsewhere in the copy is a run of its own, shown beside
    where it went. A run found again elsewhere in the left (code repeated there) is shown once."""
    shared = left.print.hashes & right.print.hashes
    places = sorted((at, h) for h in shared for at in left.print.hash_idx[h])
    going: dict[int, Run] = {}  # by shift: the runs the last fingerprint extended or began
    done: list[Run] = []
    for at, h in places:
        extended: dict[int, Run] = {}
        for there in right.print.hash_idx[h]:
            run = going.pop(there - at, None)
            if run is not None and run.end == at - 1:
                run.end = at
            else:
                run = Run(at, at, there - at)
            extended[run.shift] = run
        done.extend(going.values())
        going = extended
    done.extend(going.values())
    chosen: list[Run] = []
    for run in sorted(done, key=lambda r: (r.start - r.end, r.start, r.shift)):
        if not any(run.start >= c.start and run.end <= c.end for c in chosen):
            chosen.append(run)
    return tuple(
        Passage(lines_of(left, run.start, run.end + K), lines_of(right, run.start + run.shift, run.end + run.shift + K))
        for run in chosen[:PASSAGES_SHOWN]
    )


def lines_of(file: Fingerprinted, start: int, end: int) -> Lines:
    """The whole lines of the source that a tokenized span touches, at most PASSAGE_LINES of them."""
    begin, finish = file.in_source(start), file.in_source(end)
    first = file.source.count("\n", 0, begin) + 1
    last = file.source.count("\n", 0, max(begin, finish - 1)) + 1
    text = file.source.splitlines()[first - 1 : min(last, first + PASSAGE_LINES - 1)]
    return Lines(first, last, "\n".join(text))
