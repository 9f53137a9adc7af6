"""docs/ says what the code does: every option of every command, the checks, the mutants, and links that resolve.

Each command's page (``COMMAND_PAGES``) has an ``## Options`` table whose first column spells its
options; it must name every option the command's parser has, and nothing the parser lacks. The table
of docs/checks.md is held to the registry (core/checks.py), the table of docs/mutants.md to the
catalogue. And nothing in the repository cites a document the repository does not hold (the course's
own specification and format notes stayed outside it): every docs link and every ``docs/x.md``
mention resolves to a file.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from dedup_harness.cli import COMMANDS, build_parser
from dedup_harness.core.catalogue import load_catalogue
from dedup_harness.core.checks import REGISTRY
from dedup_harness.core.paths import DATA_ROOT, MUTANTS_DIR

DOCS = DATA_ROOT / "docs"
COMMAND_PAGES = {
    "verify": "verify.md",
    "check": "check.md",
    "start": "start.md",
    "tests": "tests.md",
    "diff": "diff.md",
    "student-kit": "student-kit.md",
    "grade": "grade.md",
    "merge": "merge.md",
    "gradescope-bundle": "gradescope-bundle.md",
    "prairielearn-bundle": "prairielearn-bundle.md",
    "ci-workflow": "ci-workflow.md",
    "mutation": "mutation.md",
    "audit-bloom": "audit-bloom.md",
    "dedup": "dedup.md",
}
# What the repository may not cite: the specification and the format notes the course keeps elsewhere,
# and the seed documents the project started from. (Spelled in pieces so that this file is not a hit.)
OUTSIDE = re.compile("|".join([r"\bSP" + r"EC\b", r"formats/" + r"bloom\.md", r"\bseeds/" + r"\d"]))
SCANNED_SUFFIXES = {".py", ".pyi", ".md", ".toml", ".ini", ".cfg", ".sh", ".j2", ".txt", ".diff", ".json", ""}
SKIPPED_FOLDERS = {".git", ".tox", ".venv", "__pycache__", ".mypy_cache", ".ruff_cache", ".hypothesis", ".bench"}
MARKDOWN_LINK = re.compile(r"\]\(([^)\s]+)\)")
DOCS_MENTION = re.compile(r"(?<![\w/.-])docs/[\w.-]+\.md")
OPTION = re.compile(r"`(-{1,2}[A-Za-z][\w-]*)")
CELL_BORDER = re.compile(r"(?<!\\)\|")

pytestmark = pytest.mark.skipif(not DOCS.is_dir(), reason="docs/ lives in a checkout, not in an installed wheel")


def section(page: Path, heading: str) -> list[str]:
    """The lines of ``page`` under ``## heading``, up to the next heading of that level."""
    lines = page.read_text(encoding="utf-8").splitlines()
    start = lines.index(f"## {heading}") + 1
    end = next((n for n in range(start, len(lines)) if lines[n].startswith("## ")), len(lines))
    return lines[start:end]


def table_rows(lines: list[str]) -> list[list[str]]:
    """The body rows of the Markdown tables among ``lines``, as lists of cells (``\\|`` unescaped)."""
    rows = []
    for line in lines:
        if not line.startswith("|") or set(line) <= set("|-: "):
            continue
        cells = [cell.strip().replace("\\|", "|") for cell in CELL_BORDER.split(line)[1:-1]]
        rows.append(cells)
    return rows[1:] if rows else rows  # the first row of a table is its header


def page_options(command: str) -> set[str]:
    rows = table_rows(section(DOCS / COMMAND_PAGES[command], "Options"))
    return {option for row in rows for option in OPTION.findall(row[0])}


def parser_options(command: str) -> set[str]:
    parser = build_parser(only=command.replace("-", "_"))
    [commands] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    sub: argparse.ArgumentParser = commands.choices[command]
    shown = [a for a in sub._actions if a.help != argparse.SUPPRESS and not isinstance(a, argparse._HelpAction)]
    return {option for action in shown for option in action.option_strings}


def test_every_command_has_a_page() -> None:
    assert set(COMMAND_PAGES) == {name.replace("_", "-") for name in COMMANDS}
    for page in COMMAND_PAGES.values():
        assert (DOCS / page).is_file(), page


@pytest.mark.parametrize("command", sorted(COMMAND_PAGES))
def test_a_commands_page_names_every_option_its_help_shows_and_no_other(command: str) -> None:
    in_help, on_page = parser_options(command), page_options(command)
    assert in_help - on_page == set(), f"docs/{COMMAND_PAGES[command]} does not name these options of --help"
    assert on_page - in_help == set(), f"docs/{COMMAND_PAGES[command]} names options `{command}` does not have"


def test_the_option_check_catches_an_option_the_page_leaves_out(monkeypatch: pytest.MonkeyPatch) -> None:
    real = parser_options("merge")
    monkeypatch.setattr(f"{__name__}.parser_options", lambda command: real | {"--new-option"})
    with pytest.raises(AssertionError, match="does not name these options"):
        test_a_commands_page_names_every_option_its_help_shows_and_no_other("merge")


