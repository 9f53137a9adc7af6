"""The categories of refused operation a student is told about: each describer of a refusal names one.

The audit hook (``audit``) and the kernel's listener (``grade/kernel_refusals.py``) say what a
submission tried; a category says which rule it met, so the feedback can say what to do instead
(``grade/rules.py``). Five rules meet laptop code: no child processes, no network, no files outside
the worker's folders, no signals to other processes, no memory outside the process. The rest refused
(ptrace, mounts, a filter of its own...) is listed without one: no correct stage needs it.
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
