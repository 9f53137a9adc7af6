"""mutmut's command line, driven non-interactively: its run, its status line, and its outputs checked.

mutmut exits 0 whatever survives, so the outcome is read from ``mutmut export-cicd-stats`` and
``mutmut results``, and the two must agree.
"""

from __future__ import annotations

import codecs
import os
import re
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path

from dedup_harness.core import signals
from dedup_harness.mutation.scratch import child_env

# mutmut's buckets in mutmut-cicd-stats.json, each named as `mutmut results` spells the status.
BUCKETS = {
    "killed": "killed",
    "survived": "survived",
    "no_tests": "no tests",
    "skipped": "skipped",
    "suspicious": "suspicious",
    "timeout": "timeout",
    "check_was_interrupted_by_user": "check was interrupted by user",
    "segfault": "segfault",
}
_RESULT_LINE = re.compile(r"^\s+(?P<name>\S+): (?P<status>.+?)\s*$")
_COUNTER = re.compile(r"(?P<done>\d+)/(?P<total>\d+)\s")
_SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"

OnProgress = Callable[[str, int | None, int | None], None]  # (phase, done, total)


class MutationError(Exception):
    """The run could not be judged: mutmut failed, or its outputs do not add up."""


def mutmut(scratch: Path, *args: str) -> str:
    """One non-interactive mutmut command in the scratch copy; its stdout."""
    done = subprocess.run(
        [sys.executable, "-m", "mutmut", *args], cwd=scratch, env=child_env(scratch), capture_output=True, text=True
    )
    if done.returncode != 0:
        raise MutationError(f"`mutmut {' '.join(args)}` exited {done.returncode}:\n{tail(done.stdout + done.stderr)}")
    return done.stdout


def tail(text: str, lines: int = 40) -> str:
    return "\n".join(text.splitlines()[-lines:])


def run_mutmut(scratch: Path, *, max_children: int, progress: OnProgress) -> None:
    """``mutmut run``, its status line turned into progress events."""
    start = lambda: subprocess.Popen(  # noqa: E731
        [sys.executable, "-m", "mutmut", "run", "--max-children", str(max_children)],
        cwd=scratch,
        env=child_env(scratch),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    seen: list[str] = []
    with signals.tracked(start) as process:  # a signal kills mutmut and every mutant run it forked
        try:
            _follow(process, seen, progress)
        except BaseException:
            os.killpg(process.pid, signal.SIGKILL)
            raise
        finally:
            process.wait()
    if process.returncode != 0:
        raise MutationError(f"`mutmut run` exited {process.returncode}:\n{tail(chr(10).join(seen))}")


def _follow(process: subprocess.Popen[bytes], seen: list[str], progress: OnProgress) -> None:
    """Read mutmut's output as it comes: its last 200 lines kept, each shown as progress."""
    assert process.stdout is not None
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    pending = ""
    while chunk := os.read(process.stdout.fileno(), 1 << 14):
        pending += decoder.decode(chunk)
        *lines, pending = re.split(r"[\r\n]", pending)
        for line in lines:
            if line.strip():
                seen.append(line)
                del seen[:-200]
                report_progress(line, progress)


def report_progress(line: str, progress: OnProgress) -> None:
    """mutmut's status line: a spinner, then a phase title or ``done/total`` and the running counts."""
    text = line.strip().lstrip(_SPINNER).strip()
    counter = _COUNTER.match(text)
    if counter:
        progress("testing mutants", int(counter["done"]), int(counter["total"]))
    elif text.startswith(("Generating", "Running", "Listing")):
        progress(text, None, None)


def parse_results(text: str) -> dict[str, str]:
    """``mutmut results --all true``: one ``    name: status`` line per mutant."""
    statuses = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        match = _RESULT_LINE.match(line)
        if match is None:
            raise MutationError(f"unexpected line in `mutmut results`: {line!r}")
        statuses[match["name"]] = match["status"]
    return statuses


def check_buckets(buckets: Mapping[str, int], statuses: Mapping[str, str]) -> int:
    """The CI/CD buckets add up to their total, agree with the per-mutant listing, and are not empty."""
    missing = [key for key in (*BUCKETS, "total") if not isinstance(buckets.get(key), int)]
    if missing:
        raise MutationError(f"mutmut-cicd-stats.json lacks {missing}: {dict(buckets)}")
    total = buckets["total"]
    if sum(buckets[key] for key in BUCKETS) != total:
        raise MutationError(f"mutmut's buckets do not add up to its total of {total}: {dict(buckets)}")
    if total == 0:
        raise MutationError("mutmut made no mutants: nothing was measured")
    listed = Counter(statuses.values())
    by_bucket = {key: listed.get(status, 0) for key, status in BUCKETS.items()}
    if len(statuses) != total or any(by_bucket[key] != buckets[key] for key in BUCKETS):
        raise MutationError(
            f"`mutmut results` lists {len(statuses)} mutants ({dict(listed)}), "
            f"but mutmut-cicd-stats.json says {dict(buckets)}"
        )
    return total
