"""A student's install: the wheel alone in a fresh venv brings what `check` and the suite need, nothing staff use.

The wheel is built from this checkout and installed with its base requirements from pip's index (the
network or the mirror pip is set up for; without one the tests skip, saying so). In that venv `check`
passes a correct sample, the installed suite's header names a student's folder, and what needs a staff
extra (`grade --html`, `mutation`) says which extra in one line instead of a traceback.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dedup_harness.cli import main
from dedup_harness.commands.extras import EXTRAS

PROJECT = Path(__file__).resolve().parents[2]
SAMPLES = Path(__file__).resolve().parent / "submissions" / "samples"
STAFF_ONLY = sorted({module for modules in EXTRAS.values() for module in modules} | {"mutmut", "textual", "libcst"})


def run(command: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "HYPOTHESIS_", "DEDUP_HARNESS_"))}
    env.pop("VIRTUAL_ENV", None)
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv holding the project's wheel and its base requirements only; its bin/ folder."""
    if not (PROJECT / "pyproject.toml").is_file():
        pytest.skip("the wheel is built from a checkout; this copy of the tests is installed")
    folder = tmp_path_factory.mktemp("light")
    built = run([sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", str(folder / "dist")], PROJECT)
    assert built.returncode == 0, built.stderr
    [wheel] = (folder / "dist").glob("*.whl")
    made = run([sys.executable, "-m", "venv", str(folder / "venv")], folder)
    assert made.returncode == 0, made.stderr
    bin_dir = folder / "venv" / "bin"
    installed = run([str(bin_dir / "python"), "-m", "pip", "install", "--quiet", str(wheel)], folder)
    if installed.returncode != 0:
        pytest.skip(f"pip could not install the wheel's requirements here: {installed.stderr.strip()[-300:]}")
    return bin_dir


def test_the_base_install_holds_none_of_the_staff_packages(venv: Path, tmp_path: Path) -> None:
    probe = "import importlib.util, sys; print(*[m for m in sys.argv[1:] if importlib.util.find_spec(m)])"
    found = run([str(venv / "python"), "-c", probe, *STAFF_ONLY], tmp_path)
    assert found.returncode == 0, found.stderr
    assert found.stdout.split() == []


def test_check_passes_a_correct_sample_from_the_base_install(venv: Path, tmp_path: Path) -> None:
    shutil.copyfile(SAMPLES / "correct_different.py", tmp_path / "dedup.py")
    checked = run([str(venv / "dedup-harness"), "check"], tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "dedup.py: 14 / 14" in checked.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dedup.py"]


def test_the_installed_suites_header_names_the_students_file(venv: Path, tmp_path: Path) -> None:
    shutil.copyfile(SAMPLES / "correct_different.py", tmp_path / "dedup.py")
    suite = ["--pyargs", "dedup_harness._data.tests.suite", "--impl", ".", "-k", "test_stats_name_every_key"]
    ran = run([str(venv / "pytest"), *suite], tmp_path)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    said = f"dedup-harness: under test --impl .: {tmp_path / 'dedup.py'}, in the scratch root "
    assert said in ran.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dedup.py"]


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (
            ["grade", "dedup.py", "--html", "g.html"],
            "dedup-harness grade: --html needs matplotlib and jinja2: pip install 'dedup-harness[html]'",
        ),
        (["mutation"], "dedup-harness mutation: mutation testing needs mutmut: pip install 'dedup-harness[mutation]'"),
    ],
)
def test_what_needs_a_staff_extra_names_it_in_one_line(venv: Path, tmp_path: Path, argv: list[str], says: str) -> None:
    shutil.copyfile(SAMPLES / "correct_different.py", tmp_path / "dedup.py")
    refused = run([str(venv / "dedup-harness"), *argv], tmp_path)
    assert (refused.returncode, refused.stderr, refused.stdout) == (2, says + "\n", "")


@pytest.mark.parametrize(
    "argv",
    [
        ["verify", "--html", "v.html"],
        ["audit-bloom", "reference", "--html", "a.html"],
        ["grade", "dedup.py", "--html", "g.html"],
    ],
)
def test_html_without_its_extra_is_refused_before_any_work(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("dedup_harness.commands.extras.installed", lambda module: module != "jinja2")
    monkeypatch.setattr("dedup_harness.commands.verify._run_with_progress", fail_if_called)
    monkeypatch.setattr("dedup_harness.commands.audit_bloom._audit", fail_if_called)
    monkeypatch.setattr("dedup_harness.commands.grade.preflight", fail_if_called)
    monkeypatch.chdir(tmp_path)
    shutil.copyfile(SAMPLES / "correct_different.py", tmp_path / "dedup.py")
    assert main(argv) == 2
    command = argv[0]
    assert capsys.readouterr().err == (
        f"dedup-harness {command}: --html needs jinja2: pip install 'dedup-harness[html]'\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dedup.py"]


def fail_if_called(*args: object, **kwargs: object) -> None:
    raise AssertionError("the work started before the missing extra was named")
