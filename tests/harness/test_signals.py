"""Signals end a run as Ctrl-C does, and what a dead run left is swept by the next run of any command.

Each long command runs as a child of ``reaper.py`` (a subreaper: nothing the run starts escapes it),
with a temp folder of its own. Its run is observed once without a signal; then each of SIGINT,
SIGTERM, SIGHUP and SIGQUIT is sent at a moment drawn from a seeded ``random.Random`` within that
observed run (counted from when the command's handlers are in place). Afterwards nothing may be left:
no process of the run, nothing in its temp folder, no spool, no partial output; the exit status is
128 + the signal. A signal that comes once the work is done (the outputs written, as the command
prints its table or exits) cannot undo it: then the outputs are all there. No test sleeps: each waits for a
condition (the reaper's next line, a process's state) with a deadline.

``grade`` runs twice: on the correct sample alone, and beside submissions whose dedup.py is a FIFO and
a device (a read of either would block the batch for good, or never end). ``verify`` runs on the
small world of ``world.py`` (the same command and signal handling, seconds instead of a minute);
``mutation`` runs for minutes, so its observed run is its first ``MUTATION_CAP`` seconds (the scratch
copy, mutmut's start and its first test runs).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import select
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from dedup_harness.core.corpora import mixed_corpus
from world import make_world

HERE = Path(__file__).resolve().parent
REAPER = HERE / "reaper.py"
SAMPLE = HERE / "submissions" / "samples" / "correct_different.py"
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
MUTATION_CAP = 8.0  # seconds of mutation's run to draw moments from
DEADLINE = 120.0  # seconds any one run may take
REAPER_DEADLINE = 90.0  # the reaper's own deadline for the run's last processes is 60 s
POLL = 0.01  # seconds between two looks at a condition that no event announces
CLI = [sys.executable, "-m", "dedup_harness.cli"]
WORLD_VERIFY = (
    "import sys\n"
    "from pathlib import Path\n"
    "from dedup_harness.commands import verify\n"
    "from dedup_harness.verify.targets import Layout\n"
    "from dedup_harness.cli import main\n"
    "from world import CHECKS\n"
    "root = Path(sys.argv[1])\n"
    "world = Layout(root / 'impl', None, root / 'tests' / 'suite', root / 'mutants', CHECKS)\n"
    "verify.Layout = lambda: world  # type: ignore[assignment, misc]\n"
    "sys.exit(main(sys.argv[2:]))\n"
)


@dataclass
class Command:
    """How to run one long command in a folder of its own, and what it may leave there when it succeeds."""

    name: str
    argv: Callable[[Path], list[str]]
    outputs: tuple[str, ...] = ()  # files or folders in OUT that a finished run writes
    cap: float | None = None


@dataclass
class Run:
    status: int
    survivors: list[str]
    stderr: str
    window: float  # seconds from the handlers being in place to the command's end
    folder: Path
    temp_left: list[str] = field(default_factory=list)  # what the run left in its temp folder


def catches_sigterm(pid: int) -> bool | None:
    """Does process ``pid`` catch SIGTERM yet (its ``SigCgt`` mask says so)? None once it has ended."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    if fields["State"].split()[0] in ("Z", "X"):
        return None
    return bool(int(fields["SigCgt"], 16) & (1 << (signal.SIGTERM - 1)))


def next_line(process: subprocess.Popen[str], timeout: float) -> str | None:
    """The reaper's next line, or None when ``timeout`` seconds pass first."""
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], max(0.0, timeout))
    return process.stdout.readline().strip() if ready else None


def wait_until(condition: Callable[[], bool], deadline: float) -> None:
    """Look at ``condition`` every ``POLL`` seconds until it holds; fail at ``deadline``."""
    pause = threading.Event()
    while not condition():
        assert time.monotonic() < deadline, "the condition never came true"
        pause.wait(POLL)


