"""What audit-bloom knows of a filter family: its cases, how to build it at one, and what it promises there."""

from __future__ import annotations

from collections.abc import Sequence

from dedup_harness.bloom_audit import reproductions
from dedup_harness.bloom_audit.adapters import BloomAdapter
from dedup_harness.bloom_audit.cases import Case, Promise, rate_sized_cases
from dedup_harness.bloom_audit.filter_checks import Finding
from dedup_harness.bloom_audit.model import CaseReport
from dedup_harness.bloom_audit.reproductions import Reproduction


class AuditTarget:
    """A filter family under audit."""

    name = ""
    description = ""
    version = ""  # the installed release, for the record a later run compares against
    size_unit = "sized for (bits)"  # what a case's size means for this target

    def cases(self) -> list[Case]:
        return rate_sized_cases()

    def throughput_case(self, capacity: int, error_rate: float) -> tuple[Case, str]:
        """The case the throughput run builds, and how it was sized: by default the capacity and rate."""
        return Case("throughput", 0, capacity, error_rate), f"n = {capacity:,}, p = {error_rate:g}"

    def build(self, case: Case) -> BloomAdapter:
        """A fresh filter for ``case``; raises ``CaseRefused`` when the library's API cannot express it."""
        raise NotImplementedError

    def build_for_speed(self, case: Case) -> BloomAdapter:
        """The filter the throughput run times: ``build`` unless the audit's build adds work of its own."""
        return self.build(case)

    def promise(self, case: Case, adapter: BloomAdapter) -> Promise:
        assert case.error_rate is not None
        return Promise(None, None, case.error_rate, "the error rate it was constructed with")

    def notes(self) -> list[Finding]:
        """Faults found by probes outside the table's checks."""
        return []

    def reproductions(self, rows: Sequence[CaseReport], causes: Sequence[str]) -> list[Reproduction]:
        """The reproduction of each fault among ``causes``: for a library the audit knows, its recorded ones."""
        return reproductions.for_causes(self.name, causes)


class TargetError(Exception):
    """A target that cannot be loaded: the message names it and says why."""
