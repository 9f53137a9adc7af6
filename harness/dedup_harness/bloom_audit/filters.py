"""The filters audit-bloom audits, known or the caller's own: how to build each at a case, and what it promises."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Sequence
from functools import partial
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from dedup_harness.bloom_audit import datatrove_mask, loading
from dedup_harness.bloom_audit.adapters import BloomAdapter, DatatroveAdapter, ReferenceAdapter
from dedup_harness.bloom_audit.any_filter import FAMILIES, TAKES, AnyFilterAdapter, Driving
from dedup_harness.bloom_audit.cases import DATATROVE_GRID, DATATROVE_SCENARIOS, Case, Promise, rate_sized_cases
from dedup_harness.bloom_audit.filter_checks import Finding
from dedup_harness.bloom_audit.formulas import textbook_rate
from dedup_harness.bloom_audit.model import CaseReport
from dedup_harness.bloom_audit.package_targets import PACKAGE_TARGETS, PackageTarget
from dedup_harness.bloom_audit.reproductions import Reproduction
from dedup_harness.bloom_audit.target import AuditTarget, TargetError
from dedup_harness.bloom_audit.written_reproductions import Spelling, spelling_of, write
from dedup_harness.core import bloom_sizing


class ReferenceTarget(AuditTarget):
    """The reference ``corpus.bloom.BloomFilter``, or a class with its API (``cls``)."""

    name = "reference"

    def __init__(self, cls: Any = None) -> None:
        self.cls = cls
        self.version = version("dedup-harness")
        self.description = "corpus.bloom.BloomFilter, the course's reference (its sizing rule for m and k)"

    def build(self, case: Case) -> BloomAdapter:
        assert case.error_rate is not None
        return ReferenceAdapter(case.capacity, case.error_rate, cls=self.cls)

    def promise(self, case: Case, adapter: BloomAdapter) -> Promise:
        assert case.error_rate is not None
        m = bloom_sizing.bits(case.capacity, case.error_rate)
        k = bloom_sizing.hashes(m, case.capacity)
        rate = textbook_rate(m, k, max(case.capacity, 1))
        return Promise(m, k, rate, "the course's m and k, and the Bloom rate at that m and k")


class DatatroveTarget(AuditTarget):
    """datatrove's ``SingleBloomFilter``, as installed; control rows correct only line 147."""

    name = "datatrove"
    size_unit = "m_bytes"

    def __init__(self) -> None:
        self.module = importlib.import_module("datatrove.pipeline.dedup.bloom_filter")
        self.version = version("datatrove")
        self.description = f"datatrove {self.version} SingleBloomFilter ({self.module.__file__})"
        # datatrove logs through loguru on every construction; the audit prints its own table.
        importlib.import_module("loguru").logger.disable("datatrove")

    def cases(self) -> list[Case]:
        shipped = [Case(family, size, round(size * 8 / 9.6)) for family, size in DATATROVE_GRID]
        controls = [
            Case(c.family, c.size, c.capacity, k=c.k, control=True)
            for c in (shipped[0], shipped[2], shipped[4], shipped[6], DATATROVE_SCENARIOS[0])
        ]
        return [*shipped, *DATATROVE_SCENARIOS, *controls]

    def throughput_case(self, capacity: int, error_rate: float) -> tuple[Case, str]:
        # It takes no rate: the bytes the textbook gives for the rate, and the textbook's k for them.
        m_bytes = -(-bloom_sizing.bits(capacity, error_rate) // 8)
        k = bloom_sizing.hashes(8 * m_bytes, capacity)
        return Case("throughput", m_bytes, capacity, k=k), f"m_bytes = {m_bytes:,}, k = {k} for n = {capacity:,}"

    def build(self, case: Case) -> BloomAdapter:
        return DatatroveAdapter(case.size, case.capacity, case.k, fixed_reduction=case.control)

    def promise(self, case: Case, adapter: BloomAdapter) -> Promise:
        assert adapter.k is not None
        m = case.size * 8  # its docstring: "bloom filter size in bytes (actual size x8 bigger)"
        k = int(self.module.get_optimal_k(case.size, case.capacity))
        rate = float(self.module.get_false_positive_prob(case.size, n=case.capacity, k=adapter.k))
        return Promise(m, k, rate, "its docstring (8 m_bytes bits), get_optimal_k(m_bytes, n), its logged rate")

    def notes(self) -> list[Finding]:
        return datatrove_mask.datatrove_notes(self.module)


class AnyFilterTarget(AuditTarget):
    """The caller's filter class or factory, audited at the rate-sized grid (or the families named)."""

    def __init__(
        self,
        build: Callable[..., Any],
        name: str,
        driving: Driving | None = None,
        families: Sequence[str] | None = None,
        spelling: Spelling | None = None,
    ) -> None:
        self.build_filter, self.name, self.driving = build, name, driving or Driving()
        self.spelling = spelling or spelling_of(build)
        self.families = _families(families)
        self.description = f"constructed as {TAKES[self.driving.takes].replace('build', _short(build))}"
        if self.driving.takes == "bits":
            self.size_unit = "m (bits)"
        try:  # a class that cannot be built or driven is the caller's error, not a failed audit
            self.build(self.cases()[0])
        except Exception as exc:
            raise TargetError(f"{name} cannot be used as a Bloom filter: {type(exc).__name__}: {exc}") from exc

    def cases(self) -> list[Case]:
        rate_sized = [case for case in rate_sized_cases() if case.family in self.families]
        if self.driving.takes == "rate":
            return rate_sized
        return [Case(c.family, c.size, c.capacity, k=bloom_sizing.hashes(c.size, c.capacity)) for c in rate_sized]

    def build(self, case: Case) -> AnyFilterAdapter:
        return AnyFilterAdapter(self.build_filter, self.driving, case)

    def promise(self, case: Case, adapter: Any) -> Promise:
        if self.driving.takes == "rate":
            return super().promise(case, adapter)
        assert case.k is not None
        rate = textbook_rate(case.size, case.k, case.capacity)
        return Promise(case.size, case.k, rate, "the Bloom rate of the m and k it was built with")

    def reproductions(self, rows: Sequence[CaseReport], causes: Sequence[str]) -> list[Reproduction]:
        """Written for this filter from the rows, and each run once (``written_reproductions``)."""

        def build(row: CaseReport) -> AnyFilterAdapter:
            return self.build(Case(row.family, row.size, row.capacity, row.asked_rate, row.given_k))

        return write(rows, causes, self.spelling, build, takes=self.driving.takes, target=self.name)

    def throughput_case(self, capacity: int, error_rate: float) -> tuple[Case, str]:
        if self.driving.takes == "rate":
            return super().throughput_case(capacity, error_rate)
        m = bloom_sizing.bits(capacity, error_rate)
        k = bloom_sizing.hashes(m, capacity)
        return Case("throughput", m, capacity, k=k), f"m = {m:,}, k = {k} for n = {capacity:,}"


def _families(names: Sequence[str] | None) -> tuple[str, ...]:
    if names is None:
        return FAMILIES
    unknown = [name for name in names if name not in FAMILIES]
    if unknown or not names:
        raise TargetError(f"size families {unknown or '(none)'}: expected some of {', '.join(FAMILIES)}")
    return tuple(names)


def _short(build: Callable[..., Any]) -> str:
    name = getattr(build, "__qualname__", type(build).__name__)
    return "build" if "<" in name else name


_BUILTIN: dict[str, tuple[Callable[[], AuditTarget], str]] = {
    "reference": (ReferenceTarget, ""),
    "datatrove": (DatatroveTarget, "datatrove==0.10.1 regex tokenizers 'xxhash<4'"),
    **{
        lib.name: (partial(PackageTarget, lib), f"{lib.name} (the audit extra pins the release audited)")
        for lib in PACKAGE_TARGETS
    },
}
TARGET_NAMES = tuple(_BUILTIN)
# A library's own class named as a filter is audited as its built-in target, with what the audit knows of it
KNOWN_CLASSES = {
    "datatrove.pipeline.dedup.bloom_filter.SingleBloomFilter": "datatrove",
    **{f"{library.module}.{library.adapter.constructor}": library.name for library in PACKAGE_TARGETS},
}


def known_target(build: Any, driving: Driving | None = None) -> AuditTarget | None:
    """The built-in target of a library's class given as a filter (``pybloom_live.BloomFilter``); None for others."""
    for path, name in KNOWN_CLASSES.items():
        module, _, attribute = path.rpartition(".")
        if getattr(sys.modules.get(module), attribute, None) is build:
            if driving not in (None, Driving()):  # built and read as the audit knows it: refused, never ignored
                own = "takes, index and bits apply only to a filter of your own"
                raise TargetError(f"{path} is audited as the built-in target {name!r}: {own}")
            return resolve_target(name)
    return None


def resolve_target(spec: str, driving: Driving | None = None, families: Sequence[str] | None = None) -> AuditTarget:
    """The target named by ``spec``: a built-in name, ``module:Class`` or ``path/to/file.py:Class``."""
    if spec in _BUILTIN:
        factory, install = _BUILTIN[spec]
        try:
            return factory()
        except (ImportError, PackageNotFoundError) as exc:
            raise TargetError(f"{spec} is not installed ({exc}); install it with: pip install {install}") from exc
    if loading.is_spec(spec):
        build, located = loading.load(spec)
        known = known_target(build, driving)
        if known is not None:
            return known
        spelling = spelling_of(build, str(located.folder) if located.file else None)
        return AnyFilterTarget(build, spec, driving, families, spelling)
    names = ", ".join(TARGET_NAMES)
    raise TargetError(f"unknown target {spec!r}: expected one of {names}, or {loading.FORMS}")
