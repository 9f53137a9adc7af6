"""The scratch copy of the project that mutmut runs in, and the environment of every child it starts.

mutmut copies the sources and the tests into ``./mutants/`` of its working directory and runs from
there, which would collide with our own ``mutants/`` folder (the hand-written mutants). So every run happens in a
scratch folder laid out for it: ``corpus/`` (the reference package, at the top so mutmut's module
names match the ones the tests import), ``oracle/``, ``fixtures/``, the tests it runs (the suite and
the reference's own unit tests, nothing of the harness's) and a generated ``pyproject.toml``. The
suite runs in mutmut's own process (``--impl=.`` points the suite at the mutated copy): mutmut
credits a test only with calls made in that process.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from dedup_harness.core import profiles
from dedup_harness.core.impl_under_test import impl_args
from dedup_harness.core.paths import DATA_ROOT, IMPL_ROOT, ORACLE_DIR, PACKAGE_DIR, TESTS_DIR
from dedup_harness.mutation import fastest_tests_first

# The tests mutmut runs: the checks and the unit tests of the reference's parts.
SELECTION = ("tests/suite", "tests/reference")
TESTS_SHARED = ("conftest.py",)  # what the selection needs from tests/ itself
TEMP_NAME = "tmp"  # the scratch copy's folder for every child's temp files
# Run from mutmut's mutants/ folder: the suite against the mutated copy there, fastest tests first.
PYTEST_ARGS = (*impl_args("."), "-p", "no:cacheprovider", "-p", fastest_tests_first.__name__)


def mutmut_config() -> str:
    """The scratch copy's pyproject.toml: mutmut's settings, and pytest's for the copied suite."""
    strings = json.dumps  # a JSON string or list of strings is also a valid TOML value
    return "\n".join(
        [
            "[tool.mutmut]",
            f"source_paths = {strings(['corpus'])}",
            f"also_copy = {strings(['oracle', 'fixtures'])}",
            f"pytest_add_cli_args_test_selection = {strings(list(SELECTION))}",
            f"pytest_add_cli_args = {strings(list(PYTEST_ARGS))}",
            "",
            "[tool.pytest.ini_options]",
            "xfail_strict = true",
            "",
        ]
    )


def make_scratch(folder: Path) -> None:
    """Lay out the project for mutmut in ``folder``, without our mutants/ folder."""
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis", ".pytest_cache")
    shutil.copytree(IMPL_ROOT / "corpus", folder / "corpus", ignore=skip)
    shutil.copytree(ORACLE_DIR, folder / "oracle", ignore=skip)
    shutil.copytree(DATA_ROOT / "fixtures", folder / "fixtures", ignore=skip)
    for selected in SELECTION:
        shutil.copytree(DATA_ROOT / selected, folder / selected, ignore=skip)
    for name in TESTS_SHARED:
        shutil.copy2(TESTS_DIR / name, folder / "tests" / name)
    (folder / "pyproject.toml").write_text(mutmut_config(), encoding="utf-8")
    (folder / TEMP_NAME).mkdir()


def child_env(scratch: Path, **extra: str) -> dict[str, str]:
    """The environment of every child: this harness importable, the deterministic Hypothesis profile.

    UTF-8 mode off: Python turns it on by itself under a C or POSIX locale, and then open() ignores the
    locale the spool test sets, so the mutants that drop the spool's encoding would survive there only.
    The temp folder is the scratch copy's own: mutmut ends its forked test runs with os._exit, so
    pytest's numbered tmp_path folders keep their locks, and a mutant may leave its spool behind.
    """
    path = os.pathsep.join(p for p in (str(PACKAGE_DIR.parent), os.environ.get("PYTHONPATH", "")) if p)
    return {
        **os.environ,
        "PYTHONPATH": path,
        profiles.PROFILE_ENV: profiles.MUTATION,
        "PYTHONUTF8": "0",
        "TMPDIR": str(scratch / TEMP_NAME),
        **extra,
    }
