"""mutmut over the reference, in a scratch copy of the project, read through its non-interactive outputs.

mutmut copies the sources and the tests into ``./mutants/`` of its working directory and runs from
there, which would collide with our own ``mutants/`` folder (s01-s13). So every run happens in a
scratch folder laid out for it: ``corpus/`` (the reference package, at the top so mutmut's module
names match the ones the tests import), ``oracle/``, ``fixtures/``, ``tests/`` and a generated
``pyproject.toml``. The suite runs in mutmut's own process (``--impl=.`` points the suite at the
mutated copy): mutmut credits a test only with calls made in that process.

mutmut exits 0 whatever survives, so the outcome is read from ``mutmut export-cicd-stats`` and
``mutmut results``, and the two must agree. mutmut runs each mutant against the tests that reached
the mutated function; every mutant it did not kill is run again here against the whole selection,
with the mutant switched on through ``MUTANT_UNDER_TEST`` (mutmut's own switch), before it counts
as a survivor.
"""

from __future__ import annotations

import codecs
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from dedup_harness.equivalents import Equivalents, mutant_key
from dedup_harness.paths import DATA_ROOT, IMPL_ROOT, ORACLE_DIR, PACKAGE_DIR, TESTS_DIR

# The tests mutmut runs: the twelve checks and the unit tests of the reference's parts.
SELECTION = ("tests/suite", "tests/unit")
PROFILE = "mutation"  # the Hypothesis profile registered in tests/conftest.py
TEMP_NAME = "tmp"  # the scratch copy's folder for every child's temp files
# Run from mutmut's mutants/ folder: the suite against the mutated copy there, fastest tests first.
PYTEST_ARGS = ("--impl=.", "-p", "no:cacheprovider", "-p", "dedup_harness.fastest_first")
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
DETECTED = frozenset({"killed", "timeout"})  # every other status is re-run against the whole selection
_RESULT_LINE = re.compile(r"^\s+(?P<name>\S+): (?P<status>.+?)\s*$")
_COUNTER = re.compile(r"(?P<done>\d+)/(?P<total>\d+)\s")
_SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"

Progress = Callable[[str, int | None, int | None], None]  # (phase, done, total)


class MutationError(Exception):
    """The run could not be judged: mutmut failed, or its outputs do not add up."""


class Rerun(StrEnum):
    PASSED = "passed"  # the whole selection passed: a survivor
    FAILED = "failed"  # some test failed: killed after all
    TIMEOUT = "timeout"
    ERROR = "error"  # pytest neither passed nor failed (usage or internal error)


class Verdict(StrEnum):
    KILLED = "killed"
    TIMEOUT = "timeout"
    KILLED_ON_RERUN = "killed on re-run"
    EQUIVALENT = "equivalent"
    SURVIVED = "survived"  # not reviewed as equivalent: fails the command
    ERROR = "error"


@dataclass
class Survivor:
    """A mutant mutmut did not kill, after its re-run against the whole selection."""

    name: str  # mutmut's name (positional: shifts when the function changes)
    status: str  # mutmut's status
    key: str  # stable: function + hash of the change
    diff: str
    rerun: Rerun
    verdict: Verdict
    reason: str = ""  # from the equivalents file


@dataclass
class MutationReport:
    mutmut_version: str
    buckets: dict[str, int]
    total: int
    survivors: list[Survivor]
    stale_equivalents: list[str]
    equivalents_file: Path
    seconds: float = 0.0
    mutmut_seconds: float = 0.0

    def count(self, verdict: Verdict) -> int:
        return sum(1 for s in self.survivors if s.verdict is verdict)

    @property
    def timeouts(self) -> int:
        return self.buckets["timeout"] + self.count(Verdict.TIMEOUT)

    @property
    def killed(self) -> int:
        """Detected mutants: a test failed (in mutmut's run or the re-run) or the suite ran out of time."""
        return self.buckets["killed"] + self.count(Verdict.KILLED_ON_RERUN) + self.timeouts

    @property
    def non_equivalent(self) -> int:
        return self.total - self.count(Verdict.EQUIVALENT)

    @property
    def ok(self) -> bool:
        return self.count(Verdict.SURVIVED) == 0 and self.count(Verdict.ERROR) == 0


