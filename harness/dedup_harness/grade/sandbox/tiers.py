"""The isolation tiers as one table, strongest first: what each needs, how it is detected, its command, its words.

Every fact about a tier lives in its row of ``TIERS``: the reports read its ``in_force`` lines
(``protections``), the preflight its ``remedy`` (how to isolate), the README's table and
docs/isolation.md the rest (``tier_docs`` writes both, and a test holds them to this table).
Detection (``detect``) runs once per process; the grade command detects, and every grading process
gets the answer (``WorkerSetup``, as JSON) rather than detecting again.

Every tier but ``none`` stacks the worker's own Landlock (where the kernel has it) and seccomp under
its namespaces, and the worker's audit hook over everything.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from enum import StrEnum

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
    """One tier: what it needs and does, in the words the reports, the preflight and the README use."""

    tier: Tier
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
    namespaces: bool  # new network, pid and mount namespaces
    own_disk: bool  # the session can be a tmpfs of the submission's own
    apart_as_one_user: bool  # keeps workers out of each other's sessions even when they share the grader's uid
    detect: Callable[[], str | None]  # None where the tier runs here, else what is missing
    command: Callable[[Launch], list[str]]  # the worker's whole command line


OWN_DISK = (
    "a tmpfs of its own (the disk limit), mounted only in its grader's namespace and gone with it: a full disk is "
    "its verdict alone"
)
SHARED_DISK = (
    "the temp folder's: its session's blocks are watched against the disk limit, and a batch grades only as many "
    "submissions at a time as the free space holds (jobs times the limit), saying so"
)
TIERS = (
    TierRow(
        Tier.BUBBLEWRAP,
        needs="`bwrap` (`apt-get install bubblewrap`); as root, or a non-root user where unprivileged user "
        "namespaces are allowed",
        remedy="install bubblewrap (apt-get install bubblewrap)",
        detected="bubblewrap makes new network and pid namespaces around /usr/bin/true",
        started="bwrap binds /usr, the interpreter's installation, the session and, read-only, the allowed packages' "
        "copy (--allow), gives a tmpfs /tmp and new "
        "network, pid, ipc and uts namespaces, covers any of the harness's folders in view; then setpriv to the "
        "worker's uid (as root) and the worker",
        network="a new network namespace, and seccomp (no sockets)",
        harness_files="they are not in its view (only /usr, the interpreter, the session and the allowed packages "
        "exist), and Landlock",
        signals="a new pid namespace, a dedicated uid as root, Landlock scope, seccomp",
        classmates="not in its view: its /tmp is its own, and every session is mounted in its own grader's "
        "namespace only",
        disk=OWN_DISK + "; its /tmp is a small tmpfs of its own",
        in_force=(
            "bubblewrap: new network, pid, ipc and uts namespaces: no network at all, no other process in view",
            "bubblewrap: only /usr, the interpreter, the session folder and the allowed packages (if any, read-only) "
            "exist; the harness's files do not",
        ),
        namespaces=True,
        own_disk=True,
        apart_as_one_user=True,
        detect=detect.detect_bubblewrap,
        command=bwrap.command,
    ),
    TierRow(
        Tier.UNSHARE,
        needs="`unshare` (util-linux); as root with CAP_SYS_ADMIN, else an unprivileged user namespace (a non-root "
        "user, a container)",
        remedy="allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1)",
        detected="unshare covers a folder with a tmpfs in new namespaces around /usr/bin/true: directly as root with "
        "CAP_SYS_ADMIN, else through a user namespace as the worker's user",
        started="unshare makes new network, pid, mount and ipc namespaces; a shell covers the harness's folders and "
        "the public temp folders (the session bound back, the allowed packages read-only), then exec; setpriv to "
        "the worker's uid (before unshare, through a user namespace, whose capabilities are then dropped) and the "
        "worker",
        network="a new network namespace, and seccomp",
        harness_files="empty mounts over its folders, and Landlock",
        signals="a new pid namespace (its own /proc), Landlock scope, seccomp",
        classmates="every session is mounted in its own grader's namespace only, and the public temp folders are "
        "covered: another's session is out of view; Landlock",
        disk=OWN_DISK + "; /tmp, /var/tmp and /dev/shm are small tmpfs of its own",
        in_force=(
            "unshare: new network, pid, mount and ipc namespaces: no network at all, no other process in view",
            "unshare: the harness's folders covered by empty mounts",
        ),
        namespaces=True,
        own_disk=True,
        apart_as_one_user=True,
        detect=detect.detect_unshare,
        command=unshare.command,
    ),
    TierRow(
        Tier.LANDLOCK,
        needs="a kernel with Landlock (Linux 5.13+), x86_64 or aarch64; nothing else",
        remedy="grade on a Linux kernel with Landlock (5.13 or later)",
        detected="the kernel answers Landlock's version call, and the worker has a seccomp table for this processor",
        started="setpriv to the worker's uid (as root), then the worker, which confines itself",
        network="seccomp (no sockets), Landlock (no TCP)",
        harness_files="Landlock: only its session, its code, the interpreter and the allowed packages are readable",
        signals="Landlock scope (ABI 6+), seccomp (signals only to itself)",
        classmates="Landlock: no other session is readable, nor the temp folder listable; as root, a uid of its own "
        "and sessions closed to every other",
        disk=SHARED_DISK,
        in_force=("landlock: no namespaces; the worker confines itself before any submission code runs",),
        namespaces=False,
        own_disk=False,
        apart_as_one_user=True,
        detect=detect.detect_landlock,
        command=direct,
    ),
    TierRow(
        Tier.SECCOMP,
        needs="x86_64 or aarch64 (a kernel without Landlock)",
        remedy="as root without those, install the harness where the worker's uid cannot read it (chmod -R go-rwx "
        "its venv)",
        detected="the worker has a seccomp table for this processor (x86_64, aarch64)",
        started="setpriv to the worker's uid (as root), then the worker, which installs its seccomp filter",
        network="seccomp (no sockets)",
        harness_files="file modes only: the harness installed where the worker's uid cannot read it (as root)",
        signals="seccomp, and a dedicated uid as root",
        classmates="file modes: as root a uid of its own and sessions closed to every other; a non-root grader "
        "grades one submission at a time (its workers share its uid)",
        disk=SHARED_DISK + "; it may also write the world-writable folders, and as root what its uid left in /tmp, "
        "/var/tmp and /dev/shm is removed after it",
        in_force=(
            "seccomp: no namespaces and no Landlock; the worker filters its own system calls before any submission "
            "code runs; the harness's files are hidden by their modes only",
        ),
        namespaces=False,
        own_disk=False,
        apart_as_one_user=False,
        detect=detect.detect_seccomp,
        command=direct,
    ),
    TierRow(
        Tier.NONE,
        needs="`--unisolated`",
        remedy="",
        detected="always: it needs nothing (the preflight then refuses it unless --unisolated)",
        started="setpriv to the worker's uid (as root), then the worker, which confines nothing",
        network="the audit hook only",
        harness_files="nothing",
        signals="the audit hook, and a dedicated uid as root",
        classmates="as for seccomp: file modes as root, one at a time otherwise",
        disk=SHARED_DISK,
        in_force=("none: NOT ISOLATED (--unisolated): no namespaces, no Landlock, no seccomp",),
        namespaces=False,
        own_disk=False,
        apart_as_one_user=False,
        detect=detect.detect_nothing,
        command=direct,
    ),
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
        """Workers share the grader's uid and nothing but file modes keeps them apart: grade one at a time."""
        return not row(self.tier).apart_as_one_user and not is_root()


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
    interpreter = Interpreter(python) if python else find(worker_uid())
    return WorkerSetup(
        tier,
        interpreter,
        detect.landlock_abi(),
        detect.seccomp_known(),
        passed_over,
        user_namespace=tier is Tier.UNSHARE and detect.unshare_needs_user_namespace(),
        own_disk=row(tier).own_disk and own_disk.works(),
    )
