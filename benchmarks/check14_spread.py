"""The spread of check 14 (the spool's purpose) on correct stages: each figure's growth, over many measurements.

Check 14 grades two corpora (``core/judges/memory.py``) and fails a stage whose memory grows by more
than a quarter of what the documents grew by; a growth over that is measured again, up to three
times. A correct stage's growth is noise, and this script measures it: for each tier that runs
here and each correct sample, ``--rounds`` measurements, each of both corpora in a fresh worker
through the grader's own gauge (``grade/client/memory.py``), as the grading plugin runs them. It
prints, per tier and sample, each figure's growth (the least, the median, the most, in KB) beside
the allowance, and how many single measurements were over it (the check itself would then measure
again). The figures are printed, not asserted; the machine is shared, so give the command with them.

Run as ``python benchmarks/check14_spread.py [--rounds N] [--tiers bubblewrap,unshare,...]
[--as root|user|container]``: ``--as`` (root only) runs this script again in that setup
(``tests/harness/machine_setups.py``; ``--python`` names an interpreter the test user can run).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SAMPLES = ROOT / "tests" / "harness" / "submissions" / "samples"
STAGES = {
    "correct_plain": SAMPLES / "correct_plain.py",
    "correct_different": SAMPLES / "correct_different.py",
    "reference": ROOT / "impl" / "corpus" / "dedup.py",
}
TIERS = ("bubblewrap", "unshare", "landlock", "seccomp")
CONTAINER_CAPS = (
    "-all,+chown,+dac_override,+fowner,+fsetid,+kill,+setgid,+setuid,+setpcap,"
    "+net_bind_service,+net_raw,+sys_chroot,+mknod,+audit_write,+setfcap"
)


def measure(tier: str, source: Path, rounds: int) -> tuple[list[dict[str, int]], int, float]:
    """``rounds`` measurements of ``source`` in ``tier``: each figure's growth; the allowance; seconds a round."""
    sys.path.insert(0, str(ROOT / "impl"))  # the judge makes its documents with the trusted corpus.doc
    from dedup_harness.core.judges.memory import CORPORA, GROWTH_ALLOWED, spooled_run
    from dedup_harness.core.judges.verdict import Subject
    from dedup_harness.core.reference import load
    from dedup_harness.grade.client.memory import WorkerMemory
    from dedup_harness.grade.client.proxy import SubmissionProxy
    from dedup_harness.grade.sandbox import Limits, Sandbox
    from dedup_harness.grade.sandbox.tiers import worker_setup
    from dedup_harness.grade.submission import prepare

    doc = load("corpus.doc").Doc
    growths: list[dict[str, int]] = []
    small, large = CORPORA
    with tempfile.TemporaryDirectory(prefix="check14-spread-") as scratch:
        # As the grading plugin makes it: its own namespace (and a tmpfs) where the tier offers one.
        sandbox = Sandbox(prepare(source, Path(scratch)).root, Limits(), worker_setup(tier), own_namespace=True)
        proxy = SubmissionProxy(sandbox, doc_type=lambda: doc)
        started = time.monotonic()
        try:
            subject = Subject(proxy, sandbox.shared / "spread", lambda: WorkerMemory(proxy))
            subject.scratch.mkdir()
            for number in range(rounds):
                proxy.current_check = f"measurement {number}"  # each within a check's budget of bytes, as graded
                first, second = spooled_run(subject, small), spooled_run(subject, large)
                growths.append({name: second.used[name] - first.used[name] for name in first.used})
                allowance = (second.corpus_bytes - first.corpus_bytes) // GROWTH_ALLOWED
        finally:
            proxy.shutdown()
            sandbox.close()
    return growths, allowance, (time.monotonic() - started) / rounds


def kb(value: float) -> str:
    return f"{value / 1024:+,.0f}"


def report(tier: str, name: str, growths: list[dict[str, int]], allowance: int, seconds: float) -> None:
    figures = sorted({figure for growth in growths for figure in growth})
    judged = [max(growth.values()) for growth in growths]
    over = sum(1 for value in judged if value > allowance)
    print(f"{tier:10} {name:18} allowance {allowance / 1024:,.0f} KB, {len(growths)} measurements, "
          f"{seconds:.1f} s each; over the allowance: {over}")  # fmt: skip
    for figure in [*figures, "judged (the largest)"]:
        values = judged if figure.startswith("judged") else [g[figure] for g in growths if figure in g]
        print(f"    {figure:24} least {kb(min(values)):>8} KB  median {kb(statistics.median(values)):>8} KB  "
              f"most {kb(max(values)):>8} KB")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=16)
    parser.add_argument("--tiers", default=",".join(TIERS))
    parser.add_argument("--stages", default=",".join(STAGES))
    parser.add_argument("--as", dest="setup", choices=("root", "user", "container"), default="root")
    parser.add_argument("--python", default=sys.executable, help="the interpreter of the --as setup")
    args = parser.parse_args()
    if args.setup != "root" and os.environ.get("CHECK14_SPREAD_SETUP") != args.setup:
        return again_as(args)
    from dedup_harness.grade.sandbox.tiers import Tier, why_not

    print(f"check 14's spread, {args.rounds} measurements a stage, as {args.setup} (uid {os.getuid()})")
    for tier in args.tiers.split(","):
        reason = why_not(Tier(tier))
        if reason is not None:
            print(f"{tier:10} cannot run here: {reason}")
            continue
        for name in args.stages.split(","):
            report(tier, name, *measure(tier, STAGES[name], args.rounds))
    return 0


def again_as(args: argparse.Namespace) -> int:
    """This script once more, in the setup ``--as`` names (as machine_setups emulates it)."""
    if os.geteuid() != 0:
        print("--as needs root, to emulate the setup", file=sys.stderr)
        return 2
    if args.setup == "user":
        prefix = ["setpriv", "--reuid=dedup-harness-test", "--regid=dedup-harness-test", "--init-groups"]
    else:
        prefix = ["setpriv", "--bounding-set", CONTAINER_CAPS, "--inh-caps", "-all"]
    env = {**os.environ, "CHECK14_SPREAD_SETUP": args.setup, "TMPDIR": "/tmp"}
    command = [*prefix, args.python, __file__, *sys.argv[1:]]
    return subprocess.run(command, env=env, cwd="/", check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