def mutmut_config() -> str:
    """The scratch copy's pyproject.toml: mutmut's settings, and pytest's for the copied suite."""
    strings = json.dumps  # a JSON string or list of strings is also a valid TOML value
    return "\n".join(
        [
            "[tool.mutmut]",
            f"source_paths = {strings(['corpus'])}",
            f"also_copy = {strings(['oracle', 'fixtures'])}",
            f"pytest_add_cli_args_test_selection = {strings(list(SELECTION))}",
            f"pytest_add_cli_args = {strings(list(PYTEST_ARGS))}",
            "",
            "[tool.pytest.ini_options]",
            "xfail_strict = true",
            "",
        ]
    )


def make_scratch(folder: Path) -> None:
    """Lay out the project for mutmut in ``folder``, without our mutants/ folder."""
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis", ".pytest_cache")
    shutil.copytree(IMPL_ROOT / "corpus", folder / "corpus", ignore=skip)
    shutil.copytree(ORACLE_DIR, folder / "oracle", ignore=skip)
    shutil.copytree(DATA_ROOT / "fixtures", folder / "fixtures", ignore=skip)
    shutil.copytree(TESTS_DIR, folder / "tests", ignore=skip)
    (folder / "pyproject.toml").write_text(mutmut_config(), encoding="utf-8")
    (folder / TEMP_NAME).mkdir()


def child_env(scratch: Path, **extra: str) -> dict[str, str]:
    """The environment of every child: this harness importable, the deterministic Hypothesis profile.

    UTF-8 mode off: Python turns it on by itself under a C or POSIX locale, and then open() ignores the
    locale the spool test sets, so the mutants that drop the spool's encoding would survive there only.
    The temp folder is the scratch copy's own: mutmut ends its forked test runs with os._exit, so
    pytest's numbered tmp_path folders keep their locks, and a mutant may leave its spool behind.
    """
    path = os.pathsep.join(p for p in (str(PACKAGE_DIR.parent), os.environ.get("PYTHONPATH", "")) if p)
    return {
        **os.environ,
        "PYTHONPATH": path,
        "DEDUP_HARNESS_PROFILE": PROFILE,
        "PYTHONUTF8": "0",
        "TMPDIR": str(scratch / TEMP_NAME),
        **extra,
    }


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


