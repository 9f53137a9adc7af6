"""What was in force for one submission's worker, for the report."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

WORKER_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0", "PYTHONIOENCODING": "utf-8"}


@dataclass
class Protections:
    """What was in force for one submission's worker: goes into the report as it is."""

    isolation: str  # "bubblewrap", "unshare" or "none"
    interpreter: str
    interpreter_version: str = ""
    user: str = ""
    network: str = ""
    process_namespace: bool = False
    harness_files_hidden: bool = False
    process_limit_enforced: bool = False
    environment: str = "scrubbed: " + ", ".join(sorted(WORKER_ENV))
    limits: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)
