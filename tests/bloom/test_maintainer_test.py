"""The test docs/audit-bloom.md gives a filter's maintainers, run in a project of its own as they would run it.

The project holds the page's test file and a ``mybloom.py`` whose ``BloomFilter`` is correct or masked
(``shown_filters.py``: bits in a bytearray, the index a private method). pytest runs it in a fresh
process, from the project's folder, with nothing of this repository's configuration; the masked run
has plugin autoloading off, so not even the distribution's ``--impl`` plugin is there. The page's
failing output is what that run prints, but for its time.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dedup_harness.core.paths import DATA_ROOT

from . import shown_filters

pytest_plugins = ["pytester"]

PAGE = DATA_ROOT / "docs" / "audit-bloom.md"
HEADING = "## From your own tests"
pytestmark = pytest.mark.skipif(not PAGE.is_file(), reason="docs/ lives in a checkout, not in an installed wheel")


def blocks(language: str) -> list[str]:
    """The ``language`` code blocks of the page's section for maintainers, in order."""
    text = PAGE.read_text(encoding="utf-8")
    section = text[text.index(HEADING) :].split("\n## ", 1)[0]
    return re.findall(rf"```{language}\n(.*?)```", section, flags=re.DOTALL)


def project(pytester: pytest.Pytester, base: str) -> None:
    """The maintainer's project: the page's test, and mybloom.BloomFilter as one of shown_filters' filters."""
    source = Path(shown_filters.__file__).read_text(encoding="utf-8")
    pytester.makepyfile(mybloom=f'{source}\n\nclass BloomFilter({base}):\n    """The filter under test."""\n')
    pytester.makepyfile(test_mybloom=blocks("python")[0])


def test_the_pages_test_passes_a_correct_filter(pytester: pytest.Pytester) -> None:
    project(pytester, "BytesFilter")
    pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_the_pages_test_fails_a_masked_filter_as_the_page_shows_without_any_plugin_of_ours(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    project(pytester, "MaskedBytesFilter")
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.setenv("COLUMNS", "80")  # the width the page's short summary was cut at
    # On a CI machine pytest neither cuts the summary nor shortens assertion diffs; a maintainer's
    # terminal does both, and the page shows a terminal.
    for name in ("CI", "BUILD_NUMBER"):
        monkeypatch.delenv(name, raising=False)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    shown = blocks("text")[-1].splitlines()
    assert re.fullmatch(r"1 failed in [\d.]+s", result.outlines[-1])
    assert result.outlines[:-1] == shown[:-1], "docs/audit-bloom.md's failing run is not what the test prints"
    assert any(line.startswith("E       Reproduction of index reduced by a mask (mybloom:") for line in shown)
