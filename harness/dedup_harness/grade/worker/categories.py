"""The categories of refused operation a student is told about: each describer of a refusal names one.

The worker's audit hook (``audit``) and the kernel's listener (``grade/kernel_refusals.py``) say in
words what a submission tried; a category says which of the grader's rules it met, so that the
feedback can tell a student in plain words what to do instead (``grade/rules.py``). Five
rules meet code written for a laptop: no child processes, no network, no files outside the worker's
folders, no signals to other processes, no memory outside the process (shared memory, an anonymous
memory file: memory the grader could not measure). What else is refused (ptrace, mounts, a filter
of its own...) has no category: it is listed, and no correct stage needs it.

Standard library only: the worker imports it inside the sandbox.
"""

from __future__ import annotations

PROCESSES = "processes"
NETWORK = "network"
FILES = "files"
SIGNALS = "signals"
SHARED_MEMORY = "shared memory"
NONE = ""  # refused or noted, but none of the rules above
CATEGORIES = (PROCESSES, NETWORK, FILES, SIGNALS, SHARED_MEMORY)  # in the order the feedback says them