def run_mutmut(scratch: Path, *, max_children: int, progress: Progress) -> None:
    """``mutmut run``, its status line turned into progress events."""
    process = subprocess.Popen(
        [sys.executable, "-m", "mutmut", "run", "--max-children", str(max_children)],
        cwd=scratch,
        env=child_env(scratch),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    assert process.stdout is not None
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    seen: list[str] = []
    pending = ""
    try:
        while chunk := os.read(process.stdout.fileno(), 1 << 14):
            pending += decoder.decode(chunk)
            *lines, pending = re.split(r"[\r\n]", pending)
            for line in lines:
                if line.strip():
                    seen.append(line)
                    del seen[:-200]
                    report_progress(line, progress)
    except BaseException:
        os.killpg(process.pid, signal.SIGKILL)
        raise
    finally:
        process.wait()
    if process.returncode != 0:
        raise MutationError(f"`mutmut run` exited {process.returncode}:\n{tail(chr(10).join(seen))}")


def report_progress(line: str, progress: Progress) -> None:
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


def rerun_command() -> list[str]:
    return [
        sys.executable,
        "-m",
        "pytest",
        *SELECTION,
        *PYTEST_ARGS,
        "--rootdir=.",
        "-x",
        "-q",
        "--no-header",
    ]


def rerun(scratch: Path, mutant: str, *, timeout: float) -> Rerun:
    """The whole selection against one mutant, switched on the way mutmut switches it."""
    process = subprocess.Popen(
        rerun_command(),
        cwd=scratch / "mutants",
        env=child_env(scratch, MUTANT_UNDER_TEST=mutant),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        code = process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        return Rerun.TIMEOUT
    return {0: Rerun.PASSED, 1: Rerun.FAILED}.get(code, Rerun.ERROR)


def calibrate(scratch: Path) -> float:
    """Prove the re-run can pass and can fail, and return how long a passing run takes."""
    started = time.monotonic()
    clean = rerun(scratch, "", timeout=1800)
    seconds = time.monotonic() - started
    if clean is not Rerun.PASSED:
        raise MutationError(f"the selection does not pass in the scratch copy without a mutant ({clean})")
    # mutmut's "fail" switch makes every mutated function raise: the re-run must see it.
    forced = rerun(scratch, "fail", timeout=max(60.0, 10 * seconds))
    if forced is not Rerun.FAILED:
        raise MutationError(f"the re-run cannot fail: with every function forced to raise it ended {forced}")
    return seconds


def judge(
    scratch: Path,
    statuses: Mapping[str, str],
    equivalents: Equivalents,
    *,
    jobs: int,
    progress: Progress,
) -> list[Survivor]:
    """Re-run every mutant mutmut did not detect, ``jobs`` at a time, and judge it against the equivalents."""
    undetected = sorted(name for name, status in statuses.items() if status not in DETECTED)
    if not undetected:
        return []
    progress("checking the re-run", None, None)
    timeout = max(60.0, 10 * calibrate(scratch))
    # `mutmut show` prints a `# name: status` line, then the diff.
    diffs = {name: mutmut(scratch, "show", name).split("\n", 1)[-1].strip() for name in undetected}
    outcomes: dict[str, Rerun] = {}
    progress("re-running survivors against the whole selection", 0, len(undetected))
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(rerun, scratch, name, timeout=timeout): name for name in undetected}
        for future in as_completed(futures):
            outcomes[futures[future]] = future.result()
            progress("re-running survivors against the whole selection", len(outcomes), len(undetected))
    survivors = []
    for name in undetected:
        key = mutant_key(name, diffs[name])
        reason = equivalents.reason_by_key.get(key, "")
        verdict = verdict_of(outcomes[name], reason)
        survivors.append(Survivor(name, statuses[name], key, diffs[name], outcomes[name], verdict, reason))
    return survivors


def verdict_of(outcome: Rerun, reason: str) -> Verdict:
    if outcome is Rerun.FAILED:
        return Verdict.KILLED_ON_RERUN
    if outcome is Rerun.TIMEOUT:
        return Verdict.TIMEOUT
    if outcome is Rerun.ERROR:
        return Verdict.ERROR
    return Verdict.EQUIVALENT if reason else Verdict.SURVIVED


def stale(equivalents: Equivalents, survivors: Sequence[Survivor]) -> list[str]:
    """Listed equivalents that no mutant of this run matched (killed now, or the code changed)."""
    used = {s.key for s in survivors if s.verdict is Verdict.EQUIVALENT}
    return sorted(set(equivalents.reason_by_key) - used)


@dataclass
class Measurement:
    """What one run needs: where to work, how wide, what has been reviewed."""

    scratch: Path
    equivalents: Equivalents
    max_children: int
    progress: Progress = field(default=lambda phase, done, total: None)


def measure(run: Measurement) -> MutationReport:
    """The whole measurement in ``run.scratch`` (an empty folder the caller removes)."""
    from importlib.metadata import version

    started = time.monotonic()
    make_scratch(run.scratch)
    run_mutmut(run.scratch, max_children=run.max_children, progress=run.progress)
    mutmut_seconds = time.monotonic() - started
    mutmut(run.scratch, "export-cicd-stats")
    stats_file = run.scratch / "mutants" / "mutmut-cicd-stats.json"
    try:
        buckets = json.loads(stats_file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise MutationError(f"cannot read {stats_file.name}: {exc}") from None
    statuses = parse_results(mutmut(run.scratch, "results", "--all", "true"))
    total = check_buckets(buckets, statuses)
    survivors = judge(run.scratch, statuses, run.equivalents, jobs=run.max_children, progress=run.progress)
    return MutationReport(
        mutmut_version=version("mutmut"),
        buckets={key: int(buckets[key]) for key in (*BUCKETS, "total")},
        total=total,
        survivors=survivors,
        stale_equivalents=stale(run.equivalents, survivors),
        equivalents_file=run.equivalents.path,
        seconds=time.monotonic() - started,
        mutmut_seconds=mutmut_seconds,
    )
