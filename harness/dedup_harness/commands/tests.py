"""``dedup-harness tests [N]``: the catalogue of checks, as the chapter's ``ol tests`` has it; one check in full.

Without N: each check's number, name, kind, what it asserts and why it matters downstream (the
registry's words, ``core/checks.py``). ``--rules``: the rulebook, what a stage may do (``grade/rules.toml``). With
N: that check in full: the same, its test's own account,
its cases as pytest collects them from the installed suite, and the pitfalls it catches (the mutant
catalogue's words). Exit status 0; 2 for an N that names no check.
"""

from __future__ import annotations

import argparse
import shutil
import textwrap
from collections.abc import Iterable

from dedup_harness.check.tests_catalogue import CollectionError, by_number, collected_cases, describe_cases, pitfalls
from dedup_harness.commands.arguments import count
from dedup_harness.commands.outputs import fail
from dedup_harness.core.checks import REGISTRY, Check
from dedup_harness.core.paths import DOCS_DIR
from dedup_harness.grade import rules

HELP = "the catalogue of checks: number, name, kind, what each asserts, why it matters; `tests N` gives check N in full"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("number", nargs="?", type=count, metavar="N", help="one check in full: its cases and pitfalls")
    parser.add_argument("--rules", action="store_true", help="the rules a stage runs under, in grade and in check")


def run(args: argparse.Namespace) -> int:
    if args.rules:
        print(rules.page(), end="")
        return 0
    if args.number is None:
        say(catalogue())
        return 0
    try:
        check = by_number(args.number)
        cases = collected_cases().get(check.name)
    except (LookupError, CollectionError) as exc:
        return fail("tests", exc)
    say(one_check(check, describe_cases(cases) if cases else [], cases.about if cases else ""))
    return 0


def say(lines: Iterable[str]) -> None:
    """Each line wrapped to the terminal's width (100 columns in a pipe), its continuation under its text; a path
    longer than a line stays whole, to be copied."""
    width = shutil.get_terminal_size((100, 24)).columns
    wrap = textwrap.TextWrapper(width, break_on_hyphens=False, break_long_words=False)
    for line in lines:
        wrap.subsequent_indent = " " * (len(line) - len(line.lstrip())) + "  "
        print(wrap.fill(line) if line else "")


def catalogue() -> list[str]:
    """Each check as the chapter's table has it: number, name and kind, then what it asserts and why it matters."""
    lines = []
    for check in REGISTRY:
        lines += [f"{check.number:>2}. {check.name} ({check.kind})", f"    asserts: {check.asserts}"]
        lines += [f"    why it matters downstream: {check.why}", ""]
    return [*lines, f"`dedup-harness tests N` gives check N in full. {pages()}"]


def one_check(check: Check, cases: list[str], about: str) -> list[str]:
    """Check ``check`` in full, a line each."""
    found = pitfalls(check)
    lines = [f"{check.number}. {check.name} ({check.kind})", f"asserts: {check.asserts}"]
    lines += [f"why it matters downstream: {check.why}"]
    if about:
        lines += [f"the test: {about}"]
    lines += ["cases:", *(f"  {line}" for line in cases)]
    lines += ["pitfalls it is there to catch:"]
    lines += [f"  {m.id}: {m.pitfall}" for m in found.named] or ["  none of the catalogue's names it"]
    if found.also:
        lines += ["pitfalls it catches as well:", *(f"  {m.id}: {m.pitfall}" for m in found.also)]
    return lines


def pages() -> str:
    """The pages a student reads (every check, check, the contract, the rulebook), where they are, and how to open
    them: Markdown, plain text to any viewer."""
    listed = "checks.md (every check in words), check.md, contract.md and rules.md"
    if not (DOCS_DIR / "checks.md").is_file():
        return f"The pages: {listed}, in docs/ of the harness."
    return f"The pages: {listed}, in {DOCS_DIR}; each is plain text (Markdown): `less {DOCS_DIR / 'checks.md'}`."
