"""What changed since the recorded run: verdicts compared case by case, with the release each was found on.

The record is a ``--json`` document (docs/bloom-audit.json keeps the one the docs describe). A new
release that fixes a fault, or brings one, shows as a case whose verdict or causes changed; a
library the record does not know shows as new. Only the libraries in this run are compared.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dedup_harness.bloom_audit.audit import AuditReport


@dataclass(frozen=True)
class Outcome:
    version: str
    verdict: str  # pass, fail, n/a, or "absent" when the other run has no such case or library
    causes: tuple[str, ...]

    @property
    def text(self) -> str:
        causes = f" ({'; '.join(self.causes)})" if self.causes else ""
        return f"{self.verdict}{causes}"


@dataclass(frozen=True)
class Change:
    target: str
    case: str
    before: Outcome
    after: Outcome


class RecordError(Exception):
    """A record that cannot be read: the message names the file and says why."""


Outcomes = dict[str, dict[str, Outcome]]  # target -> case -> outcome


def load(path: Path) -> Outcomes:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        return outcomes_of_json(document)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise RecordError(f"cannot read the record {path}: {type(exc).__name__}: {exc}") from exc


def outcomes_of_json(document: dict[str, Any]) -> Outcomes:
    result: Outcomes = {}
    for entry in document["targets"]:
        version = str(entry.get("version", ""))
        rows = (row for row in entry["rows"] if not row["control"])
        result[entry["target"]] = {
            row["case"]: Outcome(version, row["verdict"], tuple(row.get("causes", []))) for row in rows
        }
    return result


def outcomes_of(reports: list[AuditReport]) -> Outcomes:
    return {
        report.target: {
            row.case: Outcome(report.version, row.verdict, tuple(row.causes)) for row in report.rows if not row.control
        }
        for report in reports
    }


def changes(recorded: Outcomes, reports: list[AuditReport]) -> list[Change]:
    """Every case of this run whose verdict or causes differ from the record's, and every case either lacks."""
    found: list[Change] = []
    for target, now in outcomes_of(reports).items():
        then = recorded.get(target, {})
        version = _version(now)
        for case in dict.fromkeys([*then, *now]):
            before = then.get(case, Outcome(_version(then), "absent", ()))
            after = now.get(case, Outcome(version, "absent", ()))
            if (before.verdict, before.causes) != (after.verdict, after.causes):
                found.append(Change(target, case, before, after))
    return found


def _version(outcomes: dict[str, Outcome]) -> str:
    return next(iter(outcomes.values())).version if outcomes else ""
