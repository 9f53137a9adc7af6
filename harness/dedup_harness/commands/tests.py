"""``dedup-harness tests [N]``: the catalogue of checks, as the chapter's ``ol tests`` has it; one check in full.

Without N: each check's number, name, kind, what it asserts and why it matters downstream (the registry's words,
``core/checks.py``), ``+`` marking a check the course added to the chapter's. ``--rules``: the rulebook, what a stage
may do (``grade/rules.toml``). With N: that check in full: the same, its test's own account, its cases as pytest
collects them from the installed suite, and the pitfalls it catches (the mutant catalogue's words), with why the
course added each it added. Exit status 0; 2 for an N that names no check.
"""

from __future__ import annotations

import argparse
import shutil
import textwrap
from collections.abc import Iterable

from dedup_harness.check.tests_catalogue import CollectionError, by_number, collected_cases, describe_cases, pitfalls
from dedup_harness.commands.arguments import count
from dedup_harness.commands.outputs import fail
from dedup_harness.core.catalogue import Mutant
from dedup_harness.core.checks import REGISTRY, Check
from dedup_harness.core.paths import DOCS_DIR
from dedup_harness.grade import rules

ADDED = "+"  # marks a check or a pitfall the course added to the chapter's (their `added` says why)
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
        lines += [f"{check.number:>2}. {title(check)}", f"    asserts: {check.asserts}"]
        lines += [f"    why it matters downstream: {check.why}", ""]
    legend = f"{ADDED} a check the course added to the chapter's tests: `dedup-harness tests N` says why."
    return [*lines, legend, f"`dedup-harness tests N` gives check N in full. {pages()}"]


def title(check: Check) -> str:
    """The check's name and kind, marked where the course added it."""
    return f"{check.name} ({check.kind})" + (f" {ADDED}" if check.added else "")


def one_check(check: Check, cases: list[str], about: str) -> list[str]:
    """Check ``check`` in full, a line each."""
    found = pitfalls(check)
    lines = [f"{check.number}. {title(check)}", f"asserts: {check.asserts}"]
    lines += [f"why it matters downstream: {check.why}", *added(check.added)]
    if about:
        lines += [f"the test: {about}"]
    lines += ["cases:", *(f"  {line}" for line in cases)]
    lines += ["pitfalls it is there to catch:"]
    lines += [line for m in found.named for line in pitfall(m)] or ["  none of the catalogue's names it"]
    if found.also:
        lines += ["pitfalls it catches as well:", *(line for m in found.also for line in pitfall(m))]
    return lines


def pitfall(mutant: Mutant) -> list[str]:
    return [f"  {mutant.id}: {mutant.pitfall}", *added(mutant.added, "    ")]


def added(why: str, indent: str = "") -> list[str]:
    """Why the course added a check or a pitfall to the chapter's, on a line of its own (none for the chapter's)."""
    return [f"{indent}{ADDED} added by the course, beyond the chapter: {why}"] if why else []


def pages() -> str:
    """The pages a student reads (every check, check, the contract, the rulebook), where they are, and how to open
    them: Markdown, plain text to any viewer."""
    listed = "checks.md (every check in words), check.md, contract.md and rules.md"
    if not (DOCS_DIR / "checks.md").is_file():
        return f"The pages: {listed}, in docs/ of the harness."
    return f"The pages: {listed}, in {DOCS_DIR}; each is plain text (Markdown): `less {DOCS_DIR / 'checks.md'}`."
