"""Where the embedded data lives: beside the package when installed, at the project root in a checkout."""

from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent.parent  # dedup_harness/
_INSTALLED = PACKAGE_DIR / "_data"
# The folders of the checkout that travel in the wheel under dedup_harness/_data/, so every command
# works on its embedded defaults after a plain install. pyproject.toml must list them for hatch (it
# cannot read Python); tests/harness/test_one_home.py holds its lists to this one.
DATA_FOLDERS = ("impl", "impl_external", "oracle", "mutants", "tests", "fixtures")

INSTALLED = _INSTALLED.is_dir()  # an installed wheel, not a checkout (its tests are not the project's to edit)
DATA_ROOT = _INSTALLED if INSTALLED else PACKAGE_DIR.parent.parent
IMPL_ROOT = DATA_ROOT / "impl"
IMPL_EXTERNAL_ROOT = DATA_ROOT / "impl_external"  # the external-sort implementation, beside the reference
ORACLE_DIR = DATA_ROOT / "oracle"
MUTANTS_DIR = DATA_ROOT / "mutants"
TESTS_DIR = DATA_ROOT / "tests"
SUITE_DIR = TESTS_DIR / "suite"
FIXTURE_DIR = DATA_ROOT / "fixtures" / "data.03"
CANARY_SOURCE = MUTANTS_DIR / "canary_dedup.py"  # a wrong corpus.dedup: data, like the mutants' diffs
REFERENCE_SOURCE = IMPL_ROOT / "corpus" / "dedup.py"  # the reference's stage: absent from the student kit
DOCS_DIR = DATA_ROOT / "docs"  # the project's own account (in a checkout, and in the student kit)
# In the data of a student kit (``dedup-harness student-kit``): what the kit is. Its presence is what
# offers the student's commands only; the kit holds no reference stage, mutant or sample submission.
KIT_MARK = "student-kit.txt"
STUDENT_KIT = (DATA_ROOT / KIT_MARK).is_file()
# In a kit built with ``--holds-back``: the course grades on cases it holds back (``grade --hidden-seed``).
# The file says so and holds no seed; ``check`` then says it cannot promise grade's verdict on those.
HOLDS_BACK_MARK = "holds-back.txt"
HOLDS_BACK = (DATA_ROOT / HOLDS_BACK_MARK).is_file()
# In a kit (or at a bundle's top) built with ``--own-deps`` (``commands/arguments.add_own_deps``): the course grades
# each dedup.py with the student's own doc, hashing and bloom where it has them; ``check`` predicts with those.
OWN_DEPS_MARK = "own-deps.txt"
OWN_DEPS = (DATA_ROOT / OWN_DEPS_MARK).is_file()
