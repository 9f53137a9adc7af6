"""The filters audit-bloom knows: how to build each at a case's size, and what its own sizing promises."""

from __future__ import annotations

import importlib
import math
import os
import sys
from collections.abc import Callable
from importlib.metadata import version
from typing import Any

from dedup_harness.bloom_audit import datatrove_mask
from dedup_harness.bloom_audit.adapters import (
    BloomAdapter,
    DatatroveAdapter,
    GenericAdapter,
    PybloomLiveAdapter,
    RbloomAdapter,
    ReferenceAdapter,
)
from dedup_harness.bloom_audit.cases import DATATROVE_GRID, DATATROVE_SCENARIOS, Case, Promise, rate_sized_cases
from dedup_harness.bloom_audit.filter_checks import Finding
from dedup_harness.bloom_audit.formulas import LN2, spec_bits, spec_hashes, textbook_rate

TARGET_NAMES = ("reference", "datatrove", "rbloom", "pybloom-live")


class Target:
    """A filter family under audit."""

    name = ""
    description = ""
    size_unit = "sized for (bits)"  # what a case's size means for this target

    def cases(self) -> list[Case]:
        return rate_sized_cases()

    def build(self, case: Case) -> BloomAdapter:
        raise NotImplementedError

    def promise(self, case: Case, adapter: BloomAdapter) -> Promise:
        assert case.error_rate is not None
        return Promise(None, None, case.error_rate, "the error rate it was constructed with")

    def notes(self) -> list[Finding]:
        """Faults found by probes outside the table's checks."""
        return []


class ReferenceTarget(Target):
    """The reference ``corpus.bloom.BloomFilter``, or a class with its API (``cls``)."""

    name = "reference"

    def __init__(self, cls: Any = None) -> None:
        self.cls = cls
        self.description = "corpus.bloom.BloomFilter, the course's reference (docs/bloom.md)"

    def build(self, case: Case) -> BloomAdapter:
        assert case.error_rate is not None
        return ReferenceAdapter(case.capacity, case.error_rate, cls=self.cls)

    def promise(self, case: Case, adapter: BloomAdapter) -> Promise:
        assert case.error_rate is not None
        m = spec_bits(case.capacity, case.error_rate)
        k = spec_hashes(m, case.capacity)
        rate = textbook_rate(m, k, max(case.capacity, 1))
        return Promise(m, k, rate, "docs/bloom.md: m and k, and the Bloom rate at that m and k")


class DatatroveTarget(Target):
    """datatrove's ``SingleBloomFilter``, as installed; control rows correct only line 147."""

    name = "datatrove"
    size_unit = "m_bytes"

    def __init__(self) -> None:
        self.module = importlib.import_module("datatrove.pipeline.dedup.bloom_filter")
        self.description = f"datatrove {version('datatrove')} SingleBloomFilter ({self.module.__file__})"
        _quiet_datatrove_logging()

    def cases(self) -> list[Case]:
        shipped = [Case(family, size, round(size * 8 / 9.6)) for family, size in DATATROVE_GRID]
        controls = [
            Case(c.family, c.size, c.capacity, k=c.k, control=True)
            for c in (shipped[0], shipped[2], shipped[4], shipped[6], DATATROVE_SCENARIOS[0])
        ]
        return [*shipped, *DATATROVE_SCENARIOS, *controls]

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


class PackageTarget(Target):
    """A filter from an installed package, built as ``adapter(capacity, error_rate)``."""

    what = ""  # what the description says after the package and its version
    adapter: type[RbloomAdapter] | type[PybloomLiveAdapter]

    def __init__(self) -> None:
        self.description = f"{self.name} {version(self.name)} {self.what}"

    def build(self, case: Case) -> BloomAdapter:
        assert case.error_rate is not None
        return self.adapter(case.capacity, case.error_rate)


class RbloomTarget(PackageTarget):
    name = "rbloom"
    what = "Bloom (a stable 128-bit hash_func, for repeatable runs)"
    adapter = RbloomAdapter


class PybloomLiveTarget(PackageTarget):
    name = "pybloom-live"
    what = "BloomFilter"
    adapter = PybloomLiveAdapter

    def promise(self, case: Case, adapter: BloomAdapter) -> Promise:
        assert case.error_rate is not None
        # Its constructor's comments: k = ceil(log2(1/P)) slices of ceil(n |ln P| / (k ln(2)**2)) bits.
        k = math.ceil(math.log2(1 / case.error_rate))
        per_slice = math.ceil(case.capacity * abs(math.log(case.error_rate)) / (k * LN2**2))
        return Promise(k * per_slice, k, case.error_rate, "its constructor's formula; 'no more than error_rate'")


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


class TargetError(Exception):
    """A target that cannot be loaded: the message names it and says why."""


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


_BUILTIN: dict[str, tuple[Callable[[], Target], str]] = {
    "reference": (ReferenceTarget, ""),
    "datatrove": (DatatroveTarget, "datatrove==0.10.1 regex tokenizers 'xxhash<4'"),
    "rbloom": (RbloomTarget, "rbloom"),
    "pybloom-live": (PybloomLiveTarget, "pybloom-live"),
}


def resolve_target(spec: str) -> Target:
    """The target named by ``spec``: a built-in name or ``module:Class``."""
    if spec in _BUILTIN:
        factory, install = _BUILTIN[spec]
        try:
            return factory()
        except ImportError as exc:
            raise TargetError(f"{spec} is not installed ({exc}); install it with: pip install {install}") from exc
    if ":" in spec:
        return GenericTarget(spec)
    names = ", ".join(TARGET_NAMES)
    raise TargetError(f"unknown target {spec!r}: expected one of {names}, or module:Class")
