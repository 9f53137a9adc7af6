"""Issue 31's attacks on memory, spools, leftovers, classmates and the disk watch, each graded beside a correct sample.

For each hostile sample and each tier asked for, ``dedup-harness grade HOSTILE CORRECT --jobs 2 --tier
TIER`` runs as root (the root setup), with a temp folder of its own (a tmpfs of ``--disk-size`` for
``disk_outrun``, which needs a disk it shares). One Markdown row each: the attack's score, the correct
sample's, the wall time, and what was left behind: entries in the temp folder, and what is new since
before in /tmp, /var/tmp, /dev/shm, /run/lock and System V IPC and belongs to a worker's uid (other
graders share this machine's /tmp: a worker uid of theirs can show up; ``leftovers_everywhere`` names
everything it makes with a token, which is looked for too). The figures are printed, not asserted.

Run as ``python benchmarks/attack_table.py [--tiers bubblewrap,unshare,landlock,seccomp]
[--attacks NAME,...] [--also=--unisolated]``. With ``PYTHONPATH`` naming another checkout's ``harness``
folder it grades with that one (the samples stay this checkout's): a table from before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HARNESS_TESTS = ROOT / "tests" / "harness"
CORRECT = HARNESS_TESTS / "submissions" / "samples" / "correct_different.py"
ATTACKS = (
    "memory_heap_slack",
    "memory_compressed",
    "memory_outside",
    "spool_copy_kept",
    "leftovers_everywhere",
    "classmate_reader",
    "disk_outrun",
)
TIERS = ("bubblewrap", "unshare", "landlock", "seccomp")
sys.path.insert(0, str(HARNESS_TESTS))  # the tests' helpers: the samples, and what a grade left behind
import left_behind  # noqa: E402

UID_BASE = 200_000_000  # grade/sandbox/users.py: a root grader's workers' uids start here


def owned_entries() -> set[tuple[str, int]]:
    """(path, owner) of what lies directly in the world-writable folders, and every System V IPC object."""
    found = set()
    for folder in left_behind.WORLD_WRITABLE:
        for entry in os.scandir(folder):
            try:
                found.add((entry.path, entry.stat(follow_symlinks=False).st_uid))
            except OSError:
                continue
    return found | {(f"{kind} {row['key']}", int(row["uid"])) for kind, row in left_behind.ipc_objects()}


def source_of(attack: str, token: str, nested: Path) -> bytes:
    """The sample's dedup.py as a student hands it in: bytes in the encoding its cookie names."""
    from grading_support import hostile_bytes

    text = hostile_bytes(attack).replace(b"TOKEN = None", f"TOKEN = {token!r}".encode(), 1)
    return text.replace(b"NESTED = None", f"NESTED = {str(nested)!r}".encode(), 1)


def one(attack: str, tier: str, disk_size: str, also: list[str]) -> str:
    token, base = secrets.token_hex(8), Path(tempfile.mkdtemp(prefix="dedup-harness-table-", dir="/tmp"))
    base.chmod(0o755)
    temp, nested = base / "temp", base / "nested"
    temp.mkdir(mode=0o1777)
    nested.mkdir(mode=0o1777)
    temp.chmod(0o1777)
    nested.chmod(0o1777)
    mounted = attack == "disk_outrun"
    if mounted:
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={disk_size},mode=1777", "table", str(temp)], check=True)
    try:
        for name, source in ((attack, source_of(attack, token, nested)), ("correct", CORRECT.read_bytes())):
            (base / name).mkdir(mode=0o755)
            (base / name / "dedup.py").write_bytes(source.replace(b"CLASS = None", f"CLASS = {str(base)!r}".encode()))
        before = owned_entries()
        command = [sys.executable, "-m", "dedup_harness.cli", "grade", str(base / attack), str(base / "correct")]
        command += ["--jobs", "2", "--tier", tier, "--json", str(base / "grades.json"), *also]
        started = time.monotonic()
        done = subprocess.run(command, env={**os.environ, "TMPDIR": str(temp)}, capture_output=True, text=True)
        seconds = time.monotonic() - started
        new = {(path, uid) for path, uid in owned_entries() - before if uid >= UID_BASE}
        left = [*os.listdir(temp), *left_behind.named_with(token), *(path for path, _ in sorted(new))]
        if done.returncode != 0 or not (base / "grades.json").exists():
            return f"| {attack} | {tier} | grade exited {done.returncode}: {done.stderr.strip()[-200:]} | | | |"
        by_name = {Path(s["submission"]).name: s for s in json.loads((base / "grades.json").read_text())["submissions"]}
        score = lambda name: f"{by_name[name]['score']}/{by_name[name]['max_score']}"  # noqa: E731
        return f"| {attack} | {tier} | {score(attack)} | {score('correct')} | {seconds:.1f} s | {left or 'nothing'} |"
    finally:
        if mounted:
            subprocess.run(["umount", str(temp)], check=False)
        shutil.rmtree(base, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiers", default=",".join(TIERS))
    parser.add_argument("--attacks", default=",".join(ATTACKS))
    parser.add_argument("--disk-size", default="1100m", help="the tmpfs disk_outrun shares with the correct sample")
    parser.add_argument(
        "--also", action="append", default=[], metavar="ARG", help="one more argument for grade (--also=--unisolated)"
    )
    args = parser.parse_args()
    print("| attack | tier | attack's score | correct's score | time | left behind |")
    print("|---|---|---|---|---|---|")
    for attack in args.attacks.split(","):
        for tier in args.tiers.split(","):
            if attack == "disk_outrun" and tier in ("bubblewrap", "unshare"):
                continue  # a tmpfs of its own: nothing to outrun (test_disk_of_its_own grades the disk bomb there)
            print(one(attack, tier, args.disk_size, args.also), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