def test_the_checks_page_lists_the_registry_in_its_order_and_words() -> None:
    lines = (DOCS / "checks.md").read_text(encoding="utf-8").splitlines()
    rows = table_rows(lines[: next(n for n, line in enumerate(lines) if line.startswith("## "))])
    assert [(row[0], row[1], row[2]) for row in rows] == [
        (str(check.number), f"`{check.name}`", check.asserts) for check in REGISTRY
    ], "docs/checks.md's table differs from harness/dedup_harness/core/checks.py: write the page from the registry"
    described = [line for line in section(DOCS / "checks.md", "What each check is for") if re.match(r"\d+\. ", line)]
    assert len(described) == len(REGISTRY), "docs/checks.md: one paragraph per check under 'What each check is for'"
    why = table_rows(section(DOCS / "checks.md", "Why each matters downstream"))
    assert why == [[str(check.number), check.kind, check.why] for check in REGISTRY], (
        "docs/checks.md's 'Why each matters downstream' differs from the registry's kinds and reasons"
    )


def test_the_mutants_page_lists_the_catalogue() -> None:
    rows = table_rows((DOCS / "mutants.md").read_text(encoding="utf-8").splitlines())
    mutant_rows = [row for row in rows if re.fullmatch(r"s\d+", row[0])]
    on_page = [(row[0], row[1], row[2], re.findall(r"`(\w+)`", row[3]), row[4]) for row in mutant_rows]
    catalogue = [
        (m.id, m.title, m.pitfall, list(m.caught_by), "+" if m.added else "") for m in load_catalogue(MUTANTS_DIR)
    ]
    assert on_page == catalogue, "docs/mutants.md's table differs from mutants/catalogue.toml"


def test_the_checks_page_says_what_the_course_added_to_the_chapter_and_why() -> None:
    """Its last section: the checks and the pitfalls marked ``added`` in the registry and the catalogue, their
    reasons in the same words, and how many of each the chapter lists."""
    lines = section(DOCS / "checks.md", "What the course added to the chapter")
    tables = [block.splitlines() for block in "\n".join(lines).split("\n\n") if block.startswith("|")]
    mutants = load_catalogue(MUTANTS_DIR, diffs=False)
    assert [table_rows(table) for table in tables] == [
        [[str(c.number), f"`{c.name}`", c.added] for c in REGISTRY if c.added],
        [[m.id, m.title, m.added] for m in mutants if m.added],
    ], "docs/checks.md's last section differs from the registry's and the catalogue's `added`"
    chapters = f"lists {sum(not c.added for c in REGISTRY)} of these checks and {sum(not m.added for m in mutants)} of"
    assert chapters in " ".join(lines), "docs/checks.md miscounts the chapter's checks or pitfalls"


def repository_files(root: Path = DATA_ROOT) -> list[Path]:
    """Every text file of the checkout holding code or docs (not the fixture's data, not this file's examples)."""
    found = []
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if set(relative.parts) & SKIPPED_FOLDERS or not path.is_file() or path.suffix not in SCANNED_SUFFIXES:
            continue
        if (relative.parts[0] == "fixtures" and path.suffix != ".md") or path == Path(__file__).resolve():
            continue
        found.append(path)
    return found


def test_nothing_cites_a_document_outside_the_repository() -> None:
    hits = [
        f"{path.relative_to(DATA_ROOT)}:{number}: {line.strip()}"
        for path in repository_files()
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1)
        if OUTSIDE.search(line)
    ]
    assert hits == [], "cite the docs/ page that holds the fact instead:\n" + "\n".join(hits)


def broken_references(path: Path, root: Path = DATA_ROOT) -> list[str]:
    """The docs references in ``path`` that name no file: markdown links (in .md files) and docs/x.md mentions."""
    text = path.read_text(encoding="utf-8", errors="replace")
    targets = [(mention, root / mention) for mention in DOCS_MENTION.findall(text)]
    if path.suffix == ".md":
        links = [link for link in MARKDOWN_LINK.findall(text) if not re.match(r"[a-z]+:|#", link)]
        targets += [(link, path.parent / link.split("#")[0]) for link in links]
    return [f"{path.relative_to(root)}: {written}" for written, target in targets if not resolves(target, root)]


def resolves(target: Path, root: Path) -> bool:
    """Does the reference name a file of the repository (a link out of it resolves to nothing)?"""
    return target.exists() and target.resolve().is_relative_to(root.resolve())


def test_every_docs_link_and_mention_resolves_to_a_file() -> None:
    broken = [reference for path in repository_files() for reference in broken_references(path)]
    assert broken == [], "these references name no file in the repository:\n" + "\n".join(broken)


def test_the_link_check_catches_a_missing_page_a_missing_mention_and_a_link_out_of_the_repository(
    tmp_path: Path,
) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "here.md").write_text("x", encoding="utf-8")
    page = tmp_path / "docs" / "README.md"
    page.write_text(
        "[fine](here.md#top) [gone](gone.md) [web](https://example.org/x.md) [out](../../elsewhere.md)\n"
        "docs/here.md resolves, docs/nor-this.md does not\n",
        encoding="utf-8",
    )
    code = tmp_path / "module.py"
    code.write_text('"""See docs/missing.md."""\n', encoding="utf-8")
    assert broken_references(page, tmp_path) == [
        "docs/README.md: docs/nor-this.md",
        "docs/README.md: gone.md",
        "docs/README.md: ../../elsewhere.md",
    ]
    assert broken_references(code, tmp_path) == ["module.py: docs/missing.md"]


def test_the_citation_check_catches_each_kind_of_outside_citation() -> None:
    for line in ["the checks (" + "SP" + "EC 5)", "see formats/" + "bloom.md", "(seeds/" + "003)"]:
        assert OUTSIDE.search(line), line
    assert not OUTSIDE.search("importlib.util.spec_from_file_location; a SPEC_KEY; docs/bloom.md")
