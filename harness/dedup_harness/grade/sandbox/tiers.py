"""The isolation tiers as one table, strongest first: what each does (here) and its words (``tiers.toml``).

Every fact about a tier lives in its row of ``TIERS``: what it does is code (its namespaces, whose
disk it writes, how it is detected and started); what it is called and promises is data, read from
``tiers.toml``, so a change of wording is no change of code. The reports read a row's ``in_force``
lines (``protections``), the preflight its ``remedy`` (how to isolate), the README's table and
docs/isolation.md the rest (``tools/tier_docs.py`` writes both, and a test holds them to the words).
Detection (``detect``) runs once per process; the grade command detects, and every grading process
gets the answer (``WorkerSetup``, as JSON) rather than detecting again.

Every tier but ``none`` stacks the worker's own Landlock (where the kernel has it) and seccomp under
its namespaces, and the worker's audit hook over everything.
"""

from __future__ import annotations

import functools
import json
import tomllib
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from dedup_harness.grade import file_decisions
from dedup_harness.grade.sandbox import bwrap, detect, own_disk, unshare
from dedup_harness.grade.sandbox.interpreter import Interpreter, find
from dedup_harness.grade.sandbox.launch import Launch, direct
from dedup_harness.grade.sandbox.packages import Packages
from dedup_harness.grade.sandbox.users import is_root, worker_uid


class Tier(StrEnum):
    BUBBLEWRAP = "bubblewrap"
    UNSHARE = "unshare"
    LANDLOCK = "landlock"
    SECCOMP = "seccomp"
    NONE = "none"


AUTO = "auto"


@dataclass(frozen=True)
class TierRow:
    """One tier: what it does, and the words the reports, the preflight and the README use (``tiers.toml``)."""

    tier: Tier
    namespaces: bool  # new network, pid and mount namespaces
    own_disk: bool  # the session can be a tmpfs of the submission's own
    apart_as_one_user: bool  # keeps workers out of each other's sessions even when they share the grader's uid
    detect: Callable[[], str | None]  # None where the tier runs here, else what is missing
    command: Callable[[Launch], list[str]]  # the worker's whole command line
    needs: str  # what the machine must offer
    remedy: str  # how to get it, for the preflight's advice ("" for none)
    detected: str  # how the grader finds out whether it runs here
    started: str  # how the worker's command is built
    network: str  # what stops the network
    harness_files: str  # what hides the harness's files (the reference)
    signals: str  # what stops signals to the grader
    classmates: str  # what keeps submissions graded at the same time out of each other's sessions
    disk: str  # whose disk the worker writes
    in_force: tuple[str, ...]  # the report's first lines for a worker of this tier


