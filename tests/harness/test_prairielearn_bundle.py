"""PrairieLearn's external grader, end to end: the bundle built once, its image's install.sh run into a venv as
the Dockerfile runs it, then grade.sh run as PrairieLearn runs it on a simulated /grade (the course's files in
serverFilesCourse, the submission in student/), and the class's other submissions graded in one run by the
bundle's own harness with the entrypoint's options. The course holds cases back (``--hidden-seed``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_gradescope_bundle import index_reachable

from dedup_harness.cli import main
from dedup_harness.core.paths import IMPL_ROOT
from grading_support import hostile_bytes

SUBMISSIONS = Path(__file__).resolve().parent / "submissions"
SEED = "5eed2026000000000000000000000001"


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    why = index_reachable()
    if why:
        pytest.skip(why)
    folder = tmp_path_factory.mktemp("prairielearn") / "pl"
    assert main(["prairielearn-bundle", str(folder), "--image", "course/dedup-harness:1", "--hidden-seed", SEED]) == 0
    return folder


@pytest.fixture(scope="module")
def image(bundle: Path) -> Path:
    """The image's venv, made by install.sh as the Dockerfile's RUN makes it."""
    venv = bundle.parent / "venv"
    env = {**os.environ, "DEDUP_HARNESS_VENV": str(venv), "DEDUP_HARNESS_PYTHON": sys.executable}
    env = {k: v for k, v in env.items() if not k.startswith("PIP_") and k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run(["bash", str(bundle / "image" / "install.sh")], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    return venv


def graded_as_prairielearn_does(bundle: Path, venv: Path, root: Path, source: bytes) -> dict[str, Any]:
    """grade.sh on /grade (``root``): the course's files copied in, the entrypoint made executable, then run."""
    shutil.copytree(bundle / "serverFilesCourse", root / "serverFilesCourse")
    (root / "student").mkdir()
    (root / "student" / "dedup.py").write_bytes(source)
    entrypoint = root / "serverFilesCourse" / "dedup-harness" / "grade.sh"
    entrypoint.chmod(0o755)
    env = {**os.environ, "DEDUP_HARNESS_GRADE_ROOT": str(root), "DEDUP_HARNESS_VENV": str(venv)}
    env.pop("PYTHONPATH", None)
    done = subprocess.run([str(entrypoint)], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]  # PrairieLearn drops the results of an entrypoint that fails
    results: dict[str, Any] = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    return results


def test_the_bundle_keeps_the_harness_out_of_the_image(bundle: Path) -> None:
    assert not list((bundle / "image").rglob("dedup_harness-*")), "the reference would be public on Docker Hub"
    assert list((bundle / "serverFilesCourse" / "dedup-harness").glob("dedup_harness-*.whl"))
    options = json.loads((bundle / "info.json").read_text(encoding="utf-8"))["externalGradingOptions"]
    assert options["image"] == "course/dedup-harness:1" and options["enableNetworking"] is False
    assert options["entrypoint"] == "/grade/serverFilesCourse/dedup-harness/grade.sh"
    assert options["serverFilesCourse"] == ["dedup-harness/"] and options["timeout"] <= 600


def test_the_entrypoint_gives_the_reference_full_marks(bundle: Path, image: Path, tmp_path: Path) -> None:
    source = (IMPL_ROOT / "corpus" / "dedup.py").read_bytes()
    results = graded_as_prairielearn_does(bundle, image, tmp_path / "grade", source)
    assert (results["gradable"], results["score"]) == (True, 1.0), results.get("output")
    assert all(t["points"] == t["max_points"] for t in results["tests"])


@pytest.fixture(scope="module")
def class_results(bundle: Path, image: Path) -> dict[str, dict[str, Any]]:
    """The class's other submissions graded in one run by the bundle's harness, as grade.sh runs it."""
    folder = bundle.parent / "class"
    sources = {
        "keeps_last": (SUBMISSIONS / "samples" / "keeps_last.py").read_bytes(),
        "syntax_error": (SUBMISSIONS / "hostile" / "syntax_error.py").read_bytes(),
        "print_400mb": hostile_bytes("print_400mb_a_call"),
        "tuned": (SUBMISSIONS / "held_back" / "tuned_to_the_public_cases.py").read_bytes(),
    }
    for name, source in sources.items():
        (folder / name).mkdir(parents=True)
        (folder / name / "dedup.py").write_bytes(source)
    command = [str(image / "bin" / "python"), "-I", "-m", "dedup_harness.cli", "grade", *sorted(sources)]
    command += ["--prairielearn", "out", "--jobs", "2", "--hidden-seed", SEED]
    done = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return {name: json.loads((folder / "out" / name / "results.json").read_bytes()) for name in sources}


def test_a_keep_last_submission_gets_its_partial_score_and_the_pitfall(class_results: dict[str, Any]) -> None:
    results = class_results["keeps_last"]
    assert results["gradable"] is True and 0 < results["score"] < 1
    assert "fails like s01: keeps the last occurrence of each paragraph instead of the first" in results["output"]


def test_a_syntax_error_is_ungradable_with_its_line(class_results: dict[str, Any]) -> None:
    results = class_results["syntax_error"]
    assert results["gradable"] is False
    assert [error.split(":")[0] for error in results["format_errors"]] == ["dedup.py line 9"]


def test_a_submission_printing_400_mb_gets_a_results_json_under_a_megabyte(
    bundle: Path, class_results: dict[str, Any]
) -> None:
    written = bundle.parent / "class" / "out" / "print_400mb" / "results.json"
    assert written.stat().st_size < 1024 * 1024
    assert class_results["print_400mb"]["score"] == 1.0


def test_no_case_the_course_holds_back_is_in_what_students_see(class_results: dict[str, Any]) -> None:
    results = class_results["tuned"]
    [lost] = [t for t in results["tests"] if t["points"] != t["max_points"]]
    assert lost["name"].startswith("3. ") and "fails on cases your course holds back" in lost["output"]
    assert "'m" not in json.dumps(results), "no document of a case held back"
