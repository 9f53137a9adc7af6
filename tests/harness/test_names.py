"""Every submission has a name of its own in every output: no Gradescope folder, row, case or entry is shared."""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from dedup_harness.commands.grade import declare_outputs, write_outputs
from dedup_harness.commands.outputs import OutputError, Outputs
from dedup_harness.distribution.batch_identity import identify
from dedup_harness.grade.reports import csv_report, json_report, junit, names
from dedup_harness.grade.reports.names import LONGEST
from dedup_harness.grade.scoring import equal_weights
from grade_fakes import buggy_report, report


def digest(path: str) -> str:
    return hashlib.sha256(path.encode()).hexdigest()[:8]


def test_a_folder_no_other_submission_would_share_is_the_path_made_safe() -> None:
    assert names.folders(["alice/dedup.py", "bob/"]) == {"alice/dedup.py": "alice_dedup.py", "bob/": "bob"}


def test_paths_that_would_share_a_folder_each_get_their_own_digest() -> None:
    found = names.folders(["team 7/", "team_7/", "alice", "alice/", "carol"])
    assert found == {
        "team 7/": f"team_7-{digest('team 7/')}",
        "team_7/": f"team_7-{digest('team_7/')}",
        "alice": f"alice-{digest('alice')}",
        "alice/": f"alice-{digest('alice/')}",
        "carol": "carol",
    }
    assert names.clash(list(found)) is None


def test_a_submission_keeps_its_folder_whatever_order_the_batch_comes_in() -> None:
    batch = ["team 7/", "team_7/", "zed"]
    assert names.folders(batch) == names.folders(list(reversed(batch)))


def test_a_folder_name_longer_than_a_file_name_may_be_is_cut_and_told_apart() -> None:
    path = "x" * 300
    assert names.folders([path]) == {path: f"{'x' * LONGEST}-{digest(path)}"}


def test_paths_that_read_the_same_in_the_reports_are_refused_before_grading() -> None:
    escaped = "a\\x1bb"  # a folder whose name is the escape the reports write for ESC
    assert names.clash(["a\x1bb", escaped]) == (
        "two submissions' paths read the same once made printable (a\\x1bb): rename one of them"
    )


def test_two_submissions_whose_folders_would_collide_keep_a_row_an_entry_and_a_suite_each() -> None:
    reports = [report(name="team 7/"), buggy_report(name="team_7/")]
    rows = list(csv.DictReader(io.StringIO(csv_report.render([csv_report.row(r, "1/1") for r in reports], {}))))
    entries = json.loads(json_report.render(reports, {}))["submissions"]
    suites = ET.fromstring(junit.render(reports)).findall("testsuite")
    for names_in_output in (
        [row["submission"] for row in rows],
        [entry["submission"] for entry in entries],
        [suite.get("name") for suite in suites],
    ):
        assert sorted(names_in_output) == ["team 7/", "team_7/"]


CJK = "漢" * 84  # 252 bytes: a legal folder name, longer than a Gradescope folder may be once made from a path


def test_a_folder_name_is_cut_by_its_bytes_to_whole_characters_and_fits_a_file_name() -> None:
    found = names.folders([f"{CJK}/", f"{CJK}/dedup.py"])
    assert len(set(found.values())) == 2
    for path, folder in found.items():
        assert folder == f"{'漢' * (LONGEST // 3)}-{digest(path)}" and len(folder.encode()) <= names.NAME_BYTES
    assert names.fit("a漢", 3) == "a" and names.fit("abc", 3) == "abc"


def test_a_class_of_folders_named_in_cjk_letters_gets_its_csv_json_and_gradescope_results(tmp_path: Path) -> None:
    batch = [str(tmp_path / f"{CJK[:-1]}{last}") for last in "字文"]
    for path in batch:
        Path(path).mkdir()
    gradescope = tmp_path / "gs"
    args = argparse.Namespace(
        **dict.fromkeys(("junit", "xlsx", "markdown", "html", "prairielearn"), None),
        json=str(tmp_path / "r.json"),
        csv=str(tmp_path / f"{CJK[:-2]}.csv"),  # 250 bytes: its part file is cut to fit
        gradescope=gradescope,
        show_student_output=False,
    )
    with Outputs("grade") as outputs:
        declare_outputs(outputs, args)
        reports = [report(name=path) for path in batch]
        write_outputs(args, reports, "1/1", outputs, identify(batch, equal_weights()), names.folders(batch))
    assert len(json.loads((tmp_path / "r.json").read_text())["submissions"]) == 2
    assert len(list(csv.DictReader((tmp_path / f"{CJK[:-2]}.csv").open(encoding="utf-8")))) == 2
    assert len(list(gradescope.glob("*/results.json"))) == 2


def test_a_gradescope_file_the_file_system_refuses_is_said_and_every_other_output_written(tmp_path: Path) -> None:
    with Outputs("grade") as outputs:
        outputs.file("--json", tmp_path / "r.json")
        outputs.folder("--gradescope", tmp_path / "gs")
        outputs.put("--json", "{}")
        outputs.put_in_folder("--gradescope", f"{'x' * 300}/results.json", "{}")
        outputs.put_in_folder("--gradescope", "bob/results.json", "{}")
        with pytest.raises(OutputError, match=r"not written .*--gradescope .*x/results.json \(File name too long\)"):
            outputs.commit()
    assert (tmp_path / "r.json").read_text() == "{}" and (tmp_path / "gs" / "bob" / "results.json").exists()