@contextlib.contextmanager
def short_folder() -> Iterator[Path]:
    """A folder with a short path (a fork server's socket lives in the temp folder: its path has a limit)."""
    folder = Path(tempfile.mkdtemp(prefix="dhs-", dir="/tmp"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run(command: Command, folder: Path, *, signum: int | None = None, moment: float = 0.0) -> Run:
    """Run ``command`` in ``folder`` (outputs and spool inside), signalled at ``moment``; its temp folder is own."""
    for part in ("out", "spool"):
        (folder / part).mkdir(parents=True, exist_ok=True)
    with short_folder() as temp:
        started = _run(command, folder, temp, signum, moment)
        started.temp_left = left(temp)
    return started


def _run(command: Command, folder: Path, temp: Path, signum: int | None, moment: float) -> Run:
    env = {**os.environ, "TMPDIR": str(temp), "PYTHONPATH": os.pathsep.join([str(HERE), *sys.path])}
    reaper = subprocess.Popen(
        [sys.executable, str(REAPER), str(folder / "stdout"), str(folder / "stderr"), "--", *command.argv(folder)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        cwd=folder,
    )
    try:
        deadline = time.monotonic() + DEADLINE
        pid = int(next_line(reaper, DEADLINE) or 0)
        seen: list[bool | None] = []

        def looked() -> bool:
            seen.append(catches_sigterm(pid))
            return seen[-1] is not False

        wait_until(looked, deadline)
        assert seen[-1] is True, f"{command.name} ended without ever catching SIGTERM"
        started = time.monotonic()
        ended = None
        if signum is not None or command.cap is not None:
            ended = next_line(reaper, moment if signum is not None else float(command.cap or 0))
            if ended is None:
                os.kill(pid, signum if signum is not None else signal.SIGTERM)
        ended = ended or next_line(reaper, deadline - time.monotonic())
        window = time.monotonic() - started
        assert ended is not None and ended.startswith("exit"), f"{command.name} did not end in {DEADLINE} s"
        report = json.loads(next_line(reaper, REAPER_DEADLINE) or "{}")
    finally:
        reaper.kill()
        reaper.wait()
    return Run(
        status=report["status"],
        survivors=report["survivors"],
        stderr=(folder / "stderr").read_text(errors="replace"),
        window=window,
        folder=folder,
    )


def left(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("corpus") / "in.jsonl"
    with open(path, "w", encoding="utf-8") as out:
        for record in mixed_corpus(17, docs=20_000):
            out.write(json.dumps(record) + "\n")
    return path


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("world")
    make_world(root)
    return root


def commands(corpus: Path, world: Path) -> dict[str, Command]:
    return {
        "dedup": Command(
            "dedup",
            lambda f: [*CLI, "dedup", str(corpus), "-o", str(f / "out" / "out.jsonl"), "--spool-dir", str(f / "spool")],
            outputs=("out.jsonl",),
        ),
        "grade": Command(
            "grade",
            lambda f: [*CLI, "grade", str(SAMPLE), "--json", str(f / "out" / "g.json"), "--gradescope", str(f / "out")],
            outputs=("g.json", "results.json"),
        ),
        "grade beside a FIFO and a device": Command(
            "grade beside a FIFO and a device",
            lambda f: [*CLI, "grade", str(SAMPLE), *odd_files(f), "--json", str(f / "out" / "g.json")],
            outputs=("g.json",),
        ),
        "verify": Command(
            "verify",
            lambda f: [sys.executable, "-c", WORLD_VERIFY, str(world), "verify", "--json", str(f / "out" / "v.json")],
            outputs=("v.json",),
        ),
        "mutation": Command(
            "mutation",
            lambda f: [*CLI, "mutation", "--json", str(f / "out" / "m.json"), "--max-children", "2"],
            outputs=("m.json",),
            cap=MUTATION_CAP,
        ),
    }


def odd_files(folder: Path) -> list[str]:
    """Submissions whose dedup.py is a FIFO and (as root) a device with /dev/zero's numbers: a read of either would
    block or never end, and no signal could end the batch."""
    made = []
    for name in ("fifo", "device"):
        (folder / name).mkdir(exist_ok=True)
        if name == "fifo":
            os.mkfifo(folder / name / "dedup.py")
        elif os.geteuid() == 0:
            os.mknod(folder / name / "dedup.py", stat.S_IFCHR | 0o644, os.makedev(1, 5))
        else:
            continue
        made.append(str(folder / name))
    return made


@pytest.fixture(scope="module")
def observed() -> dict[str, float]:
    """Each command's observed run (seconds from its handlers being in place to its end), measured once."""
    return {}


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
@pytest.mark.parametrize("name", ["dedup", "grade", "grade beside a FIFO and a device", "verify", "mutation"])
def test_a_signal_at_a_random_moment_leaves_nothing_behind(
    name: str, signum: int, corpus: Path, world: Path, tmp_path: Path, observed: dict[str, float]
) -> None:
    command = commands(corpus, world)[name]
    if name not in observed:
        first = run(command, tmp_path / "observed")
        assert first.survivors == [], first.survivors
        observed[name] = first.window
    moment = random.Random(f"{name}/{signal.Signals(signum).name}").uniform(0.0, observed[name])
    signalled = run(command, tmp_path / "signalled", signum=signum, moment=moment)
    assert signalled.survivors == [], f"processes of the run outlived it: {signalled.survivors}"
    assert "Traceback" not in signalled.stderr, signalled.stderr
    folder = signalled.folder
    assert signalled.temp_left == [], "the temp folder is not empty"
    assert left(folder / "spool") == [], "a spool was left"
    outputs = left(folder / "out")
    complete = set(command.outputs) <= set(outputs)
    if signalled.status == 128 + signum:
        assert f"interrupted ({signal.Signals(signum).name})" in signalled.stderr
        assert outputs == [] or complete, f"partial outputs: {outputs}"  # complete: the signal came as it printed
    else:  # the work was done before the signal came (if it came at all): the run ended as an unsignalled one
        assert signalled.status in (0, 1, -signum) and complete, (signalled.status, outputs, signalled.stderr)


SIGNAL_IN_A_FORK = """
import os, signal
from dedup_harness.core import signals

def interrupted_in_the_callback() -> None:  # as a signal landing while logging's at-fork callback runs
    os.kill(os.getpid(), signal.SIGINT)
    sum(range(1000))  # bytecode for the handler to run on

os.register_at_fork(after_in_parent=interrupted_in_the_callback)
with signals.ending_on_signals():
    try:
        with signals.forked() as pid:
            if pid == 0:
                os._exit(0)
            os.waitpid(pid, 0)
        print("went on")
    except signals.Terminated:
        try:
            os.waitpid(-1, os.WNOHANG)
            print("ended, a child unreaped")
        except ChildProcessError:
            print("ended")
"""


def test_a_forked_child_is_killed_and_reaped_when_the_run_ends() -> None:
    """A zombie still has its /proc entry and start time: the end-of-run sweep would take it for alive and leave
    its scratch (the preflight's, where it grades in a child of its own)."""
    from dedup_harness.core import scratch_dirs, signals

    with pytest.raises(KeyboardInterrupt), signals.forked() as pid:
        if pid == 0:  # pragma: no cover (the child waits to be killed)
            time.sleep(60)
            os._exit(0)
        child = pid
        raise KeyboardInterrupt
    with pytest.raises(ChildProcessError):
        os.waitpid(child, os.WNOHANG)
    assert scratch_dirs.is_dead(f"dedup-harness-preflight-{child}.1-x")


@pytest.mark.skipif(not hasattr(os, "register_at_fork"), reason="no os.register_at_fork here")
def test_a_signal_inside_a_forks_callbacks_still_ends_the_run() -> None:
    """Python prints and drops an exception raised in an at-fork callback: a fork raises its signal after."""
    done = subprocess.run([sys.executable, "-c", SIGNAL_IN_A_FORK], capture_output=True, text=True, timeout=60)
    assert (done.stdout, done.stderr) == ("ended\n", "")
