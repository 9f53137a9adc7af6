"""The minimal reproduction of each fault the audit finds in a caller's own filter: code written, then run once.

A library the audit knows has its reproductions recorded (reproductions.toml); a caller's filter gets
them written from the smallest failing case, with only the calls the failing check made. Each asserts
the promise the filter broke, so it can be pasted into the filter's own tests as it is; each is run
once where the audit ran, and its title says whether it failed as the audit found.
"""

from __future__ import annotations

import contextlib
import io
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from dedup_harness.bloom_audit.any_filter import AnyFilterAdapter
from dedup_harness.bloom_audit.bit_sources import Holder
from dedup_harness.bloom_audit.filter_checks import FAIL, FILLS, MISS_EXPONENT
from dedup_harness.bloom_audit.formulas import optimal_k
from dedup_harness.bloom_audit.model import CaseReport
from dedup_harness.bloom_audit.reproductions import Reproduction

ITEM = "rng.randbytes(16)"


@dataclass(frozen=True)
class Spelling:
    """How the code names the caller's filter: the lines that import it, and the name it is called by."""

    imports: str
    call: str
    namespace: dict[str, Any] = field(default_factory=dict)  # what running it needs that no import gives
    needs_sys: bool = False  # its import follows a folder put on sys.path


def spelling_of(build: Callable[..., Any], folder: str | None = None) -> Spelling:
    """``from module import Name``, after ``folder`` goes on sys.path; a lambda or local factory as ``build``."""
    module, name = getattr(build, "__module__", None), getattr(build, "__qualname__", "")
    if not module or not name or "<" in name or module == "__main__":
        where = _where(build)
        return Spelling(f"# build: the factory the audit was given{where}", "build", {"build": build})
    path = f"sys.path.insert(0, {folder!r})\n" if folder else ""
    return Spelling(f"{path}from {module} import {name.split('.')[0]}", name, needs_sys=bool(folder))


def _where(build: Callable[..., Any]) -> str:
    code = getattr(build, "__code__", None)
    return f" ({code.co_filename}, line {code.co_firstlineno})" if code is not None else ""


def write(
    rows: Sequence[CaseReport],
    causes: Sequence[str],
    spelling: Spelling,
    build: Callable[[CaseReport], AnyFilterAdapter],
    *,
    takes: str,
    target: str,
) -> list[Reproduction]:
    """One reproduction per cause, from its smallest failing case; ``build`` makes that case's adapter."""
    found = []
    for cause in causes:
        failing = [(row, check) for row in rows if not row.control for check in row.checks if _shows(check, cause)]
        if not failing:
            continue
        row, check = min(failing, key=lambda pair: pair[0].capacity)
        adapter = build(row)
        code = _imports(check.check, spelling) + _body(check.check, cause, row, adapter, spelling, takes)
        found.append(Reproduction(target, cause, "", f"{row.case}; {_ran(code, spelling)}", code))
    return found


def _shows(check: Any, cause: str) -> bool:
    return bool(check.status == FAIL and (check.cause or check.check) == cause)


def _imports(check: str, spelling: Spelling) -> str:
    needed = {"random": check not in ("k", "sizing"), "sys": spelling.needs_sys}
    head = "".join(f"import {name}\n" for name, wanted in needed.items() if wanted)
    return (head + "\n" if head else "") + spelling.imports + "\n\n"


def _body(check: str, cause: str, row: CaseReport, adapter: AnyFilterAdapter, spelling: Spelling, takes: str) -> str:
    args = f"{row.size}, {row.given_k}" if takes == "bits" else f"{row.capacity}, {row.asked_rate!r}"
    built = f"{spelling.call}({args})"
    if check == "reachability":
        return _reach(cause, row, adapter, built)
    if check == "no false negatives":
        return _false_negatives(row, adapter, built)
    if check in ("k", "sizing"):
        return _attribute(check, row, adapter, built)
    return _rate(row, adapter, built)


def _insert(adapter: AnyFilterAdapter, item: str) -> str:
    return f"bloom.{adapter.insert_name}({item})"


def _contains(adapter: AnyFilterAdapter, item: str) -> str:
    if adapter.contains_name == "__contains__":
        return f"{item} in bloom"
    return f"bloom.{adapter.contains_name}({item})"


