"""module:Class or path/to/file.py:Class, importable from any folder; a failed import says what was searched."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from dedup_harness.bloom_audit.loading import is_spec, load
from dedup_harness.bloom_audit.target import TargetError

FILTER = "class Bloom:\n    def __init__(self, capacity, error_rate):\n        self.n = capacity\n"


@pytest.fixture(autouse=True)
def _sys_path_and_modules_restored(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(sys, "path", list(sys.path))
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        del sys.modules[name]


def test_a_file_is_imported_from_any_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "loose_bloom.py").write_text(FILTER, encoding="utf-8")
    monkeypatch.chdir(tmp_path.parent)
    built, located = load(f"{tmp_path.name}/lib/loose_bloom.py:Bloom")
    assert built.__name__ == "Bloom" and located.module == "loose_bloom"
    assert located.folder == tmp_path / "lib" and str(tmp_path / "lib") in sys.path


def test_a_file_inside_a_package_is_imported_by_its_dotted_name_so_relative_imports_work(tmp_path: Path) -> None:
    package = tmp_path / "pkg_bloom" / "filters"
    package.mkdir(parents=True)
    (tmp_path / "pkg_bloom" / "__init__.py").write_text("", encoding="utf-8")
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "sizing.py").write_text("RATE = 0.01\n", encoding="utf-8")
    (package / "masked.py").write_text("from .sizing import RATE\n" + FILTER, encoding="utf-8")
    built, located = load(f"{package / 'masked.py'}:Bloom")
    assert located.module == "pkg_bloom.filters.masked" and located.folder == tmp_path
    assert sys.modules["pkg_bloom.filters.masked"].RATE == 0.01 and built.__module__ == "pkg_bloom.filters.masked"


def test_a_module_name_imports_from_the_current_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "here_bloom.py").write_text(FILTER, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert load("here_bloom:Bloom")[0].__name__ == "Bloom"


def test_a_module_that_is_not_found_says_what_was_searched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(TargetError) as raised:
        load("elsewhere_bloom:Bloom")
    message = str(raised.value)
    assert "No module named 'elsewhere_bloom'" in message and f"searched sys.path: {tmp_path}; " in message
    assert "or name its file: path/to/file.py:Bloom" in message


def test_a_module_that_fails_as_it_imports_says_where(tmp_path: Path) -> None:
    (tmp_path / "broken_bloom.py").write_text("x = 1\nraise ValueError('no sizing')\n", encoding="utf-8")
    with pytest.raises(TargetError, match=r"broken_bloom.py:2: ValueError: no sizing"):
        load(f"{tmp_path / 'broken_bloom.py'}:Bloom")


def test_a_file_shadowed_by_a_module_of_the_same_name_already_imported_is_refused(tmp_path: Path) -> None:
    (tmp_path / "json.py").write_text(FILTER, encoding="utf-8")
    with pytest.raises(TargetError, match="a module named 'json' was already imported from"):
        load(f"{tmp_path / 'json.py'}:Bloom")


@pytest.mark.parametrize(
    ("spec", "error"),
    [
        ("no_colon", "is not of the form module:Class or path/to/file.py:Class"),
        ("missing/file.py:Bloom", "no file"),
        ("json:NoSuchClass", "'json' ("),
    ],
)
def test_a_spec_that_names_nothing_is_refused_with_its_reason(spec: str, error: str) -> None:
    with pytest.raises(TargetError, match=error.replace("(", r"\(")):
        load(spec)


def test_specs_are_told_from_built_in_names() -> None:
    assert is_spec("pkg.mod:Bloom") and is_spec("a/b.py:Bloom") and not is_spec("rbloom")
