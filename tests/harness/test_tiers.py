"""Each isolation tier, forced by the setup it serves, graded for real with the ``grade`` command.

The grader runs from a copy of the harness in a private folder (mode 0700: ``mktemp -d``, root's home),
which each tier must hide all the same.

The setups (``machine_setups``): root with and without bubblewrap (CI), a non-root user with and
without it (a TA's laptop), a container's capability set without it (Gradescope), and the Landlock
and seccomp tiers forced where no namespace is wanted (in the seccomp tier the grader decides every
file call the worker makes). In each, one batch grades the reference's own dedup.py,
``tier_attacks`` (the reference plus attacks at import) and the same attacks after the silencing
trick (the worker's audit hook switched off), and the test checks from outside: all get full marks;
the TCP and UDP listeners received nothing; the reference was not read; the victim (a process of the
grader's user) has no signal pending; the secret in the grader's environment is in no report; the
grader's earlier output file is untouched and nothing was added beside it; every call the seccomp
filter refused is listed, as the kernel told the grader, silenced hook or not.
"""

from __future__ import annotations

import json
import os
import pwd
import secrets
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from dedup_harness.core.paths import IMPL_ROOT
from dedup_harness.grade import file_decisions
from dedup_harness.grade.listeners import Listeners
from grading_support import hostile_source
from machine_setups import (
    CASES,
    Case,
    Setup,
    case_id,
    for_case,
    harness_copy,
    hidden_bwrap_path,
    own_temp,
    pending,
    public_folder,
    setup_for,
    start_victim,
)

REFERENCE = IMPL_ROOT / "corpus" / "dedup.py"
SUBMISSIONS = ("reference", "attacks", "silenced")
HOSTILE_PART = "# ---- the hostile part ----\n"  # where grading_support appends a hostile file to the reference
# The silencing trick, first in the hostile part: the worker's audit hook then neither refuses nor notes anything.
SILENCE = 'import sys\nsys.modules["grading_worker.audit"].AuditHook.judge = lambda self, event, args: None\n'

SECRET_NAME = "DEDUP_HARNESS_TEST_SECRET"
EARLIER = "untouched: a shard graded earlier\n"


@dataclass
class Graded:
    exit_status: int
    stdout: str
    stderr: str
    outputs: dict[str, str]  # every file in the grader's output folder, by name, once the grade was done
    report: dict[str, Any]
    listeners: tuple[list[bytes], list[bytes]]
    victim_pending: int
    secret: str
    case: Case | None = None

    def submission(self, name: str) -> dict[str, Any]:
        return next(s for s in self.report["submissions"] if Path(s["submission"]).name == name)


def attack_source(targets: dict[str, Any]) -> str:
    source = hostile_source("tier_attacks")
    assert "\nATTACK = None" in source
    return source.replace("\nATTACK = None", f"\nATTACK = {targets!r}", 1)


def silenced_source(targets: dict[str, Any]) -> str:
    """The attacks after the silencing trick: the worker's audit hook neither refuses nor notes anything."""
    reference, attacks = attack_source(targets).split(HOSTILE_PART)
    return f"{reference}{HOSTILE_PART}{SILENCE}{attacks}"


