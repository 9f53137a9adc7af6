"""The rulebook (``rules.toml``): what a stage may do while it is graded, read by the worker's limits, by ``check``
and by the page that prints it.

Every number a stage meets (its seconds, threads, open files, disk, memory) and every operation the grader
refuses, with the words a report says it in, is a line of ``rules.toml``: the sandbox's ``Limits`` take their
defaults from it, ``check`` applies what it can on a student's machine (``check/rules_here.py``), and
``python -m dedup_harness.grade.rules docs/rules.md`` (or ``dedup-harness tests --rules``) prints it; ``--check``
says whether the page differs (exit 1), as a test does.
"""

from __future__ import annotations

import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dedup_harness.grade.worker import categories

BOOK: dict[str, Any] = tomllib.loads(Path(__file__).with_name("rules.toml").read_text(encoding="utf-8"))
REFUSAL_RAISES = PermissionError.__name__  # what every refusal raises (``feedback.crashed_on``)


@dataclass(frozen=True)
class Limit:
    name: str
    value: int
    unit: str
    what: str
    check: str


LIMITS = {name: Limit(name, **entry) for name, entry in BOOK["limit"].items()}
USER = str(BOOK["identity"]["user"])  # the user name a stage runs as
WORDS = {n: (str(BOOK[n]["what"]).format(user=USER), str(BOOK[n]["check"])) for n in ("identity", "folders", "imports")}
SENTENCES = {category: str(BOOK["refused"][category]["sentence"]) for category in categories.CATEGORIES}
SHORT = {category: str(BOOK["refused"][category]["short"]) for category in categories.CATEGORIES}


def value(name: str) -> int:
    return LIMITS[name].value


def page() -> str:
    """docs/rules.md: every rule, what grade does and what check does with it."""
    lines = [
        "# The rules a stage runs under",
        "",
        "What a stage may do while `grade` grades it, and what `dedup-harness check` does with each rule on your",
        "machine. This page is written from `harness/dedup_harness/grade/rules.toml`, the one place the worker,",
        "`check` and this page read (`dedup-harness tests --rules` prints it too).",
        "",
        "| rule | in grade | in check |",
        "|---|---|---|",
        *(
            f"| {limit.name.replace('_', ' ')} | {limit.value} {limit.unit}: {limit.what} | {limit.check} |"
            for limit in LIMITS.values()
        ),
        *(f"| {name} | {what} | {check} |" for name, (what, check) in WORDS.items()),
        "",
        "## Refused at run time",
        "",
        "A check whose code meets one of these ends as grade's refusal does, and says first what to do instead.",
        "`check` notices each where your code does it (refusing nothing on your machine) and scores it as grade.",
        "",
        "| what | refused | said first |",
        "|---|---|---|",
        *(f"| {c} | {BOOK['refused'][c]['what']} | {SENTENCES[c]} |" for c in categories.CATEGORIES),
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    """``PAGE`` written from the rulebook; with ``--check``, exit 1 when it differs."""
    check = "--check" in argv
    target = Path(next(arg for arg in argv if arg != "--check"))
    if check:
        same = target.is_file() and target.read_text(encoding="utf-8") == page()
        print(f"{target}: {'as the rulebook says' if same else 'differs from the rulebook'}")
        return 0 if same else 1
    target.write_text(page(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
