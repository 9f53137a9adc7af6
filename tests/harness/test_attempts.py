"""Where the attempts listed come from: the kernel, which the submission cannot silence, and the hook, which it can.

``silenced_attempts`` replaces the worker's ``AuditHook.judge`` (the hook then neither refuses nor
notes anything) and opens sockets and signals other processes through Python and through libc; every
call is harmless if let through. Graded in each tier, every call the seccomp filter refused is still
listed, as the kernel told the grader. Left alone, the hook refuses the Python calls itself (they
never reach the kernel) and notes them; the libc calls are the kernel's to list.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dedup_harness.core.outcome import Outcome
from dedup_harness.core.paths import IMPL_ROOT
from dedup_harness.grade.sandbox.protections import HOOK_REFUSALS, KERNEL_REFUSALS
from grading_support import grade, hostile_source, tier_param

HAND = "test_hand_example_three_documents"
ALL_TIERS = [tier_param("bubblewrap"), tier_param("unshare"), tier_param("landlock")]
SOCKETS = [
    "the kernel refused socket(AF_INET, SOCK_STREAM): network (seccomp)",
    "the kernel refused socket(AF_INET, SOCK_DGRAM): network (seccomp)",
]
EVERYONE = "the kernel refused kill(pid -1, signal 0): signals to other processes (seccomp)"


def attempts_source(*, silence: bool) -> str:
    source = hostile_source("silenced_attempts")
    assert "\nSILENCE = True\n" in source
    return source.replace("\nSILENCE = True\n", f"\nSILENCE = {silence}\n", 1)


def signals_to_others(refused: list[str]) -> list[str]:
    return [line for line in refused if line.startswith("the kernel refused kill(pid ")]


@pytest.mark.parametrize("tier", ALL_TIERS)
def test_silencing_the_hook_leaves_every_refused_call_listed(tmp_path: Path, tier: str) -> None:
    graded = grade(attempts_source(silence=True), tmp_path, checks=[HAND], tier=tier)
    assert graded.outcome(HAND) is Outcome.PASSED
    output = graded.sidecar["student_output"]
    assert output.count("blocked (EPERM)") == 7 and "REACHED" not in output, output
    assert graded.events("attempt") == [], "the hook was silenced: it says nothing"
    refused = graded.events("refused")
    assert set(SOCKETS) <= set(refused) and EVERYONE in refused
    assert len(signals_to_others(refused)) == 3, "the parent, everyone and the next pid"
    protections = graded.sidecar["protections"]
    assert protections["attempts_from"] == "kernel" and KERNEL_REFUSALS in protections["in_force"]


@pytest.mark.parametrize("tier", ALL_TIERS)
def test_left_alone_the_hook_notes_the_python_calls_and_the_kernel_lists_the_libc_ones(
    tmp_path: Path, tier: str
) -> None:
    graded = grade(attempts_source(silence=False), tmp_path, checks=[HAND], tier=tier)
    assert graded.outcome(HAND) is Outcome.PASSED
    assert graded.sidecar["student_output"].count("blocked (EPERM)") == 7
    assert graded.says("attempt", "tried to reach the network: open a socket (AF_INET) (refused)")
    assert graded.says("attempt", "tried to send signal 0 to other processes (refused)")
    refused = graded.events("refused")
    assert set(SOCKETS) <= set(refused) and len(signals_to_others(refused)) == 1, refused


def test_without_a_kernel_channel_the_report_says_the_list_is_the_hooks_own(tmp_path: Path) -> None:
    """The ``none`` tier has no filter, so no listener: the reference (harmless) graded there says so."""
    reference = (IMPL_ROOT / "corpus" / "dedup.py").read_text(encoding="utf-8")
    graded = grade(reference, tmp_path, checks=[HAND], tier="none")
    assert graded.outcome(HAND) is Outcome.PASSED
    protections = graded.sidecar["protections"]
    assert protections["attempts_from"] == "hook" and HOOK_REFUSALS in protections["missing"]
    assert KERNEL_REFUSALS not in protections["in_force"]