def grade_as(case: Case, request: pytest.FixtureRequest) -> Graded:
    """Run ``dedup-harness grade`` in the case's setup on the reference and the attacks; what it left."""
    setup, python = for_case(case, request)
    base = public_folder("dedup-harness-tiers-")
    try:
        return _grade_in(base, case, setup, python)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _grade_in(base: Path, case: Case, setup: Setup, python: Path) -> Graded:
    outputs = base / "outputs"
    outputs.mkdir(mode=0o777)
    outputs.chmod(0o777)  # only isolation keeps the worker out: not the modes
    (outputs / "earlier.csv").write_text(EARLIER, encoding="utf-8")
    (outputs / "earlier.csv").chmod(0o666)
    for name in SUBMISSIONS:
        (base / name).mkdir(mode=0o755)
    shutil.copyfile(REFERENCE, base / "reference" / "dedup.py")
    secret = secrets.token_hex(16)
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "HOME": str(base), "LANG": "C.UTF-8"}
    env["TMPDIR"] = own_temp(base)
    if not case.bubblewrap:
        env["PATH"] = hidden_bwrap_path(base / "bin")
    listeners = Listeners()
    # The grader runs from a copy of the harness in a private folder (mode 0700), as most installs are.
    pythonpath, reference = harness_copy(base / "private", setup)
    whence = [*setup.prefix, str(python), "-c", "import dedup_harness; print(dedup_harness.__file__)"]
    imported = subprocess.run(whence, env={**env, "PYTHONPATH": pythonpath}, capture_output=True, text=True, cwd=base)
    assert imported.stdout.startswith(pythonpath), imported.stdout + imported.stderr
    with start_victim(setup, env) as victim:
        targets = {**listeners.ports(), "reference": str(reference), "victim": victim.pid}
        targets |= {"secret_name": SECRET_NAME, "outputs": str(outputs)}
        (base / "attacks" / "dedup.py").write_text(attack_source(targets), encoding="utf-8")
        (base / "silenced" / "dedup.py").write_text(silenced_source(targets), encoding="utf-8")
        os.chown(outputs, setup.uid, setup.gid)
        command = [*setup.prefix, str(python), "-m", "dedup_harness.cli", "grade"]
        command += [*(str(base / name) for name in SUBMISSIONS), "--tier", case.tier, "--show-student-output"]
        command += ["--json", str(outputs / "grades.json"), "--csv", str(outputs / "grades.csv")]
        done = subprocess.run(
            command,
            env={**env, SECRET_NAME: secret, "PYTHONPATH": pythonpath},
            cwd=base,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        victim_pending = pending(victim.pid)
    received = listeners.received()
    files = {path.name: path.read_text(encoding="utf-8", errors="replace") for path in outputs.iterdir()}
    report = json.loads(files["grades.json"]) if done.returncode == 0 else {}
    return Graded(done.returncode, done.stdout, done.stderr, files, report, received, victim_pending, secret)


# The seccomp tier (no namespaces, no Landlock) in every setup: only the grader's decisions of its file calls
# keep the reference and the outputs out of reach (Linux 5.14 or later).
SECCOMP_CASES = [Case(setup, False, "seccomp", "seccomp") for setup in ("root", "user", "container")]


@pytest.fixture(scope="module", params=[*CASES, *SECCOMP_CASES], ids=case_id)
def graded(request: pytest.FixtureRequest) -> Graded:
    case: Case = request.param
    if case.tier == "seccomp" and not file_decisions.works_here():
        pytest.skip("the grader decides the seccomp tier's file calls only on Linux 5.14 or later")
    result = grade_as(case, request)
    assert result.exit_status == 0, f"grade exited {result.exit_status}:\n{result.stderr[-3000:]}"
    protections = [s["protections"] for s in result.report["submissions"]]
    assert {p["tier"] for p in protections} == {case.expected}
    whose = "the grader's own" if case.setup == "user" else "unprivileged, no capabilities"
    assert all(whose in p["user"] for p in protections), protections[0]["user"]
    result.case = case
    return result


def test_the_preflight_names_the_tier_in_force_and_each_stronger_tier_passed_over_and_why(graded: Graded) -> None:
    """A container with no bubblewrap grades in the unshare tier, its harness in a private folder, and says why."""
    said = " ".join(graded.stderr.split())
    assert f"s): {graded.case.expected} isolates the worker" in said, graded.stderr[:2000]
    if graded.case.tier == "auto" and graded.case.expected != "bubblewrap":
        assert "preflight: passed over bubblewrap: " in said, graded.stderr[:2000]


# Never run unconfined as root: kill(-1) as root signals every process of the machine.
UNSAFE_UNCONFINED = ('_try("signal everyone', '_try("signal the parent')


def control_code(targets: dict[str, Any]) -> str:
    """The attacks alone (the module's reference part needs corpus), without those that hit bystanders."""
    code = attack_source(targets).split("# ---- the hostile part ----")[1]
    lines = code.splitlines()
    assert all(any(line.startswith(unsafe) for line in lines) for unsafe in UNSAFE_UNCONFINED)
    return "\n".join(line for line in lines if not line.startswith(UNSAFE_UNCONFINED))


def test_the_attacks_reach_their_targets_when_nothing_stops_them(test_user: pwd.struct_passwd) -> None:
    """The control: run unconfined as the unprivileged test user, the same attacks reach every target."""
    user = setup_for("user", test_user)
    base = public_folder("dedup-harness-tiers-control-")
    try:
        outputs = base / "outputs"
        outputs.mkdir(mode=0o777)
        outputs.chmod(0o777)
        (outputs / "earlier.csv").write_text(EARLIER, encoding="utf-8")
        (outputs / "earlier.csv").chmod(0o666)
        env = {"PATH": "/usr/bin:/bin", SECRET_NAME: "control"}
        listeners = Listeners()
        reference = base / "reference.py"  # a readable copy: the checkout may lie in a private folder
        shutil.copyfile(REFERENCE, reference)
        reference.chmod(0o644)
        with start_victim(user, env) as victim:
            targets = {**listeners.ports(), "reference": str(reference), "victim": victim.pid}
            targets |= {"secret_name": SECRET_NAME, "outputs": str(outputs)}
            command = [*user.prefix, "/usr/bin/python3", "-I", "-S", "-c", control_code(targets)]
            run = subprocess.run(command, env=env, cwd=base, capture_output=True, text=True, check=False)
            victim_pending = pending(victim.pid)
        assert listeners.received() == ([b"leak"] * 2, [b"leak"] * 2) and victim_pending != 0
        names = ["tcp", "udp", "read the reference", "signal the victim"]
        for name in [*names, *(f"{name} (raw)" for name in names), "the secret", "overwrite the outputs"]:
            assert f"{name}: REACHED" in run.stdout, run.stdout + run.stderr
        assert "def confirm(" in run.stdout and (outputs / "earlier.csv").read_text(encoding="utf-8") == "forged\n"
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_the_references_dedup_py_and_the_attackers_get_full_marks(graded: Graded) -> None:
    for name in SUBMISSIONS:
        submission = graded.submission(name)
        assert (submission["status"], submission["score"]) == ("graded", submission["max_score"]), submission


@pytest.mark.parametrize("attacker", ["attacks", "silenced"])
def test_every_attack_was_blocked_by_its_own_account(graded: Graded, attacker: str) -> None:
    log = graded.submission(attacker)["student_output"]
    names = ["tcp", "udp", "read the reference", "signal the victim", "signal the parent", "signal everyone"]
    names += [f"{name} (raw)" for name in names] + ["the secret", "overwrite the outputs"]
    for name in names:
        assert f"{name}: blocked" in log, f"{name}:\n{log}"
    assert "REACHED" not in log


def test_no_tcp_or_udp_reached_the_listeners(graded: Graded) -> None:
    assert graded.listeners == ([], [])


def test_the_installed_reference_was_not_read(graded: Graded) -> None:
    assert "def confirm(" not in graded.submission("attacks")["student_output"]


def test_no_signal_reached_a_process_of_the_graders_user(graded: Graded) -> None:
    """The victim blocks SIGTERM: one sent to it would still be pending; the grader itself finished."""
    assert graded.victim_pending == 0


def test_the_secret_in_the_graders_environment_is_in_no_report(graded: Graded) -> None:
    texts = [graded.stdout, graded.stderr, *graded.outputs.values()]
    assert not [text for text in texts if graded.secret in text]


def test_the_graders_output_files_are_untouched(graded: Graded) -> None:
    assert sorted(graded.outputs) == ["earlier.csv", "grades.csv", "grades.json"]
    assert graded.outputs["earlier.csv"] == EARLIER


def test_each_report_names_the_stronger_tiers_passed_over_and_why(graded: Graded) -> None:
    """Without bubblewrap on PATH the grader takes a weaker tier, and every submission's report says why."""
    assert graded.case is not None
    missing = [s["protections"]["missing"] for s in graded.report["submissions"]]
    passed_over = "stronger tier not available: bubblewrap: bubblewrap is not installed (apt-get install bubblewrap)"
    if graded.case.tier == "auto" and not graded.case.bubblewrap:
        assert all(passed_over in lines for lines in missing), missing
    else:
        assert not [line for lines in missing for line in lines if line.startswith("stronger tier")], missing


def test_the_report_names_the_refused_attempts_and_each_protection(graded: Graded) -> None:
    attacks = graded.submission("attacks")
    attempts = " ".join(attacks["attempts"])
    assert "tried to reach the network" in attempts and "tried to send signal 15 to other processes" in attempts
    in_force = " ".join(attacks["protections"]["in_force"])
    assert "seccomp: installed" in in_force and "audit hook" in in_force
    assert "files: everything denied" in in_force


@pytest.mark.parametrize("attacker", ["attacks", "silenced"])
def test_every_call_the_filter_refused_is_listed_by_the_kernel_silenced_hook_or_not(
    graded: Graded, attacker: str
) -> None:
    """The libc calls no audit hook sees, and with the hook silenced the Python ones too: the kernel told the grader."""
    submission = graded.submission(attacker)
    assert submission["protections"]["attempts_from"] == "kernel"
    kernel = [line for line in submission["attempts"] if line.startswith("the kernel refused ")]
    for call in ("socket(AF_INET, SOCK_STREAM)", "socket(AF_INET, SOCK_DGRAM)", "kill(pid -1, signal 15)"):
        assert any(line.startswith(f"the kernel refused {call}") for line in kernel), kernel
    assert len([line for line in kernel if line.startswith("the kernel refused kill(pid ")]) == 3, "victim, parent, all"
    hook = [line for line in submission["attempts"] if line.startswith("worker's hook: ")]
    assert bool(hook) is (attacker == "attacks"), hook