def _reach(cause: str, row: CaseReport, adapter: AnyFilterAdapter, built: str) -> str:
    m = adapter.bits_to_reach() or 0
    items = math.ceil(m * (math.log(max(m, 2)) + MISS_EXPONENT) / max(row.k or 1, 1))
    expected = f"reached <= set(range({m}))" if cause == "index range" else f"reached == set(range({m}))"
    indexed = adapter.has_indexes  # its index function is called; else items go in and its bit array is counted
    holder = None if indexed else _bit_array(adapter, items)
    count = "None" if holder is None else _count("bloom" + holder.path, holder.kind)
    step = f"reached.update(bloom.{adapter.index_name}({ITEM}))" if indexed else _insert(adapter, ITEM)
    lines = [f"bloom = {built}", "rng = random.Random(0)", *(["reached = set()"] if indexed else [])]
    lines += [f"for _ in range({items}):", f"    {step}", *([] if indexed else [f"reached = {count}"])]
    shown, said = ("len(reached)", "reached") if indexed else ("reached", "set")
    lines += [f'print({shown}, "of {m} bits {said}")  # the audit: {row.reachable_bits}']
    lines += [f"assert {expected}" if indexed else f"assert reached == {m}"]
    return "\n".join(lines) + "\n"


def _bit_array(adapter: AnyFilterAdapter, items: int) -> Holder | None:
    """The holder the audit read the bits from: a fresh filter is filled and watched as the audit's was."""
    if adapter.watch is None:
        return None
    rng = random.Random("which holder")
    for _ in range(max(1, min(items, 4096) // 64)):
        adapter.insert_many([rng.randbytes(16) for _ in range(64)])
        adapter.set_bits()
    return adapter.watch.chosen


def _count(value: str, kind: str) -> str:
    """An expression counting the set bits of the holder at ``value``: one int, or the words it iterates over."""
    if kind == "int":
        return f"bin({value}).count('1')"
    return f"sum(bin(word).count('1') for word in {value})"


def _false_negatives(row: CaseReport, adapter: AnyFilterAdapter, built: str) -> str:
    lines = [
        f"bloom = {built}",
        "rng = random.Random(0)",
        f"items = [{ITEM} for _ in range({row.capacity})]",
        "for item in items:",
        f"    {_insert(adapter, 'item')}",
        f"missing = [item for item in items if not ({_contains(adapter, 'item')})]",
        f'print(len(missing), "of {row.capacity} inserted items read as absent")',
        "assert not missing",
    ]
    return "\n".join(lines) + "\n"


def _attribute(check: str, row: CaseReport, adapter: AnyFilterAdapter, built: str) -> str:
    """k or m read back: what its sizing implies (or the m and k it was built with), else the optimum within one."""
    name = adapter.k_name if check == "k" else adapter.m_name
    wanted = row.implied_k if check == "k" else str(row.size)
    if wanted.isdigit():
        return f"bloom = {built}\nprint(bloom.{name})\nassert bloom.{name} == {wanted}\n"
    best = optimal_k(row.allocated_bits or 1, row.capacity)
    shown = f"bloom = {built}\nprint(bloom.{name})  # the optimum is {best:.2f}\n"
    return shown + f"assert abs(bloom.{name} - {best:.2f}) < 1\n"


def _rate(row: CaseReport, adapter: AnyFilterAdapter, built: str) -> str:
    """The audit's own probe: FILLS filters filled to capacity, the same number of fresh queries, its tolerance."""
    per_fill = row.queries // FILLS
    asked = per_fill * FILLS
    lines = [
        "rng, hits = random.Random(0), 0",
        f"for _ in range({FILLS}):",
        f"    bloom = {built}",
        f"    for _ in range({row.capacity}):",
        f"        {_insert(adapter, ITEM)}",
        f"    hits += sum({_contains(adapter, ITEM)} for _ in range({per_fill}))",
        f'print(hits / {asked}, "of fresh items read as present where {row.promised_rate:.3g} is promised")',
        f"assert hits <= {row.tolerated}  # the most a filter keeping its promise shows in {asked:,} queries",
    ]
    return "\n".join(lines) + "\n"


def _ran(code: str, spelling: Spelling) -> str:
    """Run the reproduction here and say how it ended."""
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # its prints are for whoever pastes it
            exec(compile(code, "<reproduction>", "exec"), {"__name__": "__reproduction__", **spelling.namespace})
    except AssertionError:
        return "run here, it fails as the audit found"
    except Exception as exc:
        return f"run here, it raised {type(exc).__name__}: {exc}"
    return "run here, it passed: the audit's margin was narrow, or the fault needs the audit's own items"
