"""Every submission has a name of its own in every output: no Gradescope folder, row, case or entry is shared."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import xml.etree.ElementTree as ET

from dedup_harness.grade.reports import csv_report, json_report, junit, names
from dedup_harness.grade.reports.names import LONGEST
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
