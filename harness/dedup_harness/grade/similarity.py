"""``grade --similarity``: copies found, for staff. Every pair of submissions, and each with the reference.

The fingerprints are copydetect's (MIT), of each ``dedup.py`` as ``normalized`` reads it, line for line: no-op
statements (``pass``, bare constants, docstrings) blanked and every name ``v``; Pygments tokenizes that, strings
become ``S``, comments and spaces go, and every run of ``K`` characters left is hashed. Padding a copy with no-ops,
renaming anything in it or rewriting its comments leaves it the same text here. A pair's *shares* are how much of
each file's text is found in the other; its similarity is the larger, so a short file copied whole into a long one
still shows. Each submission is compared with its classmates, the reference and the kit's code taken together (a
pair with the kit names the kit files it shares); code that runs code it builds (``exec``, ``eval``, ``compile``)
is named among what was not compared: what runs cannot be read. Every k-gram is kept (``win_size=1``): winnowing
keeps the smallest of Python's ``hash``, which changes per process, and scores would wander (about a millisecond a
pair); the stub's lines (``check/stub.py``) are taken out first, never evidence.

Similarity changes no score and reaches only staff outputs (the terminal, ``--json``, ``--html``).
Source is read as text and never run.
"""

from __future__ import annotations

import ast
import bisect
import importlib.util
import io
import itertools
import keyword
import tokenize
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from dedup_harness.core.paths import IMPL_ROOT
from dedup_harness.grade import submitted_files
from dedup_harness.grade.submitted_files import SubmissionError

K = 25  # characters of tokenized code in a fingerprint: copydetect's default noise threshold
THRESHOLD = 0.7  # independent solutions of this module share 0.2-0.5 with each other (docs/grade.md)
REFERENCE = "the reference"  # the name the reference's dedup.py goes by in a pair
KIT = "the kit"  # the name the kit's code goes by in a pair, the files a submission shares named after it
KIT_FILE_SHARE = 0.05  # of a submission's fingerprints one kit file must hold to be named
BUILDS_SOURCE = {"exec", "eval", "compile", "builtins.exec", "builtins.eval", "builtins.compile"}  # run new code
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
        for name in (name for pair in self.pairs for name in (pair.left, pair.right)):
            order.setdefault(name, len(order))  # the kit, named after the files a pair shares with it
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

    def __init__(self, name: str, source: str, boilerplate: Any, read: str | None = None) -> None:
        from copydetect import CodeFingerprint  # the staff extra; `grade` asked for it before any work

        self.name = name
        self.source = source
        self.read = normalized(source) if read is None else read  # what is fingerprinted, line for line the source
        self.print = CodeFingerprint("dedup.py", k=K, win_size=1, boilerplate=boilerplate, fp=io.StringIO(self.read))

    def in_source(self, at: int) -> int:
        """An offset in copydetect's tokenized text as an offset in the source, mapped as copydetect maps its
        copied slices (the removed characters counted up to the next place filtering changed)."""
        offsets = self.print.offsets
        if not len(offsets):
            return at
        row = min(bisect.bisect_left(offsets[:, 0], at), len(offsets) - 1)
        return at + int(offsets[row, 1])


def normalized(source: str) -> str:
    """``source`` as it is fingerprinted, line for line: its no-op statements (``pass``, bare constants, docstrings)
    blanked and every name made ``v``, so padding or renaming hides nothing. What does not parse stays as it is."""
    try:
        nodes = list(ast.walk(ast.parse(source)))
    except (SyntaxError, ValueError):
        return source
    lines = [line.encode() for line in source.split("\n")]
    for node in nodes:
        if isinstance(node, ast.Pass) or (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
            last = node.end_lineno or node.lineno
            for row in range(node.lineno - 1, last):
                start = node.col_offset if row == node.lineno - 1 else 0
                end = node.end_col_offset or 0 if row == last - 1 else len(lines[row])
                lines[row] = lines[row][:start] + b" " * (end - start) + lines[row][end:]
    text = [line.decode(errors="replace") for line in lines]
    names = tokenize.generate_tokens(io.StringIO("\n".join(text)).readline)
    spans = [(t.start, t.end) for t in names if t.type == tokenize.NAME and not keyword.iskeyword(t.string)]
    for (row, begin), (_, end) in reversed(spans):
        text[row - 1] = text[row - 1][:begin] + "v" + text[row - 1][end:]
    return "\n".join(text)


def builds_source(source: str) -> list[str]:
    """Where ``source`` calls the builtin exec, eval or compile (``re.compile`` is another): code built at run time."""
    try:
        calls = [node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Call)]
    except (SyntaxError, ValueError):
        return []
    return [f"{ast.unparse(c.func)} on line {c.lineno}" for c in calls if ast.unparse(c.func) in BUILDS_SOURCE]


def compare(
    submissions: Sequence[str],
    threshold: float = THRESHOLD,
    *,
    kit: str,
    kit_code: Sequence[tuple[str, str]] = (),
    on_pair: Callable[[], None] = lambda: None,
    reference: Path = IMPL_ROOT / "corpus" / "dedup.py",
) -> Similarity:
    """Every pair of ``submissions`` (paths as ``grade`` takes them), each with the reference's dedup.py and with
    ``kit_code`` (the kit's files that hold code, as (name, text), taken together: a pair names those it shares);
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
            continue
        if built := builds_source(files[-1].source):  # compared as written, though that is not what runs
            unread.append((name, f"{name} builds the code it runs ({', '.join(built)}): what runs cannot be read"))
    everyone = [Fingerprinted(REFERENCE, reference.read_text(encoding="utf-8"), boilerplate), *files]
    read = [normalized(text) for _, text in kit_code]  # each file apart: one __future__ import each
    code = Fingerprinted(KIT, "\n".join(text for _, text in kit_code), boilerplate, "\n".join(read))
    starts = list(itertools.accumulate(len(text) + 1 for text in read))  # where each file's next one starts
    pairs = []
    for left, right in [*itertools.combinations(everyone, 2), *((code, file) for file in files if kit_code)]:
        pair = compared(left, right, threshold)
        on_pair()
        if pair is not None and left is code:
            shared = [code.in_source(code.print.hash_idx[h][0]) for h in code.print.hashes & right.print.hashes]
            held = Counter(kit_code[bisect.bisect_right(starts, at)][0] for at in shared)
            named = [kit_file for kit_file, n in held.most_common() if n >= KIT_FILE_SHARE * len(right.print.hashes)]
            pair = replace(pair, left=f"{KIT} ({', '.join(named) or 'no one file'})")
        if pair is not None:
            pairs.append(pair)
    pairs.sort(key=lambda p: (-p.similarity, p.left, p.right))
    return Similarity(threshold, tuple(f.name for f in files), tuple(pairs), tuple(unread))


def pairs_count(submissions: int) -> int:
    """How many comparisons ``compare`` makes for that many submissions (and the reference; each with the kit)."""
    return (submissions + 3) * submissions // 2


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
    first = file.read.count("\n", 0, begin) + 1  # the lines of what was fingerprinted are the source's
    last = file.read.count("\n", 0, max(begin, finish - 1)) + 1
    text = file.source.splitlines()[first - 1 : min(last, first + PASSAGE_LINES - 1)]
    return Lines(first, last, "\n".join(text))
