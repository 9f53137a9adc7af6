"""How far past its disk limit a worker gets before its watch stops it, on a temp folder it shares.

In the tiers without a disk of their own the session lies on the temp folder's disk, and a watch
(``grade/sandbox/disk.py``) stops a worker that passes its limit; what it writes between two looks is
the room a batch keeps beside each limit (``disk.SLACK``, ``room``). This grades a disk-filling hostile
sample (``disk_outrun``: 100,000 planted entries, then 32 MB files in a loop; ``disk_bomb``: 48 MB
files in a loop, from a thread) beside ``correct_different`` (two at once), ``--rounds`` times in each
tier asked for, while a thread samples the temp folder's used blocks every 2 ms; it prints the peak
above what the folder held before, the scores, and the time. The figures are printed, not asserted.

Run as root: ``python benchmarks/disk_watch_overshoot.py [--rounds N] [--tiers landlock,seccomp]
[--size 1100m] [--samples disk_outrun,disk_bomb]``. It mounts a tmpfs of ``--size`` as the temp folder
(two limits of 256 MiB, the slack beside each, and the grader's own files). With ``PYTHONPATH`` naming
another checkout's ``harness`` folder it grades with that one (the samples stay this checkout's).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUBMISSIONS = ROOT / "tests" / "harness" / "submissions"
CORRECT = SUBMISSIONS / "samples" / "correct_different.py"


def used(folder: str) -> int:
    found = os.statvfs(folder)
    return (found.f_blocks - found.f_bfree) * found.f_frsize


def one_round(tier: str, sample: str, temp: str) -> str:
    """Grade ``sample`` beside the correct one in ``tier``, the temp folder ``temp``: one line of figures."""
    sys.path.insert(0, str(ROOT / "tests" / "harness"))
    from dedup_harness.grade.batch import grade_batch
    from dedup_harness.grade.diagnosis import load_diagnoser
    from dedup_harness.grade.grader import GradingOptions
    from dedup_harness.grade.sandbox import disk
    from dedup_harness.grade.sandbox.limits import Limits
    from dedup_harness.grade.sandbox.tiers import worker_setup
    from dedup_harness.grade.scoring import equal_weights
    from grading_support import hostile_source

    with tempfile.TemporaryDirectory(prefix="overshoot-") as folder:
        hostile = Path(folder) / sample / "dedup.py"
        hostile.parent.mkdir()
        hostile.write_text(hostile_source(sample), encoding="utf-8")
        options = GradingOptions(equal_weights(), load_diagnoser(), setup=worker_setup(tier))
        before = used(temp)
        peak = [before]
        done = threading.Event()

        def sample_disk() -> None:
            while not done.wait(0.002):
                peak[0] = max(peak[0], used(temp))

        watcher = threading.Thread(target=sample_disk, daemon=True)
        watcher.start()
        started = time.monotonic()
        reports = grade_batch([str(hostile), str(CORRECT)], options, jobs=2)
        seconds = time.monotonic() - started
        done.set()
        watcher.join()
    scores = {Path(r.submission).parent.name if r.submission.endswith("dedup.py") else "correct": r for r in reports}
    attacker, correct = scores[sample], next(r for r in reports if r.submission == str(CORRECT))
    past = (peak[0] - before - Limits().disk_bytes) >> 20
    return (
        f"{tier:9} {sample:12} {seconds:5.1f} s  attacker {attacker.score}/{attacker.max_score}  "
        f"correct {correct.score}/{correct.max_score}  temp folder peak +{(peak[0] - before) >> 20} MiB "
        f"({past:+} MiB past one limit; slack kept: {getattr(disk, 'SLACK', 0) >> 20} MiB)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tiers", default="landlock,seccomp")
    parser.add_argument("--samples", default="disk_outrun,disk_bomb")
    parser.add_argument("--size", default="1100m")
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("run as root: it mounts a tmpfs for the temp folder", file=sys.stderr)
        return 2
    temp = tempfile.mkdtemp(prefix="dedup-harness-overshoot-", dir="/tmp")
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={args.size},mode=1777", "overshoot", temp], check=True)
    os.environ["TMPDIR"] = temp
    tempfile.tempdir = temp
    try:
        for _ in range(args.rounds):
            for tier in args.tiers.split(","):
                for sample in args.samples.split(","):
                    print(one_round(tier, sample, temp), flush=True)
    finally:
        from dedup_harness.core.runner import stop_fork_server

        stop_fork_server()  # its socket lies in the temp folder: the tmpfs is busy while it runs
        subprocess.run(["umount", temp], check=False)
        os.rmdir(temp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
