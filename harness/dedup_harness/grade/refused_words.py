"""What the grader refuses, in a student's words: one sentence per category of refused operation.

Correct code written on a laptop can crash only in the grader: a process pool, a socket for logs, a
spool in /tmp. The crash alone (``PermissionError: [Errno 13] Permission denied``) says nothing of
why; so a check that crashed on a refusal says first, in one sentence per category, what the grader
refuses, that `check` on the student's own machine does not, and what to do instead.

Which categories: those of the refusals the kernel's listener or the worker's audit hook recorded
for the check (``events.EventLog.refused``), never words found in the error, which the submission
writes. Whether the check crashed on one: a case's ``raised`` (the outcome recorder's field) is
``PermissionError``, the error every refusal raises (EPERM from the hook and seccomp, EACCES from
Landlock), and a type the grader rebuilds from a fixed list (``protocol.MAPPED``) rather than takes from
the worker: raised in the check, or by the import the check could not run without (a socket opened
at import time).
"""

from __future__ import annotations

from dedup_harness.grade.worker import categories

ALLOWED_ON_A_LAPTOP = "though `dedup-harness check` on your own machine allows them"
SENTENCES = {
    categories.PROCESSES: "The grader runs your code without child processes: multiprocessing (its pools, queues "
    f"and locks), subprocess and os.fork are refused, {ALLOWED_ON_A_LAPTOP}; do the work in the stage's own "
    "process (SHA-256 in a plain loop is fast enough).",
    categories.NETWORK: "The grader runs your code without a network: every socket is refused, even one to your own "
    f"machine for logs or metrics, {ALLOWED_ON_A_LAPTOP}; leave them out, and report counts in the stats dict.",
    categories.FILES: "The grader lets your code read and write files only under the spool_dir a check hands the "
    "stage (and the temp folder tempfile picks when given no dir): /tmp and every other folder are refused, "
    f"{ALLOWED_ON_A_LAPTOP}; write the spool under the spool_dir the stage is given.",
    categories.SIGNALS: "The grader lets your code send signals only to its own process: os.kill and os.killpg to "
    f"any other process are refused, {ALLOWED_ON_A_LAPTOP}; a stage has no process to signal, so remove the call.",
    categories.SHARED_MEMORY: "The grader keeps your code's memory where it can measure it: os.memfd_create, "
    "multiprocessing.shared_memory and System V shared memory are refused, "
    f"{ALLOWED_ON_A_LAPTOP}; keep the documents in the spool under spool_dir, and the rest in ordinary objects.",
}
# The same, as the one phrase a report gives for a submission that got nothing because of it.
SHORT = {
    categories.PROCESSES: "the grader refused child processes",
    categories.NETWORK: "the grader refused the network",
    categories.FILES: "the grader refused files outside the stage's folders",
    categories.SIGNALS: "the grader refused signals to other processes",
    categories.SHARED_MEMORY: "the grader refused memory outside the process",
}
REFUSAL_RAISES = PermissionError.__name__  # what every refusal raises (feedback.crashed_on)
