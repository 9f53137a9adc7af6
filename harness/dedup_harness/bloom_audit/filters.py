"""The filters audit-bloom knows: how to build each at a case's size, and what its own sizing promises."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from functools import partial
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from dedup_harness.bloom_audit import datatrove_mask
from dedup_harness.bloom_audit.adapters import BloomAdapter, DatatroveAdapter, GenericAdapter, ReferenceAdapter
from dedup_harness.bloom_audit.cases import DATATROVE_GRID, DATATROVE_SCENARIOS, Case, Promise
from dedup_harness.bloom_audit.filter_checks import Finding
from dedup_harness.bloom_audit.formulas import textbook_rate
from dedup_harness.bloom_audit.package_targets import PACKAGE_TARGETS, Library, PackageTarget
from dedup_harness.bloom_audit.target import Target, TargetError
from dedup_harness.core import bloom_sizing


class ReferenceTarget(Target):
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


class DatatroveTarget(Target):
    """datatrove's ``SingleBloomFilter``, as installed; control rows correct only line 147."""

    name = "datatrove"
    size_unit = "m_bytes"

    def __init__(self) -> None:
        self.module = importlib.import_module("datatrove.pipeline.dedup.bloom_filter")
        self.version = version("datatrove")
        self.description = f"datatrove {self.version} SingleBloomFilter ({self.module.__file__})"
        _quiet_datatrove_logging()

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


def _quiet_datatrove_logging() -> None:
    # datatrove logs through loguru on every construction; the audit prints its own table.
    importlib.import_module("loguru").logger.disable("datatrove")


class GenericTarget(Target):
    """Any ``module:Class`` constructed as ``Class(capacity, error_rate)``."""

    def __init__(self, spec: str) -> None:
        self.name = spec
        self.cls = load_class(spec)
        self.description = f"{spec} (constructed as Class(capacity, error_rate))"
        try:  # a class that cannot be built or driven is the caller's error, not a failed audit
            GenericAdapter(self.cls, 100, 0.01)
        except Exception as exc:
            raise TargetError(f"{spec} cannot be used as a Bloom filter: {type(exc).__name__}: {exc}") from exc

    def build(self, case: Case) -> BloomAdapter:
        assert case.error_rate is not None
        return GenericAdapter(self.cls, case.capacity, case.error_rate)


def load_class(spec: str) -> Callable[..., Any]:
    module_name, _, class_name = spec.partition(":")
    if not module_name or not class_name:
        raise TargetError(f"{spec!r} is not of the form module:Class")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # like `python -m`: modules beside the caller import
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise TargetError(f"cannot import {module_name!r} for {spec!r}: {exc}") from exc
    cls = getattr(module, class_name, None)
    if not callable(cls):
        raise TargetError(f"{module_name!r} has no class {class_name!r}")
    return cls  # type: ignore[no-any-return]


def _package(library: Library) -> tuple[Callable[[], Target], str]:
    return partial(PackageTarget, library), f"{library.name} (the audit extra pins the release audited)"


_BUILTIN: dict[str, tuple[Callable[[], Target], str]] = {
    "reference": (ReferenceTarget, ""),
    "datatrove": (DatatroveTarget, "datatrove==0.10.1 regex tokenizers 'xxhash<4'"),
    **{library.name: _package(library) for library in PACKAGE_TARGETS},
}
TARGET_NAMES = tuple(_BUILTIN)


def resolve_target(spec: str) -> Target:
    """The target named by ``spec``: a built-in name or ``module:Class``."""
    if spec in _BUILTIN:
        factory, install = _BUILTIN[spec]
        try:
            return factory()
        except (ImportError, PackageNotFoundError) as exc:
            raise TargetError(f"{spec} is not installed ({exc}); install it with: pip install {install}") from exc
    if ":" in spec:
        return GenericTarget(spec)
    names = ", ".join(TARGET_NAMES)
    raise TargetError(f"unknown target {spec!r}: expected one of {names}, or module:Class")