WORDS: dict[str, Any] = tomllib.loads((Path(__file__).with_name("tiers.toml")).read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Does:
    """What a tier does, as code: its namespaces, its disk, whether it keeps workers of one uid apart, and how
    it is detected and started."""

    namespaces: bool
    own_disk: bool
    apart_as_one_user: bool
    detect: Callable[[], str | None]
    command: Callable[[Launch], list[str]]


def _row(tier: Tier, does: Does) -> TierRow:
    """A tier's row: what it does, given here, and its words, read from ``tiers.toml``."""
    words: dict[str, Any] = dict(WORDS[tier])
    disk = WORDS["disk"][words["disk"]]
    also = words["disk_also"]
    if does.own_disk != (disk == WORDS["disk"]["own"]):
        raise ValueError(f"tiers.toml says the {tier} tier's disk is not what tiers.py gives it")
    return TierRow(
        tier,
        **{name: getattr(does, name) for name in does.__dataclass_fields__},
        **{name: words[name] for name in SAID},
        disk=f"{disk}; {also}" if also else disk,
        in_force=tuple(words["in_force"]),
    )


SAID = ("needs", "remedy", "detected", "started", "network", "harness_files", "signals", "classmates")
TIERS = (
    _row(Tier.BUBBLEWRAP, Does(True, True, True, detect.detect_bubblewrap, bwrap.command)),
    _row(Tier.UNSHARE, Does(True, True, True, detect.detect_unshare, unshare.command)),
    _row(Tier.LANDLOCK, Does(False, False, True, detect.detect_landlock, direct)),
    _row(Tier.SECCOMP, Does(False, False, False, detect.detect_seccomp, direct)),
    _row(Tier.NONE, Does(False, False, False, detect.detect_nothing, direct)),
)
ROWS = {row.tier: row for row in TIERS}
STRONGEST_FIRST = tuple(row.tier for row in TIERS if row.tier is not Tier.NONE)


def row(tier: Tier) -> TierRow:
    return ROWS[tier]


def how_to_isolate() -> str:
    """The preflight's advice when no tier isolates: each tier's remedy, strongest first."""
    remedies = [row(tier).remedy for tier in STRONGEST_FIRST]  # the last, seccomp's, is what to do without the rest
    return (
        f"to isolate the worker: {', or '.join(remedies[:-1])}; {remedies[-1]}. Or pass --unisolated to grade "
        "without isolation: every report then says so first."
    )


class SetupError(RuntimeError):
    """The tier asked for, or any tier, cannot run here; the message says what is missing and how to get it."""


@dataclass(frozen=True)
class WorkerSetup:
    """How every worker of this grader runs: its tier, its interpreter, what the machine offered, what it may import."""

    tier: Tier
    interpreter: Interpreter
    landlock_abi: int
    seccomp: bool  # this architecture has a syscall table, so the filter can be installed
    passed_over: tuple[str, ...] = field(default=())  # why each stronger tier is not in use
    user_namespace: bool = False  # the unshare tier goes through a user namespace
    own_disk: bool = False  # each submission's session is a tmpfs of its own
    packages: Packages | None = None  # the packages the course allows (--allow), copied for this run
    decides_files: bool = False  # the seccomp tier: the grader decides every file call (``file_decisions``)

    def as_json(self) -> str:
        """The setup as the grading plugin's option carries it to each grading process."""
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> WorkerSetup:
        data = json.loads(text)
        fields = {**data, "tier": Tier(data["tier"]), "passed_over": tuple(data["passed_over"])}
        interpreter = {**data["interpreter"], "suffixes": tuple(data["interpreter"].get("suffixes", ()))}
        packages = Packages.from_dict(data["packages"]) if data.get("packages") else None
        return cls(**{**fields, "interpreter": Interpreter(**interpreter), "packages": packages})

    @property
    def one_at_a_time(self) -> bool:
        """Workers share the grader's uid and nothing but file modes keeps them apart, or nothing keeps a worker
        from its classmates' originals (the seccomp tier where the grader cannot decide file calls): one at a time."""
        return (not row(self.tier).apart_as_one_user and not is_root()) or self.blind_to_files

    @property
    def blind_to_files(self) -> bool:
        """The seccomp tier on a kernel where the grader cannot decide the file calls: file modes alone."""
        return self.tier is Tier.SECCOMP and not self.decides_files


def why_not(tier: Tier) -> str | None:
    """None when ``tier`` runs here; else what is missing and how to get it."""
    return row(tier).detect()


def choose(asked: str = AUTO) -> tuple[Tier, tuple[str, ...]]:
    """The tier asked for, or the strongest that works; and why each stronger one was passed over."""
    if asked != AUTO:
        tier = Tier(asked)
        reason = why_not(tier)
        if reason is not None:
            raise SetupError(f"the {tier} tier cannot run here: {reason}")
        return tier, ()
    passed_over: list[str] = []
    for tier in STRONGEST_FIRST:
        reason = why_not(tier)
        if reason is None:
            return tier, tuple(passed_over)
        passed_over.append(f"{tier}: {reason}")
    return Tier.NONE, tuple(passed_over)


@functools.cache
def worker_setup(asked: str = AUTO, python: str | None = None) -> WorkerSetup:
    """The setup for this grader's workers; ``python`` names the interpreter (else one is found)."""
    tier, passed_over = choose(asked)
    return _setup(tier, Interpreter(python) if python else find(worker_uid()), passed_over)


def _setup(tier: Tier, interpreter: Interpreter, passed_over: tuple[str, ...]) -> WorkerSetup:
    return WorkerSetup(
        tier,
        interpreter,
        detect.landlock_abi(),
        detect.seccomp_known(),
        passed_over,
        user_namespace=tier is Tier.UNSHARE and detect.unshare_needs_user_namespace(),
        own_disk=row(tier).own_disk and own_disk.works(),
        decides_files=tier is Tier.SECCOMP and file_decisions.works_here(),
    )


def weaker(setup: WorkerSetup, why: str) -> WorkerSetup | None:
    """The next tier that runs here below ``setup``'s, once its preflight failed for ``why`` (None: none left);
    the same interpreter and allowed packages, and why each stronger tier was passed over."""
    passed_over = [*setup.passed_over, f"{setup.tier}: {why}"]
    for tier in STRONGEST_FIRST[STRONGEST_FIRST.index(setup.tier) + 1 :] if setup.tier in STRONGEST_FIRST else ():
        reason = why_not(tier)
        if reason is None:
            found = _setup(tier, setup.interpreter, tuple(passed_over))
            return replace(found, packages=setup.packages)
        passed_over.append(f"{tier}: {reason}")
    return None
